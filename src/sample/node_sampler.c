/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node sampler (see node_sample.h for the contract).
 *
 * One kept-open file per proc source, one shared buffer that grows to the
 * largest of them (/proc/stat), the NIC counters, and the previous
 * /proc/stat CPU line for the cpu and iowait deltas.  The formulas are
 * pvestatd's (PVE::ProcFSTools in pve-common): see docs/node-values.md.
 */
#include "pvecg/node_sample.h"

#include "pvecg/arcstats.h"
#include "kept_file.h"
#include "pvecg/loadavg.h"
#include "pvecg/meminfo.h"
#include "nic_counters.h"
#include "pvecg/proc_stat.h"
#include "pvecg/psi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* The sources that are files below the proc root come first. */
#define NODE_FILE_COUNT NODE_SOURCE_ROOT
#define ALL_SOURCES ((1u << NODE_SOURCE_COUNT) - 1)

static const char *const proc_files[NODE_FILE_COUNT] = {
    [NODE_SOURCE_STAT] = "stat",
    [NODE_SOURCE_MEMINFO] = "meminfo",
    [NODE_SOURCE_LOADAVG] = "loadavg",
    [NODE_SOURCE_ARCSTATS] = "spl/kstat/zfs/arcstats",
    [NODE_SOURCE_CPU_PRESSURE] = "pressure/cpu",
    [NODE_SOURCE_IO_PRESSURE] = "pressure/io",
    [NODE_SOURCE_MEMORY_PRESSURE] = "pressure/memory",
};

/* The node layout has no pressurecpufull: system-wide cpu "full" is
 * undefined, the kernel prints zeros (Documentation/accounting/psi.rst). */
#define NO_VALUE (-1)

static const struct pressure_source {
  enum node_source source;
  enum psi_resource resource;
  int some, full;
} pressure_sources[] = {
    {NODE_SOURCE_CPU_PRESSURE, PSI_CPU, NODE_PRESSURE_CPU_SOME, NO_VALUE},
    {NODE_SOURCE_IO_PRESSURE, PSI_IO, NODE_PRESSURE_IO_SOME,
     NODE_PRESSURE_IO_FULL},
    {NODE_SOURCE_MEMORY_PRESSURE, PSI_MEMORY, NODE_PRESSURE_MEMORY_SOME,
     NODE_PRESSURE_MEMORY_FULL},
};

struct node_sampler {
  struct node_sampler_config config;
  char path[NODE_SOURCE_COUNT][PATH_MAX];
  struct kept_file file[NODE_FILE_COUNT];
  struct read_buffer buf;
  struct nic_counters *nics;
  struct proc_stat_cpu last_cpu;
  bool have_last_cpu;
  unsigned failed;
};

/* CPU time of the aggregate line, in ticks, as pvestatd sums it. */
struct cpu_times {
  uint64_t used; /* user nice system irq softirq steal (guest is in user) */
  uint64_t iowait;
  uint64_t total; /* used + idle + iowait */
};

static void set_value(struct node_sample *out, enum node_value v,
                      double value) {
  out->value[v] = value;
  out->valid |= 1u << v;
}

static int add_checked(uint64_t a, uint64_t b, uint64_t *ret) {
  if (b > UINT64_MAX - a)
    return -ERANGE;
  *ret = a + b;
  return 0;
}

static int mul_checked(uint64_t a, uint64_t b, uint64_t *ret) {
  if (b != 0 && a > UINT64_MAX / b)
    return -ERANGE;
  *ret = a * b;
  return 0;
}

static int cpu_times(const struct proc_stat_cpu *c, struct cpu_times *t) {
  const uint64_t used_parts[] = {c->user, c->nice,    c->system,
                                 c->irq,  c->softirq, c->steal};
  uint64_t used = 0, total;

  for (size_t i = 0; i < sizeof(used_parts) / sizeof(used_parts[0]); i++)
    if (add_checked(used, used_parts[i], &used) < 0)
      return -ERANGE;
  if (add_checked(used, c->idle, &total) < 0 ||
      add_checked(total, c->iowait, &total) < 0)
    return -ERANGE;
  *t = (struct cpu_times){.used = used, .iowait = c->iowait, .total = total};
  return 0;
}

/* part's share of the time that passed, when it is one: a counter that
 * went backwards (or ran ahead of the total) gives nothing. */
static void set_fraction(struct node_sample *out, enum node_value v,
                         uint64_t before, uint64_t now, uint64_t elapsed) {
  if (now >= before && now - before <= elapsed)
    set_value(out, v, (double)(now - before) / (double)elapsed);
}

static void cpu_fractions(const struct proc_stat_cpu *before,
                          const struct proc_stat_cpu *now,
                          struct node_sample *out) {
  struct cpu_times a, b;

  if (cpu_times(before, &a) < 0 || cpu_times(now, &b) < 0)
    return;
  /* No tick passed, or the counters were reset. */
  if (b.total <= a.total)
    return;
  set_fraction(out, NODE_CPU, a.used, b.used, b.total - a.total);
  set_fraction(out, NODE_IOWAIT, a.iowait, b.iowait, b.total - a.total);
}

/* Reads a proc source whole into s->buf. */
static int read_source(struct node_sampler *s, enum node_source src,
                       size_t *len) {
  int r = kept_file_open(&s->file[src], AT_FDCWD, s->path[src]);

  return r < 0 ? r : kept_file_read(&s->file[src], &s->buf, len);
}

static void sample_stat(struct node_sampler *s, struct node_sample *out) {
  struct proc_stat st;
  size_t len;
  int r = read_source(s, NODE_SOURCE_STAT, &len);

  if (r == 0)
    r = proc_stat_parse(s->buf.data, len, &st);
  out->error[NODE_SOURCE_STAT] = r;
  if (r < 0)
    return;
  set_value(out, NODE_MAXCPU, st.cpus);
  if (s->have_last_cpu)
    cpu_fractions(&s->last_cpu, &st.total, out);
  s->last_cpu = st.total;
  s->have_last_cpu = true;
}

static void sample_meminfo(struct node_sampler *s, struct node_sample *out) {
  struct meminfo mi;
  size_t len;
  int r = read_source(s, NODE_SOURCE_MEMINFO, &len);

  if (r == 0)
    r = meminfo_parse(s->buf.data, len, &mi);
  out->error[NODE_SOURCE_MEMINFO] = r;
  if (r < 0)
    return;
  set_value(out, NODE_MEMTOTAL, (double)mi.mem_total);
  set_value(out, NODE_MEMAVAILABLE, (double)mi.mem_available);
  set_value(out, NODE_SWAPTOTAL, (double)mi.swap_total);
  /* Never negative: an estimate above the total leaves "used" unknown. */
  if (mi.mem_available <= mi.mem_total)
    set_value(out, NODE_MEMUSED, (double)(mi.mem_total - mi.mem_available));
  if (mi.swap_free <= mi.swap_total)
    set_value(out, NODE_SWAPUSED, (double)(mi.swap_total - mi.swap_free));
}

static void sample_loadavg(struct node_sampler *s, struct node_sample *out) {
  struct loadavg la;
  size_t len;
  int r = read_source(s, NODE_SOURCE_LOADAVG, &len);

  if (r == 0)
    r = loadavg_parse(s->buf.data, len, &la);
  out->error[NODE_SOURCE_LOADAVG] = r;
  if (r == 0)
    set_value(out, NODE_LOADAVG, la.avg1);
}

/* No arcstats means no ZFS module: PVE's arcsize is 0 then.  A file that
 * is there but cannot be read or parsed is unknown, not 0. */
static void sample_arcstats(struct node_sampler *s, struct node_sample *out) {
  struct arcstats arc;
  size_t len;
  int r = kept_file_open(&s->file[NODE_SOURCE_ARCSTATS], AT_FDCWD,
                         s->path[NODE_SOURCE_ARCSTATS]);

  if (r == -ENOENT) {
    set_value(out, NODE_ARCSIZE, 0);
    return;
  }
  if (r == 0)
    r = kept_file_read(&s->file[NODE_SOURCE_ARCSTATS], &s->buf, &len);
  if (r == 0)
    r = arcstats_parse(s->buf.data, len, &arc);
  out->error[NODE_SOURCE_ARCSTATS] = r;
  if (r == 0)
    set_value(out, NODE_ARCSIZE, (double)arc.size);
}

static void sample_pressure(struct node_sampler *s,
                            const struct pressure_source *p,
                            struct node_sample *out) {
  struct psi_stats psi;
  size_t len;
  int r = read_source(s, p->source, &len);

  if (r == 0)
    r = psi_parse(s->buf.data, len, &psi);
  out->error[p->source] = r;
  if (r < 0)
    return;
  out->psi[p->resource] = psi;
  out->psi_read[p->resource] = true;
  set_value(out, (enum node_value)p->some, psi.some.avg10);
  if (p->full != NO_VALUE && psi.has_full)
    set_value(out, (enum node_value)p->full, psi.full.avg10);
}

/* df's figures: everything that is not free counts as used, including the
 * blocks reserved for root. */
static void sample_root(struct node_sampler *s, struct node_sample *out) {
  struct statvfs st;
  uint64_t total = 0, used;
  int r = statvfs(s->config.root_path, &st) < 0 ? -errno : 0;

  if (r == 0)
    r = mul_checked(st.f_blocks, st.f_frsize, &total);
  out->error[NODE_SOURCE_ROOT] = r;
  if (r < 0)
    return;
  set_value(out, NODE_ROOTTOTAL, (double)total);
  if (st.f_bfree <= st.f_blocks &&
      mul_checked(st.f_blocks - st.f_bfree, st.f_frsize, &used) == 0)
    set_value(out, NODE_ROOTUSED, (double)used);
}

static void sample_net(struct node_sampler *s, struct node_sample *out) {
  struct nic_totals t;
  int r = nic_counters_sample(s->nics, &t);

  out->error[NODE_SOURCE_NET] = r;
  if (r < 0)
    return;
  out->nics = t.nics;
  if (!t.continuous)
    return;
  set_value(out, NODE_NETIN, (double)t.rx_bytes);
  set_value(out, NODE_NETOUT, (double)t.tx_bytes);
}

static void note_failures(struct node_sampler *s, struct node_sample *out) {
  unsigned failed = 0;

  for (int i = 0; i < NODE_SOURCE_COUNT; i++)
    if (out->error[i] != 0)
      failed |= 1u << i;
  out->failed = failed;
  out->failed_before = s->failed;
  s->failed = failed;
}

int node_sampler_run(struct node_sampler *s, struct node_sample *ret) {
  memset(ret, 0, sizeof(*ret));
  sample_stat(s, ret);
  sample_meminfo(s, ret);
  sample_loadavg(s, ret);
  sample_arcstats(s, ret);
  for (size_t i = 0; i < sizeof(pressure_sources) / sizeof(*pressure_sources);
       i++)
    sample_pressure(s, &pressure_sources[i], ret);
  sample_root(s, ret);
  sample_net(s, ret);
  note_failures(s, ret);
  /* A missing arcstats gives arcsize 0 without saying anything about the
   * roots, so it does not count as data here. */
  return (ret->failed | 1u << NODE_SOURCE_ARCSTATS) == ALL_SOURCES ? -ENODATA
                                                                   : 0;
}

void node_sampler_config_init(struct node_sampler_config *config) {
  memset(config, 0, sizeof(*config));
  snprintf(config->proc_root, sizeof(config->proc_root), "/proc");
  snprintf(config->sys_root, sizeof(config->sys_root), "/sys");
  snprintf(config->root_path, sizeof(config->root_path), "/");
  config->nic_rescan_runs = NODE_NIC_RESCAN_RUNS_DEFAULT;
}

static bool is_absolute(const char *path) {
  return path[0] == '/' && strnlen(path, PATH_MAX) < PATH_MAX;
}

static int join_path(char *buf, const char *root, const char *rel) {
  int n = snprintf(buf, PATH_MAX, "%s/%s", root, rel);
  return n < 0 || n >= PATH_MAX ? -EINVAL : 0;
}

static int make_paths(struct node_sampler *s) {
  const struct node_sampler_config *c = &s->config;
  int r = 0;

  for (int i = 0; r == 0 && i < NODE_FILE_COUNT; i++)
    r = join_path(s->path[i], c->proc_root, proc_files[i]);
  if (r == 0)
    r = join_path(s->path[NODE_SOURCE_NET], c->sys_root, "class/net");
  snprintf(s->path[NODE_SOURCE_ROOT], PATH_MAX, "%s", c->root_path);
  return r;
}

int node_sampler_new(const struct node_sampler_config *config,
                     struct node_sampler **ret) {
  struct node_sampler *s;
  int r;

  if (!is_absolute(config->proc_root) || !is_absolute(config->sys_root) ||
      !is_absolute(config->root_path))
    return -EINVAL;
  s = calloc(1, sizeof(*s));
  if (!s)
    return -ENOMEM;
  s->config = *config;
  for (int i = 0; i < NODE_FILE_COUNT; i++)
    s->file[i] = (struct kept_file)KEPT_FILE_INIT;
  r = make_paths(s);
  if (r == 0)
    r = nic_counters_new(config->sys_root, config->nic_rescan_runs, &s->nics);
  if (r < 0) {
    free(s);
    return r;
  }
  *ret = s;
  return 0;
}

void node_sampler_free(struct node_sampler *s) {
  if (!s)
    return;
  for (int i = 0; i < NODE_FILE_COUNT; i++)
    kept_file_close(&s->file[i]);
  nic_counters_free(s->nics);
  read_buffer_free(&s->buf);
  free(s);
}

const char *node_sampler_source_path(const struct node_sampler *s,
                                     enum node_source source) {
  return (unsigned)source < NODE_SOURCE_COUNT ? s->path[source] : "";
}

size_t node_sampler_fd_count(const struct node_sampler *s) {
  size_t fds = nic_counters_fd_count(s->nics);

  for (int i = 0; i < NODE_FILE_COUNT; i++)
    fds += s->file[i].fd >= 0;
  return fds;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The peers mode (see peers.h).
 *
 * The guests are made once.  A round runs six programs one after the other,
 * in an order rotating by round: idle collectd, the pvecg pipeline, idle
 * perl, the Perl read path, idle netdata, netdata.  Each runs --warmup
 * seconds (netdata: after it has a chart for every guest), then its CPU is
 * taken over --intervals seconds from a quiet moment (the schedstat run
 * time of every thread; for the pipeline collectd's and rrdcached's, for
 * netdata its children's too).  Per guest: (run - idle) / N, medians over
 * rounds.
 */
#include "peers.h"

#include "collectd_conf.h"
#include "collectd_proc.h"
#include "csv.h"
#include "daemon_proc.h"
#include "guest_tree.h"
#include "interrupt.h"
#include "netdata_run.h"
#include "perl_path.h"
#include "peers_check.h"
#include "small_file.h"
#include "temp_dir.h"
#include "timing.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_ROUNDS 2
#define DEFAULT_INTERVALS 30
#define DEFAULT_WARMUP 5
#define READY_TIMEOUT_S 600
#define PRIME_TIMEOUT_S 600

enum peer_run {
  RUN_IDLE_COLLECTD,
  RUN_PVECG,
  RUN_IDLE_PERL,
  RUN_PERL,
  RUN_IDLE_NETDATA,
  RUN_NETDATA,
  RUN_COUNT,
};

static const char *const run_names[RUN_COUNT] = {
    [RUN_IDLE_COLLECTD] = "idle-collectd", [RUN_PVECG] = "pvecg",
    [RUN_IDLE_PERL] = "idle-perl",         [RUN_PERL] = "perl",
    [RUN_IDLE_NETDATA] = "idle-netdata",   [RUN_NETDATA] = "netdata",
};

struct peers_bench {
  const struct bench_options *options;
  size_t guests;
  unsigned intervals, rounds, warmup;
  struct guest_tree tree;
  struct daemon_proc daemon;
  struct perl_path perl;
  char dir[PATH_MAX], empty[PATH_MAX + 8], data_dir[PATH_MAX + 16];
  double *cpu_us[RUN_COUNT];    /* per round: CPU µs per second */
  struct netdata_charts charts; /* netdata's, when last ready */
};

/* One program of a round while it runs. */
struct running {
  enum peer_run kind;
  pid_t pid; /* collectd or perl */
  struct netdata_run netdata;
};

static bool is_netdata(enum peer_run k) {
  return k == RUN_IDLE_NETDATA || k == RUN_NETDATA;
}

static pid_t start_collectd(struct peers_bench *b, bool idle) {
  char conf_path[PATH_MAX], out[PATH_MAX + 32];
  const char *name = idle ? "idle-collectd" : "pvecg";
  struct collectd_conf conf = {
      .dir = b->dir,
      .name = name,
      .cgroup_root = idle ? b->empty : b->tree.root,
      .memory_root = idle ? "" : b->tree.memory_root,
      .options = b->options,
      .data_dir = b->data_dir,
      .daemon_address = b->daemon.address,
  };
  int err = collectd_conf_write(&conf, conf_path);
  if (err < 0)
    return err;
  snprintf(out, sizeof(out), "%s/%s.out", b->dir, name);
  return collectd_proc_start(b->options->collectd, conf_path, out);
}

static int start_netdata(struct peers_bench *b, struct running *r) {
  struct netdata_target t = {
      .netdata = PVECG_BENCH_NETDATA,
      .dir = b->dir,
      .name = run_names[r->kind],
      .root = b->tree.root,
      .memory_root = b->tree.memory_root,
      .empty = b->empty,
      .idle = r->kind == RUN_IDLE_NETDATA,
      .guests = b->guests,
  };
  struct netdata_charts charts;
  bool idle = r->kind == RUN_IDLE_NETDATA;
  int err = netdata_run_start(&r->netdata, &t);
  if (err == 0)
    err = netdata_run_wait_ready(&r->netdata, idle ? 0 : b->guests,
                                 READY_TIMEOUT_S, &charts);
  if (err == 0 && !idle)
    b->charts = charts;
  if (err < 0)
    fprintf(stderr, "pvecg-bench: %s not ready: %s (see %s/%s-*/)\n",
            run_names[r->kind], strerror(-err), b->dir, run_names[r->kind]);
  return err;
}

static int start(struct peers_bench *b, struct running *r) {
  char out[PATH_MAX + 32];
  snprintf(out, sizeof(out), "%s/%s.out", b->dir, run_names[r->kind]);
  switch (r->kind) {
  case RUN_IDLE_COLLECTD:
  case RUN_PVECG:
    r->pid = start_collectd(b, r->kind == RUN_IDLE_COLLECTD);
    break;
  case RUN_IDLE_PERL:
  case RUN_PERL:
    r->pid = perl_path_start(&b->perl, r->kind == RUN_IDLE_PERL, out);
    break;
  default:
    return start_netdata(b, r);
  }
  return r->pid < 0 ? (int)r->pid : 0;
}

static bool alive(const struct running *r) {
  return is_netdata(r->kind) ? netdata_run_alive(&r->netdata)
                             : collectd_proc_alive(r->pid);
}

/* Run time so far of the program (and, for the pipeline, the daemon). */
static uint64_t runtime_ns(const struct peers_bench *b,
                           const struct running *r) {
  if (is_netdata(r->kind))
    return netdata_run_runtime_ns(&r->netdata);
  struct proc_cpu c = {0}, d = {0};
  proc_cpu_read(r->pid, &c);
  if (r->kind == RUN_IDLE_COLLECTD || r->kind == RUN_PVECG)
    proc_cpu_read(b->daemon.pid, &d);
  return c.runtime_ns + d.runtime_ns;
}

static int measure(struct peers_bench *b, struct running *r, unsigned round) {
  struct proc_cpu quiet;
  pid_t main_pid = is_netdata(r->kind) ? r->netdata.inst[0].pid : r->pid;
  int err = collectd_proc_quiet_cpu(main_pid, &quiet);
  if (err < 0)
    return err;
  uint64_t t0 = monotonic_ns(), c0 = runtime_ns(b, r);
  uint64_t end = t0 + (uint64_t)b->intervals * 1000000000u;
  for (uint64_t now = t0; now < end; now = monotonic_ns())
    if (!interruptible_sleep((double)(end - now) / 1e9))
      return -EINTR;
  uint64_t c1 = runtime_ns(b, r);
  double seconds = (double)(monotonic_ns() - t0) / 1e9;
  b->cpu_us[r->kind][round] = (double)(c1 - c0) / 1e3 / seconds;
  return alive(r) ? 0 : -ECHILD;
}

static void stop(struct running *r) {
  if (is_netdata(r->kind))
    netdata_run_stop(&r->netdata);
  else if (r->pid > 0)
    collectd_proc_stop(r->pid);
  r->pid = 0;
}

static int run_once(struct peers_bench *b, enum peer_run kind, unsigned round,
                    struct running *r) {
  memset(r, 0, sizeof(*r));
  r->kind = kind;
  int err = start(b, r);
  if (err == 0 && !interruptible_sleep(b->warmup))
    err = -EINTR;
  if (err == 0 && !alive(r))
    err = -ECHILD;
  if (err == 0)
    err = measure(b, r, round);
  if (err == -ECHILD)
    fprintf(stderr, "pvecg-bench: %s exited early; see %s/%s*\n",
            run_names[kind], b->dir, run_names[kind]);
  stop(r);
  return err;
}

static size_t count_rrd_files(const struct peers_bench *b) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof(path), "%s/pve-vm-9.0", b->data_dir);
  return temp_dir_entries(path);
}

/* pve_rrd creates a file per guest on first sight: done before the rounds,
 * so that no measured run pays for creation; the files are also the proof
 * that the pipeline read every guest. */
static int prime_rrd_files(struct peers_bench *b, struct running *r) {
  memset(r, 0, sizeof(*r));
  r->kind = RUN_PVECG;
  int err = start(b, r);
  uint64_t t0 = monotonic_ns();
  while (err == 0 && count_rrd_files(b) < b->guests) {
    if (!interruptible_sleep(0.5))
      err = -EINTR;
    else if (!alive(r))
      err = -ECHILD;
    else if (monotonic_ns() - t0 > PRIME_TIMEOUT_S * 1000000000ull)
      err = -ETIMEDOUT;
  }
  stop(r);
  printf("# pvecg: %zu RRD files (one per guest) after %.0f s\n",
         count_rrd_files(b), (double)(monotonic_ns() - t0) / 1e9);
  return err;
}

static int run_rounds(struct peers_bench *b, struct running *r) {
  int err = prime_rrd_files(b, r);
  for (unsigned round = 0; err == 0 && round < b->rounds; round++) {
    for (unsigned j = 0; err == 0 && j < RUN_COUNT; j++)
      err = run_once(b, (enum peer_run)((round + j) % RUN_COUNT), round, r);
    if (err == 0) {
      printf("# round %u (us CPU/s):", round + 1);
      for (int k = 0; k < RUN_COUNT; k++)
        printf(" %s %.0f", run_names[k], b->cpu_us[k][round]);
      printf("\n");
    }
  }
  return err;
}

/* Per round (run - idle) / N, summarised. */
static void per_guest(const struct peers_bench *b, enum peer_run run,
                      enum peer_run idle, struct summary *ret) {
  double v[64];
  unsigned n = b->rounds < 64 ? b->rounds : 64;
  for (unsigned r = 0; r < n; r++)
    v[r] = (b->cpu_us[run][r] - b->cpu_us[idle][r]) / (double)b->guests;
  summarize(v, n, ret);
}

static void append_csv(const struct peers_bench *b, const char *method,
                       const struct summary *s, const char *note) {
  if (!b->options->csv)
    return;
  struct csv_row row = {method,    b->guests,    s->median, s->min, s->max,
                        b->rounds, b->intervals, "cgroup",  note};
  csv_append(b->options->csv, &row);
}

static void report(const struct peers_bench *b) {
  printf("%-14s %14s %10s %10s\n", "run", "CPU us/s", "min", "max");
  for (int k = 0; k < RUN_COUNT; k++) {
    struct summary s;
    double v[64];
    unsigned n = b->rounds < 64 ? b->rounds : 64;
    memcpy(v, b->cpu_us[k], n * sizeof(double));
    summarize(v, n, &s);
    printf("%-14s %14.0f %10.0f %10.0f\n", run_names[k], s.median, s.min,
           s.max);
  }
  struct summary pvecg, perl, netdata;
  per_guest(b, RUN_PVECG, RUN_IDLE_COLLECTD, &pvecg);
  per_guest(b, RUN_PERL, RUN_IDLE_PERL, &perl);
  per_guest(b, RUN_NETDATA, RUN_IDLE_NETDATA, &netdata);
  printf("per guest and interval (medians of %u rounds; min-max):\n",
         b->rounds);
  printf("  pvecg (pve_cgroup+pve_rrd+rrdcached) %8.3f us (%.3f-%.3f)\n",
         pvecg.median, pvecg.min, pvecg.max);
  printf("  Proxmox Perl read path               %8.3f us (%.3f-%.3f)  "
         "x%.2f\n",
         perl.median, perl.min, perl.max, perl.median / pvecg.median);
  printf("  netdata cgroups collector            %8.3f us (%.3f-%.3f)  "
         "x%.2f\n",
         netdata.median, netdata.min, netdata.max,
         netdata.median / pvecg.median);
  peers_check_print_charts(&b->charts, b->guests);
  append_csv(b, "peers_pvecg", &pvecg, "pve_cgroup+pve_rrd+rrdcached");
  append_csv(b, "peers_perl", &perl, "pve-common read path");
  append_csv(b, "peers_netdata", &netdata, "netdata cgroups collector");
}

static int setup(struct peers_bench *b) {
  int err = temp_dir_create("pvecg-bench-peers", b->dir, sizeof(b->dir));
  if (err < 0)
    return err;
  snprintf(b->empty, sizeof(b->empty), "%s/empty", b->dir);
  if (mkdir(b->empty, 0755) < 0)
    return -errno;
  for (int k = 0; k < RUN_COUNT; k++)
    if (!(b->cpu_us[k] = calloc(b->rounds, sizeof(double))))
      return -ENOMEM;
  if (daemon_proc_start(&b->daemon, b->dir) != 0)
    return -EIO;
  snprintf(b->data_dir, sizeof(b->data_dir), "%s/pvecg", b->daemon.db);
  if ((err = guest_tree_create(&b->tree, b->guests, GUEST_TREE_CGROUP)) < 0)
    return err;
  return perl_path_init(&b->perl, PVECG_BENCH_PERL, PVECG_BENCH_PERL_SCRIPT,
                        &b->tree, b->dir);
}

static void teardown(struct peers_bench *b, struct running *r) {
  stop(r);
  daemon_proc_stop(&b->daemon);
  guest_tree_remove(&b->tree);
  if (b->dir[0])
    temp_dir_remove(b->dir);
  for (int k = 0; k < RUN_COUNT; k++)
    free(b->cpu_us[k]);
}

static void print_setup(const struct peers_bench *b) {
  char load[128] = "";
  small_file_read("/proc/loadavg", load, sizeof(load));
  printf("# peers: N=%zu guests as real cgroups below %s%s%s, %u s after "
         "%u s warm-up, %u rounds\n# load average: %s",
         b->guests, b->tree.root, b->tree.memory_root[0] ? " and " : "",
         b->tree.memory_root, b->intervals, b->warmup, b->rounds, load);
  peers_check_print_versions();
}

int peers_mode(const struct bench_options *o) {
  int skip = peers_check_programs(o->collectd);
  if (skip)
    return skip;
  /* The pipeline is always pvecg's whole: pve_rrd through rrdcached. */
  struct bench_options with_writer = *o;
  with_writer.writer = WRITER_RRDCACHED;
  struct peers_bench b = {
      .options = &with_writer,
      .guests = o->guests,
      .intervals = o->intervals ? o->intervals : DEFAULT_INTERVALS,
      .rounds = o->rounds ? (o->rounds < 64 ? o->rounds : 64) : DEFAULT_ROUNDS,
      .warmup = o->warmup ? o->warmup : DEFAULT_WARMUP,
  };
  struct running r = {.kind = RUN_IDLE_COLLECTD};
  int err = setup(&b);
  if (err == -EPERM || err == -EACCES || err == -EROFS || err == -ENOENT) {
    fprintf(stderr, "pvecg-bench: peers: cannot make cgroups here (%s)\n",
            strerror(-err));
    teardown(&b, &r);
    return BENCH_EXIT_SKIPPED;
  }
  if (err == 0) {
    print_setup(&b);
    err = peers_check_perl(&b.perl, b.guests);
  }
  if (err == 0)
    err = run_rounds(&b, &r);
  if (err == 0)
    report(&b);
  else if (err != -EINTR)
    fprintf(stderr, "pvecg-bench: peers mode failed: %s\n", strerror(-err));
  teardown(&b, &r);
  if (err == -EINTR || interrupted())
    return BENCH_EXIT_INTERRUPTED;
  return err < 0 ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading one guest into a guest_sample (see sampler_read.h): a pread from
 * offset 0 of each open file and a parse, plus its settings (re-read now
 * and then), KSM and its network counters.  A file that has gone with its
 * cgroup makes the whole guest gone (-ENODEV); any other error is recorded
 * per file in the sample.  Nothing is allocated: the buffers are the
 * reader's.
 */
#include "sampler_read.h"

#include "guest_ksm.h"

#include "pvecg/decimal.h"
#include "pvecg/file_read.h"
#include "pvecg/flat_keyed.h"
#include "pvecg/guest_extra.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads a kept-open file from offset 0.  A file that fills the buffer would
 * be parsed truncated, so that is an error too. */
static int read_kept(int fd, char *buf, size_t size, size_t *len) {
  return fd < 0 ? -ENOENT : file_pread_all(fd, buf, size, len);
}

static bool is_gone_error(int err) { return err == -ENODEV || err == -ENOENT; }

/* ExtraStats: memory.stat is still in r->buf; events and swap are read
 * into the (no longer needed) usage buffer and a small one. */
static int sample_extra(struct sampler_reader *r, const struct guest *g,
                        uint64_t usage, size_t stat_len,
                        struct guest_sample *out) {
  char swap[64];
  size_t elen = 0, wlen = 0;
  int efd = g->fd[GUEST_FILE_MEMORY_EVENTS],
      wfd = g->fd[GUEST_FILE_MEMORY_SWAP];
  int eerr = read_kept(efd, r->usage_buf, sizeof(r->usage_buf), &elen);
  int werr = read_kept(wfd, swap, sizeof(swap), &wlen);
  if ((eerr < 0 && efd >= 0 && is_gone_error(eerr)) ||
      (werr < 0 && wfd >= 0 && is_gone_error(werr)))
    return -ENODEV;
  struct guest_extra_input in = {.version = g->memory_version,
                                 .usage = usage,
                                 .stat = r->buf,
                                 .stat_len = stat_len,
                                 .events = eerr ? NULL : r->usage_buf,
                                 .events_len = elen,
                                 .swap = werr ? NULL : swap,
                                 .swap_len = wlen};
  int perr = 0, pwerr = 0;
  guest_extra_fill(&in, out, &perr, &pwerr);
  out->error[GUEST_FILE_MEMORY_EVENTS] = eerr ? eerr : perr;
  out->error[GUEST_FILE_MEMORY_SWAP] = werr ? werr : pwerr;
  return 0;
}

/* Returns -ENODEV when the guest's cgroup has disappeared. */
static int sample_memory(struct sampler_reader *r, const struct guest *g,
                         struct guest_sample *out) {
  size_t ulen = 0, slen = 0;
  int uerr = read_kept(g->fd[GUEST_FILE_MEMORY_USAGE], r->usage_buf,
                       sizeof(r->usage_buf), &ulen);
  int serr =
      read_kept(g->fd[GUEST_FILE_MEMORY_STAT], r->buf, sizeof(r->buf), &slen);
  out->error[GUEST_FILE_MEMORY_USAGE] = uerr;
  out->error[GUEST_FILE_MEMORY_STAT] = serr;
  if ((uerr && g->fd[GUEST_FILE_MEMORY_USAGE] >= 0 && is_gone_error(uerr)) ||
      (serr && g->fd[GUEST_FILE_MEMORY_STAT] >= 0 && is_gone_error(serr)))
    return -ENODEV;
  if (uerr || serr)
    return 0;
  /* The usage buffer is reused below: keep its value. */
  /* The usage file is checked on its own first so that an error names the
   * file that was malformed. */
  uint64_t usage;
  int err = decimal_parse_u64_file(r->usage_buf, ulen, &usage);
  if (err < 0) {
    out->error[GUEST_FILE_MEMORY_USAGE] = err;
    return 0;
  }
  err = cgroup_memory_parse(g->memory_version, r->usage_buf, ulen, r->buf, slen,
                            &out->memory_used);
  if (err < 0) {
    out->error[GUEST_FILE_MEMORY_STAT] = err;
    return 0;
  }
  out->memory_valid = true;
  return r->config->extra_stats ? sample_extra(r, g, usage, slen, out) : 0;
}

static int sample_pressure(struct sampler_reader *r, const struct guest *g,
                           enum psi_resource res, struct guest_sample *out) {
  enum guest_file file = (enum guest_file)(GUEST_FILE_CPU_PRESSURE + res);
  size_t len = 0;
  int err = read_kept(g->fd[file], r->buf, sizeof(r->buf), &len);
  if (err == 0)
    err = psi_parse(r->buf, len, &out->psi[res]);
  else if (g->fd[file] >= 0 && is_gone_error(err))
    return -ENODEV;
  out->error[file] = err;
  out->psi_valid[res] = err == 0;
  return 0;
}

/* Busy CPUs since the last sample, from cpu.stat's usage_usec. */
static int sample_cpu(struct sampler_reader *r, struct guest *g, double now,
                      struct guest_sample *out) {
  static const char *const keys[] = {"usage_usec"};
  size_t len = 0;
  uint64_t usage = 0, found = 0;
  int fd = g->fd[GUEST_FILE_CPU_STAT];
  int err = read_kept(fd, r->buf, sizeof(r->buf), &len);
  if (err < 0 && fd >= 0 && is_gone_error(err))
    return -ENODEV;
  if (err == 0)
    err = flat_keyed_parse(r->buf, len, keys, 1, &usage, &found);
  if (err == 0 && found != 1)
    err = -ENOMSG;
  out->error[GUEST_FILE_CPU_STAT] = err;
  if (err < 0) {
    g->cpu_have_prev = false;
    return 0;
  }
  /* A counter that went backwards is a reset: unknown, never negative. */
  if (g->cpu_have_prev && usage >= g->cpu_prev_usec && now > g->cpu_prev_time) {
    out->cpu_busy =
        (double)(usage - g->cpu_prev_usec) / 1e6 / (now - g->cpu_prev_time);
    out->cpu_valid = true;
  }
  g->cpu_have_prev = true;
  g->cpu_prev_usec = usage;
  g->cpu_prev_time = now;
  return 0;
}

static int sample_io(struct sampler_reader *r, const struct guest *g,
                     struct guest_sample *out) {
  size_t len = 0;
  int fd = g->fd[GUEST_FILE_IO_STAT];
  int err = read_kept(fd, r->buf, sizeof(r->buf), &len);
  if (err < 0 && fd >= 0 && is_gone_error(err))
    return -ENODEV;
  if (err == 0)
    err = io_stat_parse(r->buf, len, &out->io);
  out->error[GUEST_FILE_IO_STAT] = err;
  out->io_valid = err == 0;
  return 0;
}

static void sample_settings(struct sampler_reader *r, struct guest *g,
                            double now, struct guest_sample *out) {
  /* A VM whose KSM is read now but whose process is not known (KSM was
   * just turned on, or the process went away) is looked for at once. */
  if (r->ksm_due && g->settings.pid <= 0 &&
      sampler_key_type(g->key) == GUEST_QEMU)
    guest_settings_expire(&g->settings);
  if (now >= g->settings.next_check) {
    char dir[PATH_MAX];
    struct guest_settings_source src = {
        .pve_config_dir = r->config->pve_config_dir,
        .cgroup_dir = dir,
        .refresh_seconds = r->config->settings_refresh_seconds,
        .buf = r->config_buf,
        .buf_size = sizeof(r->config_buf),
        /* A VM whose ksm_stat is open has its process: no need to look. */
        .want_pid = r->ksm_active && g->ksm_fd < 0,
        .run_dir = r->config->run_dir,
        .proc_root = r->config->proc_root,
    };
    if (sampler_guest_dir_path(r->config->cgroup_root, g->key, dir,
                               sizeof(dir)) == 0)
      guest_settings_refresh(&g->settings, sampler_key_type(g->key),
                             sampler_key_vmid(g->key), &src, now);
  }
  guest_settings_apply(&g->settings, r->host_cpus, out);
}

/* The VM's QEMU process is gone (or its pid is another's): close its
 * ksm_stat and look for the process again at the next interval. */
static void ksm_lost(struct guest *g) {
  if (g->ksm_fd >= 0)
    close(g->ksm_fd);
  g->ksm_fd = -1;
  g->settings.pid = 0;
  guest_settings_expire(&g->settings);
}

/* KSM: the QEMU process's ksm_stat, opened at the first read after its
 * pid was found (and checked against the pid's start time then, see
 * guest_ksm.h), then re-read in place.  A VM that restarted, or a pid
 * reused by another process, gives nothing now and is looked for again. */
static void sample_ksm(struct sampler_reader *r, struct guest *g,
                       struct guest_sample *out) {
  if (g->settings.pid <= 0)
    return; /* not found (yet): unknown, no error */
  int err = 0;
  if (g->ksm_fd < 0) {
    int fd = guest_ksm_open(r->config->proc_root, g->settings.pid,
                            g->settings.pid_start);
    if (fd < 0)
      err = fd; /* -ENOENT of a live process: no ksm_stat here */
    else
      g->ksm_fd = fd;
  }
  size_t len = 0;
  if (err == 0)
    err = guest_ksm_read(g->ksm_fd, r->buf, sizeof(r->buf), &len);
  if (err == 0 && ksm_stat_parse(r->buf, len, &out->ksm) < 0)
    err = -EBADMSG;
  out->ksm_valid = err == 0;
  out->ksm_error = err;
  if (err == -ESRCH)
    ksm_lost(g);
}

/* The stall counters of this step, from the pressure files just read. */
static void sample_stall(struct sampler_reader *r, struct guest *g,
                         struct guest_sample *out) {
  uint64_t total[STALL_COLUMNS];
  unsigned have;
  struct stall_reading reading;
  stall_counter_totals(out->psi, out->psi_valid, total, &have);
  stall_counter_advance(&g->stall, total, have, r->wall, &reading);
  memcpy(out->stall, reading.value, sizeof(out->stall));
  out->stall_valid = reading.valid;
  out->stall_restarted = reading.restarted;
}

static unsigned failed_files(const struct guest_sample *out) {
  unsigned failed = 0;
  for (int i = 0; i < GUEST_FILE_COUNT; i++) {
    bool optional = GUEST_FILES_OPTIONAL & (1u << i);
    if (out->error[i] && !(optional && out->error[i] == -ENOENT))
      failed |= 1u << i;
  }
  return failed;
}

int sampler_read_guest(struct sampler_reader *r, struct guest *g, double now,
                       struct guest_sample *out) {
  memset(out, 0, sizeof(*out));
  out->vmid = sampler_key_vmid(g->key);
  out->type = sampler_key_type(g->key);
  out->memory_version = g->memory_version;
  if (sample_memory(r, g, out) < 0)
    return -ENODEV;
  for (int res = 0; res < PSI_RESOURCE_COUNT; res++)
    if (sample_pressure(r, g, (enum psi_resource)res, out) < 0)
      return -ENODEV;
  if (sample_cpu(r, g, now, out) < 0 || sample_io(r, g, out) < 0)
    return -ENODEV;
  if (r->stall_due)
    sample_stall(r, g, out);
  sample_settings(r, g, now, out);
  if (r->ksm_active && r->ksm_due && out->type == GUEST_QEMU)
    sample_ksm(r, g, out);
  out->net_valid =
      guest_net_lookup(&r->net, g->key, &out->netin, &out->netout) == 0;
  out->failed = failed_files(out);
  out->failed_before = g->failed;
  g->failed = out->failed;
  return 0;
}

void sampler_reader_init(struct sampler_reader *r,
                         const struct sampler_config *config,
                         unsigned host_cpus) {
  r->config = config;
  r->host_cpus = host_cpus;
  r->ksm_active = r->ksm_due = config->ksm;
  guest_net_init(&r->net, config->proc_root);
}

void sampler_reader_free(struct sampler_reader *r) { guest_net_free(&r->net); }

void sampler_reader_begin_run(struct sampler_reader *r) {
  guest_net_refresh(&r->net);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a guest is configured to have: its CPU count, memory size and name.
 *
 * The source is the guest's PVE configuration file (guest_config.h) below
 * the PVE config directory; where there is none (a host that is not a PVE
 * node, or a guest whose config lives on another node), the cgroup's own
 * limits stand in: cpu.max for CPUs (else the host's CPU count) and
 * memory.max for memory; where neither file exists they are looked for
 * again after the refresh period, then twice as long each time, up to 8
 * minutes (two failed path lookups per guest and refresh were 4 % of the
 * sampler on a hybrid host).  A config that exists but cannot be read or
 * parsed leaves both unknown.  The config lives on pmxcfs, where a stat costs
 * tens of microseconds, so it is looked at no more often than a refresh
 * period, and re-read only when its mtime changed.
 *
 * With KSM statistics on, the same refresh finds a VM's QEMU process: the
 * pid in <run_dir>/qemu-server/<vmid>.pid, else the first pid of the
 * scope's cgroup.procs, accepted only if /proc/<pid>/cgroup puts it in the
 * guest's scope (a stale pid file must not report another process).  Its
 * start time is kept with it: a pid is reused by a later process, and a
 * reader of /proc/<pid>/... checks that the start time is still the same
 * after reading, so no number of another process is ever taken for the
 * VM's.
 */
#ifndef PVECG_GUEST_SETTINGS_H
#define PVECG_GUEST_SETTINGS_H

#include "pvecg/guest.h"
#include "pvecg/guest_config.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct guest_settings {
  double next_check; /* monotonic seconds */
  bool have_mtime;
  struct timespec mtime;
  int config_error; /* 0, or why the config could not be used */
  /* config_error as the previous sample reported it, so the sample says
   * "changed" once, not on every sample until the next look. */
  int config_error_reported;
  struct guest_config config;
  unsigned cpu_max_cpus; /* from cpu.max; 0: no quota or unknown */
  uint64_t memory_max;   /* from memory.max; 0: no limit or unknown */
  /* Neither limit file exists (no cpu or memory controller in cgroup2, as
   * on a hybrid host): they are looked for again at limits_at, after a
   * wait that doubles each time, as missing cgroup files are. */
  double limits_at;
  double limits_wait;
  int pid;            /* the QEMU process; 0: not looked for or none */
  uint64_t pid_start; /* its start time (/proc/<pid>/stat) */
};

struct guest_settings_source {
  const char *pve_config_dir; /* "" for none */
  const char *cgroup_dir;     /* the guest's cgroup2 directory */
  double refresh_seconds;
  char *buf; /* scratch for reading the config; a larger file is an error */
  size_t buf_size;
  /* Find the QEMU pid (KSM statistics): */
  bool want_pid;
  const char *run_dir;   /* "/run": holds qemu-server/<vmid>.pid */
  const char *proc_root; /* "/proc" */
};

void guest_settings_init(struct guest_settings *gs);

/* Re-reads what may have changed, when the refresh period has passed. */
void guest_settings_refresh(struct guest_settings *gs, enum guest_type type,
                            uint32_t vmid,
                            const struct guest_settings_source *src,
                            double now);

/* The start time of proc_root/<pid>/stat (clock ticks after boot).
 * Returns 0 or a negative errno (the process is gone: -ENOENT). */
int guest_pid_start(const char *proc_root, int pid, uint64_t *ret);

/* Makes the next refresh happen at once (the QEMU pid went away). */
void guest_settings_expire(struct guest_settings *gs);

/* Fills the sample's maxcpu, maxmem, name, config_error and
 * config_error_before (what the previous call reported). */
void guest_settings_apply(struct guest_settings *gs, unsigned host_cpus,
                          struct guest_sample *out);

#endif

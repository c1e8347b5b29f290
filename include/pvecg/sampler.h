/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest sampler: finds the guests' cgroups and reads their memory and
 * pressure files.
 *
 * Discovery lists qemu.slice/ and lxc/ below the cgroup2 root (never walks
 * the tree); every file of a guest is opened once, O_CLOEXEC, when the guest
 * appears, and re-read with pread() at offset 0 on each run, which makes
 * cgroupfs regenerate it.  A read that fails with ENODEV/ENOENT means the
 * cgroup is gone: the guest is dropped and the directories are listed again
 * at once, so a re-created guest of the same VMID (a new directory, a new
 * inode) is picked up in the same run.
 *
 * The listing itself is skipped while cgroupfs says a type directory's
 * children are unchanged (see dir_change.h).  Where PveConfigDir is
 * pmxcfs' tree, only the guests whose configuration is on this node are
 * reported, as pvestatd does (see local_configs.h).  Guests beyond the
 * descriptor budget are read by open/read/close each time instead.
 *
 * Not thread-safe: one sampler belongs to one read callback.
 */
#ifndef PVECG_SAMPLER_H
#define PVECG_SAMPLER_H

#include "pvecg/guest.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct sampler_config {
  /* cgroup2 root: holds qemu.slice/ and lxc/ and the PSI files. */
  char cgroup_root[PATH_MAX];
  /* Root of the cgroup v1 memory hierarchy, used for guests whose cgroup2
   * directory has no memory.current (hybrid hosts); "" for none. */
  char memory_root[PATH_MAX];
  bool types[GUEST_TYPE_COUNT]; /* which kinds of guest to sample */
  /* Called once when a guest is discovered; false leaves it alone (no files
   * opened).  NULL accepts every guest. */
  bool (*accept)(enum guest_type type, uint32_t vmid, void *ctx);
  void *accept_ctx;
  /* Descriptors the guests' files may keep open (GUEST_FILE_COUNT per
   * guest); 0 for no limit.  See fd_budget.h. */
  size_t fd_budget;
  /* procfs, for net/dev (the guests' tap/veth counters); "" for none. */
  char proc_root[PATH_MAX];
  /* PVE config directory (holds qemu-server/ and lxc/); "" for none. */
  char pve_config_dir[PATH_MAX];
  /* How often a guest's config (and cgroup limits) are looked at again. */
  double settings_refresh_seconds;
  /* CPUs of the host, for guests without a CPU count; 0: ask sysconf. */
  unsigned host_cpus;
  /* Also read the ExtraStats files (memory.events, memory.swap.current)
   * and fill the sample's memory_detail / oom fields. */
  bool extra_stats;
  /* KSM statistics may be taken: each VM's QEMU process is found and its
   * /proc/<pid>/ksm_stat kept open (one more descriptor per guest in the
   * budget) and read in every run, unless sampler_plan_next() says
   * otherwise. */
  bool ksm;
  /* Where QEMU's pid files are (<run_dir>/qemu-server/<vmid>.pid). */
  char run_dir[PATH_MAX];
  /* Monotonic clock in seconds; NULL for CLOCK_MONOTONIC (tests set it). */
  double (*clock)(void);
};

/* Which guests a run reports (see src/sample/local_configs.h). */
enum sampler_scope {
  SAMPLER_SCOPE_ALL,       /* PveConfigDir "": every guest found */
  SAMPLER_SCOPE_NO_TREE,   /* no pmxcfs tree there (yet): every guest */
  SAMPLER_SCOPE_THIS_NODE, /* the guests whose configuration is here */
};

struct sampler_stats {
  size_t guests;                  /* tracked now */
  size_t unkept_guests;           /* of those, read by open/read/close */
  size_t fds;                     /* descriptors held now */
  unsigned long listings;         /* type directories listed so far */
  unsigned long listings_skipped; /* ...and not listed: unchanged */
};

struct sampler;

/* Returns 0, -EINVAL (relative or too long root) or -ENOMEM. */
int sampler_new(const struct sampler_config *config, struct sampler **ret);
void sampler_free(struct sampler *sampler);

typedef void (*sampler_visit_fn)(const struct guest_sample *sample, void *ctx);

/*
 * Discovers guests and samples each once, calling visit for every guest in
 * order of (type, vmid).  Returns 0, or a negative errno when no guest
 * directory could be listed at all (then nothing is visited).
 */
int sampler_run(struct sampler *sampler, sampler_visit_fn visit, void *ctx);

/* What the next run does beside reading every guest's files. */
struct sampler_plan {
  /* KSM (config.ksm must be on): active, the VMs' QEMU processes are
   * looked for and their ksm_stat kept open; due, the run reads them (else
   * the samples' KSM fields stay unset).  A plugin that records KSM once
   * per RRD step reads it only in the first run of each step; one that
   * found the host not running KSM keeps it inactive until it does. */
  bool ksm_active, ksm_due;
  /* Advance the guests' stall counters (stall_counter.h) at wall, the
   * run's wall-clock time in seconds: the time its rows carry, so that no
   * recorded advance exceeds the time between them.  Else the samples'
   * stall fields stay unset. */
  bool stall_due;
  double wall;
};

/* Until the first call: KSM active and due in every run if config.ksm,
 * no stall counters. */
void sampler_plan_next(struct sampler *sampler,
                       const struct sampler_plan *plan);

/* Guests currently tracked (for tests, benchmarks and log lines). */
size_t sampler_guest_count(const struct sampler *sampler);

/* Of those, the guests read by open/read/close (beyond the descriptor
 * budget); cheap enough for every interval, unlike sampler_get_stats(),
 * which counts the descriptors. */
size_t sampler_unkept_count(const struct sampler *sampler);

/* Open file descriptors the sampler holds. */
size_t sampler_fd_count(const struct sampler *sampler);

void sampler_get_stats(const struct sampler *sampler,
                       struct sampler_stats *ret);

/* Which guests the last run reported. */
enum sampler_scope sampler_scope(const struct sampler *sampler);

#endif

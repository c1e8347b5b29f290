/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PSS path of Proxmox VE 9.0.11 to 9.1.3: a guest's memory as the sum
 * of "Pss:" in /proc/<pid>/smaps_rollup over the pids in the guest cgroup's
 * cgroup.procs, every file opened, read and closed each time.  The kernel
 * produces smaps_rollup by walking the process's page tables, so its cost
 * grows with the memory mapped (and with KSM sharing).
 */
#ifndef PVECG_BENCH_PSS_PATH_H
#define PVECG_BENCH_PSS_PATH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct smaps_rollup {
  uint64_t rss; /* bytes */
  uint64_t pss; /* bytes */
};

/* Reads /proc/<pid>/smaps_rollup.  Returns 0 or a negative errno. */
int pss_path_process(pid_t pid, struct smaps_rollup *ret);

/* Sums Pss over cgroup_dir/cgroup.procs into *ret (bytes) and the number of
 * processes read into *procs.  Returns 0 or a negative errno. */
int pss_path_cgroup(const char *cgroup_dir, uint64_t *ret, size_t *procs);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One small real process per guest, for the PSS path: PVE 9.0.11-9.1.3
 * summed Pss over the guest cgroup's cgroup.procs, so that reader needs a
 * process in each guest cgroup to read.  Each is a forked child of the
 * benchmark that only pause()s; it dies with the benchmark (PDEATHSIG).
 */
#ifndef PVECG_BENCH_GUEST_PROCS_H
#define PVECG_BENCH_GUEST_PROCS_H

#include "guest_tree.h"

#include <stddef.h>
#include <sys/types.h>

struct guest_procs {
  pid_t *pids;
  size_t count;
};

/* Starts one process in each of the first count guests of tree.  Returns 0
 * or a negative errno (then none is left running). */
int guest_procs_start(struct guest_procs *procs, const struct guest_tree *tree,
                      size_t count);

/* Kills and reaps them all. */
void guest_procs_stop(struct guest_procs *procs);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU time of a process and its direct children: netdata runs a spawn
 * server (and would run its external plugins) as children, and their CPU
 * is the collector's too.
 */
#ifndef PVECG_BENCH_PROC_FAMILY_H
#define PVECG_BENCH_PROC_FAMILY_H

#include <stdint.h>
#include <sys/types.h>

/* Sum of the schedstat run time (ns) of pid's threads and of every thread
 * of the processes whose parent is pid; 0 when pid is gone. */
uint64_t proc_family_runtime_ns(pid_t pid);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collectd daemon as a measured child process: started in the
 * foreground (collectd -f -C conf), observed through /proc, stopped with
 * SIGTERM (SIGKILL if it does not exit).  It dies with the benchmark.
 */
#ifndef PVECG_BENCH_COLLECTD_PROC_H
#define PVECG_BENCH_COLLECTD_PROC_H

#include "proc_usage.h"

#include <stdbool.h>
#include <sys/types.h>

/* Starts collectd with conf, its stdout and stderr going to output.
 * Returns the pid or a negative errno. */
pid_t collectd_proc_start(const char *collectd, const char *conf,
                          const char *output);

bool collectd_proc_alive(pid_t pid);

/*
 * Waits (at most 3 s) for a moment between two of collectd's intervals,
 * when its CPU time has not moved for 100 ms, and reads the CPU time then.
 * Measuring from such a moment to the same moment K seconds later covers
 * exactly K intervals.  Returns 0 or a negative errno.
 */
int collectd_proc_quiet_cpu(pid_t pid, struct proc_cpu *ret);

/* SIGTERM, up to 10 s of grace, then SIGKILL; reaps it. */
void collectd_proc_stop(pid_t pid);

#endif

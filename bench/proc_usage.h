/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a process uses, from /proc: open descriptors and resident memory
 * (the soak mode watches its own), and CPU time (the collectd mode
 * measures collectd's).
 */
#ifndef PVECG_BENCH_PROC_USAGE_H
#define PVECG_BENCH_PROC_USAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Entries of /proc/<pid>/fd (pid 0: this process). */
int proc_fd_count(pid_t pid, size_t *ret);

/* Resident set size in bytes, from /proc/<pid>/statm (pid 0: this one). */
int proc_rss_bytes(pid_t pid, uint64_t *ret);

/* collectd names its threads: "reader#N" run read callbacks, "writer#N"
 * write callbacks; the rest are the main thread and plugins' own. */
enum proc_thread_role {
  PROC_THREAD_READER,
  PROC_THREAD_WRITER,
  PROC_THREAD_OTHER,
  PROC_THREAD_ROLE_COUNT,
};

struct proc_cpu {
  /* utime + stime of /proc/<pid>/stat, in clock ticks (USER_HZ). */
  uint64_t ticks;
  /* Sum of sum_exec_runtime over /proc/<pid>/task/<tid>/schedstat, in ns:
   * the same CPU time without the tick's 10 ms granularity; 0 when the
   * kernel has no schedstat. */
  uint64_t runtime_ns;
  /* Sum of the timeslices field of the same files: how often the threads
   * were put on a CPU (each wake-up of a sleeping thread is one). */
  uint64_t timeslices;
  /* runtime_ns and timeslices split by the threads' roles (by name). */
  uint64_t role_ns[PROC_THREAD_ROLE_COUNT];
  uint64_t role_slices[PROC_THREAD_ROLE_COUNT];
};

/* Returns 0 or a negative errno (-ESRCH when the process is gone). */
int proc_cpu_read(pid_t pid, struct proc_cpu *ret);

#endif

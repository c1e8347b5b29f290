/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A measured child process of the peers mode (the Perl read path, netdata):
 * started with its output in a file, killed by the kernel if the benchmark
 * dies, stopped with collectd_proc_stop (SIGTERM, then SIGKILL).
 */
#ifndef PVECG_BENCH_CHILD_PROC_H
#define PVECG_BENCH_CHILD_PROC_H

#include <sys/types.h>

/* Runs argv[0] (a path) with argv; stdout and stderr go to output.
 * Returns the pid or a negative errno. */
pid_t child_proc_start(char *const argv[], const char *output);

/* Runs argv to its end with stdout into buf (NUL-terminated, truncated to
 * size - 1).  Returns the exit status, or a negative errno. */
int child_proc_capture(char *const argv[], char *buf, size_t size);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Clocks and the summary of repeated rounds: every figure the benchmark
 * reports is the median over rounds, with the minimum and maximum beside it.
 * The readers are timed by the CPU time of the thread that runs them
 * (thread_cpu_ns()), as collectd's CPU is measured: wall time counts the
 * moments the thread waited for a CPU, which on a busy machine made the
 * floor look dearer than it is.  Waits are timed with monotonic_ns()
 * (src/util/monotonic.h).
 */
#ifndef PVECG_BENCH_TIMING_H
#define PVECG_BENCH_TIMING_H

#include "pvecg/monotonic.h"

#include <stddef.h>
#include <stdint.h>

struct summary {
  double median, min, max;
  size_t count;
};

/* CPU time of the calling thread, ns. */
uint64_t thread_cpu_ns(void);

/* Summarises values[0..count) (sorting them in place); all NAN when
 * count is 0. */
void summarize(double *values, size_t count, struct summary *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CLOCK_MONOTONIC, for intervals, deadlines and timeouts: the wall clock
 * may step (NTP, an operator, a VM resumed), which must neither stretch
 * nor cut a wait.  One place reads it for the samplers, the RRD sink, the
 * command and the benchmarks.
 */
#ifndef PVECG_MONOTONIC_H
#define PVECG_MONOTONIC_H

#include <stdint.h>

/* Nanoseconds since an arbitrary start (boot), never going back. */
int64_t monotonic_ns(void);

/* The same clock in seconds. */
double monotonic_seconds(void);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mode "collectd --guests N": CPU time per interval of a real collectd
 * (Interval 1) running pve_cgroup on N guests, minus the same collectd
 * without them, against the calibration plugin bench_dispatch (N row
 * value lists per interval, nothing read) plus the kernel floor of the same
 * files measured in this process; reports the ratio
 *
 *   pve_cgroup / (floor + calibration)     per guest, target <= 1.25,
 *
 * with the floor read at collectd's pace (one interval per second).
 *
 * A second calibration spaces the rows by the sampler's CPU per guest (as
 * pve_cgroup's file reads space its dispatches), which shows what the
 * spacing alone costs collectd.  Every run has the same writer set (--writer
 * none: no write plugin;
 * --writer rrd: pve_rrd into a temporary DataDir).
 */
#ifndef PVECG_BENCH_COLLECTD_RUN_H
#define PVECG_BENCH_COLLECTD_RUN_H

#include "options.h"

/* Returns the process exit status: 0, 1, BENCH_EXIT_SKIPPED (no collectd)
 * or BENCH_EXIT_INTERRUPTED. */
int collectd_mode(const struct bench_options *options);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counters rebuilt from the RRD's rates.  Proxmox sends netin, netout,
 * diskread and diskwrite as cumulative byte counters; the RRD keeps, per
 * row, the average rate over the row's span.  For a file's rows, oldest
 * first, the counter is 0 at the first row with a known rate and grows by
 * rate x resolution at every later one, so that the derivative between
 * two neighbouring rows (a dashboard's non_negative_derivative, or
 * Prometheus' rate()) gives the RRD's rate back.  A row whose rate is
 * unknown has no counter; the next known row continues from the last
 * total (the bytes of the gap are unknown, not made up).
 */
#ifndef PVECG_EXPORT_COUNTER_H
#define PVECG_EXPORT_COUNTER_H

#include "pvecg/rrd_layout.h"

#include <stdbool.h>

struct export_counter {
  double total[RRD_LAYOUT_DS_MAX];
  bool started[RRD_LAYOUT_DS_MAX];
};

/* Starts the counters of a new file. */
void export_counter_reset(struct export_counter *counter);

/* out = values, with every column of layout that is_counter[] marks
 * replaced by its counter after the row of `resolution` seconds. */
void export_counter_apply(struct export_counter *counter,
                          const struct rrd_layout *layout,
                          const bool *is_counter, unsigned long resolution,
                          const double *values, double *out);

#endif

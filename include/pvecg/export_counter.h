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
 *
 * A counter is written in its own unit: the total divided by how many of
 * the RRD's units make one of it (pvecg's stall totals: the RRD's rate is
 * microseconds stalled per second, the counter is in seconds, so a
 * store's rate() gives the share of time stalled).  Totals are kept in
 * the RRD's units and divided only when written, so that a counter of
 * whole microseconds stays exact however long it runs.
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

/* out = values, with every column of layout whose unit[] is not 0
 * replaced by its counter after the row of `resolution` seconds, divided
 * by that unit. */
void export_counter_apply(struct export_counter *counter,
                          const struct rrd_layout *layout, const double *unit,
                          unsigned long resolution, const double *values,
                          double *out);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The benchmark's CSV output: one row per (method, N) measured, appended to
 * the file named by --csv, which scripts/plot-bench turns into a plot
 * (docs/performance.md).  Columns:
 *
 *   method,N,us_per_guest,min_us,max_us,rounds,intervals,tree,note
 *
 * us_per_guest is the median over rounds of the time (or CPU time, for the
 * collectd mode) per guest and interval; tree is "cgroup" or "fixture".
 */
#ifndef PVECG_BENCH_CSV_H
#define PVECG_BENCH_CSV_H

#include <stddef.h>

struct csv_row {
  const char *method;
  size_t guests;
  double us_per_guest, min_us, max_us;
  unsigned rounds, intervals;
  const char *tree;
  const char *note; /* free text without commas or quotes; may be NULL */
};

/* Appends the row, writing the header first into a new or empty file.
 * Returns 0 or a negative errno. */
int csv_append(const char *path, const struct csv_row *row);

#endif

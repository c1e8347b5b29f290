/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The progress line of `pvecg export` on a terminal: files done of all,
 * points, points per second and the time left, redrawn at most five
 * times a second on stderr and cleared at the end.  Silent when stderr is
 * not a terminal or with --quiet.
 */
#ifndef PVECG_EXPORT_PROGRESS_H
#define PVECG_EXPORT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct export_progress {
  FILE *out; /* NULL: silent */
  size_t files;
  double start, last_drawn;
  bool drawn;
};

/* Starts the clock; draws only when `out` is a terminal and !quiet. */
void export_progress_begin(struct export_progress *p, FILE *out, bool quiet,
                           size_t files);

/* After `done` files with `points` points so far. */
void export_progress_update(struct export_progress *p, size_t done,
                            size_t points);

/* Clears the line. */
void export_progress_end(struct export_progress *p);

#endif

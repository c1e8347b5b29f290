/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Formats one RRD update row, "<time>:<v1>:...:<vN>", for a layout.
 *
 * Values are doubles with NAN for unknown.  rrdcached does not validate what
 * it is given, so every value is formatted here: GAUGE values in the
 * shortest form that reads back to the same double, DERIVE values as
 * integers; NaN, infinities, and DERIVE values that are negative, not
 * integral or beyond 2^63 become "U".
 */
#ifndef PVECG_RRD_ROW_H
#define PVECG_RRD_ROW_H

#include "pvecg/rrd_layout.h"

#include <stddef.h>
#include <time.h>

/* Enough for the widest layout with every value at its longest form. */
#define RRD_ROW_SIZE 1024

/*
 * Writes the row for time t into buf.  n must equal layout->ds_count.
 * Returns the length written (without NUL), -EINVAL for a wrong n or a
 * negative t, -ENOSPC when buf is too small.
 */
int rrd_row_format(const struct rrd_layout *layout, time_t t,
                   const double *values, size_t n, char *buf, size_t size);

/* Formats one GAUGE value as in a row ("U" for NaN/inf); returns the length
 * or -ENOSPC. */
int rrd_row_format_gauge(double value, char *buf, size_t size);

#endif

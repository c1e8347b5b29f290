/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RRD update rows, "<time>:<v1>:...:<vN>" (see rrd_row.h).
 *
 * rrdcached passes whatever it gets on to librrd and only fails later, in
 * the daemon's log, so a row is made valid here: every value is either a
 * number librrd parses to the intended double or "U".
 */
#include "pvecg/rrd_row.h"

#include "gauge_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "-1.2345678901234567e-308" plus NUL, with room to spare. */
#define VALUE_SIZE GAUGE_TEXT_SIZE

/* 2^63: the first double a signed 64-bit counter cannot hold. */
#define DERIVE_LIMIT 9223372036854775808.0

/* "U" without printf: a guest's row has several. */
static int unknown(char out[VALUE_SIZE]) {
  memcpy(out, "U", 2);
  return 1;
}

static int copy_out(const char *text, int len, char *buf, size_t size) {
  if (buf == NULL || (size_t)len >= size)
    return -ENOSPC;
  memcpy(buf, text, (size_t)len + 1);
  return len;
}

/* %.15g is exact for most measured values and reads best ("1.23", not
 * "1.2299999999999999"); more digits only when needed to read back the
 * same double. */
static int format_gauge(double value, char out[VALUE_SIZE]) {
  if (!isfinite(value))
    return unknown(out);
  int len = gauge_text_short(value, out); /* the same text, without printf */
  if (len > 0)
    return len;
  for (int precision = 15; precision <= 17; precision++) {
    len = snprintf(out, VALUE_SIZE, "%.*g", precision, value);
    if (strtod(out, NULL) == value)
      break;
  }
  return len;
}

/* Counters are integers to rrd; anything that is not a representable
 * non-negative integer means a broken reading and becomes unknown. */
static int format_derive(double value, char out[VALUE_SIZE]) {
  if (!isfinite(value) || value < 0 || value >= DERIVE_LIMIT ||
      value != floor(value))
    return unknown(out);
  /* below 10^15 %.15g's text of a whole number is its digits */
  int len = value < 1e15 ? gauge_text_short(value, out) : 0;
  return len > 0 ? len : snprintf(out, VALUE_SIZE, "%lld", (long long)value);
}

static int format_value(enum rrd_ds_type type, double value,
                        char out[VALUE_SIZE]) {
  return type == RRD_DS_DERIVE ? format_derive(value, out)
                               : format_gauge(value, out);
}

int rrd_row_format_gauge(double value, char *buf, size_t size) {
  char text[VALUE_SIZE];
  return copy_out(text, format_gauge(value, text), buf, size);
}

/* Built in a local buffer so buf is only written on success. */
int rrd_row_format(const struct rrd_layout *layout, time_t t,
                   const double *values, size_t n, char *buf, size_t size) {
  if (layout == NULL || n != layout->ds_count || n > RRD_LAYOUT_DS_MAX ||
      (n > 0 && values == NULL) || t < 0)
    return -EINVAL;
  char row[RRD_ROW_SIZE];
  /* a time is below 10^15: its text is its digits, without printf */
  int len = gauge_text_short((double)t, row);
  if (len <= 0)
    len = snprintf(row, sizeof(row), "%lld", (long long)t);
  for (size_t i = 0; i < n; i++) {
    char text[VALUE_SIZE];
    int vlen = format_value(layout->ds[i].type, values[i], text);
    if ((size_t)len + 1 + (size_t)vlen >= sizeof(row))
      return -ENOSPC;
    row[len++] = ':';
    memcpy(row + len, text, (size_t)vlen + 1);
    len += vlen;
  }
  return copy_out(row, len, buf, size);
}

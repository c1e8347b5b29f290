/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A line of export text put together in memory and written to its stream
 * whole: one call into the stream per line instead of one fprintf per tag
 * and field, which was a seventh of a shipper's pass.  A line longer than
 * the buffer goes out in pieces, with the same bytes.
 */
#ifndef PVECG_EXPORT_LINE_H
#define PVECG_EXPORT_LINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXPORT_LINE_SIZE 1024

struct export_line {
  FILE *out;
  size_t len;
  char buf[EXPORT_LINE_SIZE];
};

void export_line_put(struct export_line *l, const char *s, size_t n);
void export_line_puts(struct export_line *l, const char *s);
void export_line_putc(struct export_line *l, char c);

/* s with a backslash before every character of specials (line protocol). */
void export_line_escaped(struct export_line *l, const char *s,
                         const char *specials);

/* v in decimal, as "%" PRId64 writes it. */
void export_line_int(struct export_line *l, int64_t v);

/* Writes what the line holds to its stream. */
void export_line_flush(struct export_line *l);

#endif

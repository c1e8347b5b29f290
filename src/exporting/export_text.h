/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pieces of text every export format is made of: a value as a row
 * holds it, Graphite path levels, InfluxDB line-protocol escaping, and
 * what a metric prefix may be (export_source.h).
 */
#ifndef PVECG_EXPORT_TEXT_H
#define PVECG_EXPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* rrd_row_format_gauge's longest form ("-1.2345678901234567e-308"). */
#define EXPORT_VALUE_SIZE 32

#define INFLUX_KEY_SPECIALS ", ="
#define INFLUX_MEASUREMENT_SPECIALS ", "

/* A known value in the shortest form that reads back as the same double,
 * as rrd_row_format_gauge writes it into a row. */
void export_value_text(double value, char text[EXPORT_VALUE_SIZE]);

/* Whether none of the n values is known. */
bool export_all_unknown(const double *values, size_t n);

/* Letters, digits, '_' and '-'. */
bool export_is_word_char(char c);

/* One Graphite path level: anything but letters, digits, '_' and '-'
 * would change the path's shape (a '.', a space, a newline), so it becomes
 * '_', as collectd's write_graphite does. */
void export_graphite_level(const char *s, FILE *out);

/* Whether line protocol can carry s as a tag value or key: not empty, no
 * control character (a newline ends the line and cannot be escaped), and
 * no trailing backslash (it would escape the separator after it). */
bool export_influx_can_write(const char *s);

/* Writes s with a backslash before every character of specials. */
void export_influx_escaped(const char *s, const char *specials, FILE *out);

#endif

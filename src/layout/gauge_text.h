/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A GAUGE value's text without printf, for the values that have a short
 * decimal form: the text rrd_row.c's printf loop (%.15g, else %.16g, else
 * %.17g: the first that reads back as the same double) gives them, made
 * from integer arithmetic.  Every row of every file is formatted so, by
 * the writer and by the export; printf and strtod were most of the
 * export's own cost.
 */
#ifndef PVECG_GAUGE_TEXT_H
#define PVECG_GAUGE_TEXT_H

#include <stddef.h>

/* "-0.000123456789012345" plus NUL, with room to spare. */
#define GAUGE_TEXT_SIZE 32

/*
 * Writes value as %.15g would when a decimal of at most 15 significant
 * digits reads back as value and %.15g would not use an exponent (1e-4 <=
 * |value| < 1e15, or zero).  Returns the length, or 0 when value is not
 * such a number (not finite, more digits, an exponent): the caller uses
 * printf.
 */
int gauge_text_short(double value, char out[GAUGE_TEXT_SIZE]);

#endif

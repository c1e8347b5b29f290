/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict decimal number parsing for kernel text files.
 *
 * The kernel prints counters as unsigned decimals and PSI averages as fixed
 * point ("12.34").  strtoull/strtod accept signs, spaces, hex and locale
 * forms that never occur in these files, so a malformed file could be read
 * as a plausible number; these functions accept exactly the kernel's forms.
 */
#ifndef PVECG_DECIMAL_H
#define PVECG_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parses the unsigned decimal at [*pos, end): one or more digits, no sign,
 * no leading spaces.  On success stores the value in *ret, advances *pos past
 * the last digit and returns 0.  Returns -EINVAL when no digit is at *pos and
 * -ERANGE when the value does not fit 64 bits; *pos and *ret are then
 * untouched.
 */
int decimal_parse_u64(const char **pos, const char *end, uint64_t *ret);

/*
 * Parses a non-negative fixed-point decimal at [*pos, end): digits,
 * optionally followed by '.' and at least one digit (at most 9 fraction
 * digits).  Same contract as decimal_parse_u64 (-ERANGE when the integer
 * part does not fit 64 bits); a '.' not followed by 1 to 9 digits is
 * -EINVAL.  The value is returned as the double nearest to the decimal (so
 * "1.23" compares equal to 1.23).
 */
int decimal_parse_fixed(const char **pos, const char *end, double *ret);

/*
 * Parses a file that holds a single unsigned decimal followed by an optional
 * newline and nothing else (memory.current, memory.usage_in_bytes, ...).
 * Returns 0, -EINVAL (not that form) or -ERANGE (the leading digits overflow
 * 64 bits, whatever follows them).
 */
int decimal_parse_u64_file(const char *buf, size_t len, uint64_t *ret);

#endif

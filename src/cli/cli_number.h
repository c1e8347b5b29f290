/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The numbers of every subcommand's options, read one way: a count is
 * digits only (no sign, no space, no exponent) within its bounds, a time
 * in seconds a plain decimal within its bounds.  Anything else is refused
 * whole, never read as far as it goes.
 */
#ifndef PVECG_CLI_NUMBER_H
#define PVECG_CLI_NUMBER_H

#include <stdint.h>

/* Returns 0 with the count in *ret, or -EINVAL. */
int cli_count(const char *text, uint64_t min, uint64_t max, uint64_t *ret);

/* Returns 0 with the seconds in *ret, or -EINVAL. */
int cli_seconds(const char *text, double min, double max, double *ret);

#endif

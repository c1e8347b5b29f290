/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PVE layouts in librrd's words: the DS and RRA definitions a file of
 * a layout is created with, the check of a file's info list (from librrd
 * or from rrdcached's INFO) against a layout, and the refusal of an update
 * that is not newer than a file's last update.  Both ways to the files --
 * librrd (rrd_file.h) and rrdcached (rrdcached_client.h) -- use these, so
 * a file is defined and recognised alike whichever made it; `pvecg check`
 * compares files with the same check.
 */
#ifndef PVECG_RRD_WORDS_H
#define PVECG_RRD_WORDS_H

#include "pvecg/rrd_layout.h"

#include <rrd.h>
#include <stddef.h>
#include <time.h>

/* Longest "DS:..."/"RRA:..." argument: names are at most 19 characters in
 * rrd, numbers at most 24. */
#define RRD_WORDS_DEF_SIZE 128
/* More archives than any PVE layout; a wider table is refused. */
#define RRD_WORDS_RRA_MAX 64

/* The DS and RRA arguments of rrd_create for a layout, in file order. */
struct rrd_words_definitions {
  char text[RRD_LAYOUT_DS_MAX + RRD_WORDS_RRA_MAX][RRD_WORDS_DEF_SIZE];
  const char *argv[RRD_LAYOUT_DS_MAX + RRD_WORDS_RRA_MAX];
  int argc;
};

/* Fills defs from the layout table; -EINVAL when the layout does not
 * fit. */
int rrd_words_definitions(const struct rrd_layout *layout,
                          struct rrd_words_definitions *defs);

/*
 * Compares a file's info list with the layout: every property the layout
 * fixes (DS names, types, order, heartbeat, min, max; step; every RRA's
 * CF, steps, rows, xff).  Returns 0, or -EPROTO with the first difference
 * in why, e.g. "ds[3] is 'mem' (GAUGE), expected 'memhost' (GAUGE)".
 */
int rrd_words_check_info(const struct rrd_layout *layout,
                         const rrd_info_t *info, char *why, size_t why_size);

/*
 * Whether err is librrd's (or rrdcached's, which uses the same words)
 * refusal of an update that is not newer than the file's last update:
 * "illegal attempt to update using time X when last update time is Y".
 * Returns 0 and Y in *ret, or -ENOENT for any other message.
 */
int rrd_words_refusal(const char *err, time_t *ret);

#endif

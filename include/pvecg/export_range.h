/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which stored rows `pvecg export` reads: every row of a file once, each
 * from the finest archive that holds it.
 *
 * An archive of resolution R (steps * layout step) with N rows holds the
 * rows ending at the multiples of R in (E - N*R, E], E = the file's last
 * update rounded down to R; the row ending at e covers (e - R, e] and is
 * exported with time e (rrdtool fetch's convention).  Archives of the
 * wanted CF are taken finest first: the finest gives its rows up to
 * `until`; each coarser one only rows ending at or before the start of
 * what the finer ones hold (so no moment is covered twice, and a gap of
 * less than one coarse row can remain where the resolutions meet).  Rows
 * with times outside [since, until] are left out.  The result is ordered
 * oldest first, so times strictly increase over the whole file.
 */
#ifndef PVECG_EXPORT_RANGE_H
#define PVECG_EXPORT_RANGE_H

#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* One read: the rows of resolution seconds ending in (start, end], which
 * is exactly what rrd_fetch returns for -r resolution -s start -e end. */
struct export_fetch {
  unsigned long resolution;
  time_t start;
  time_t end;
};

/* At most one read per archive. */
#define EXPORT_FETCH_MAX 16

struct export_plan {
  size_t count;
  struct export_fetch fetch[EXPORT_FETCH_MAX];
};

/*
 * Plans the reads of a file of layout whose last update was last_update,
 * for the rows of CF cf with times in [since, until].  finest_only limits
 * it to the finest archive (all a daemon over TCP can give).  Returns 0
 * (possibly with no reads), -EINVAL for since > until, or -E2BIG when the
 * layout has more archives of the CF than EXPORT_FETCH_MAX.
 */
int export_range_plan(const struct rrd_layout *layout, enum rrd_cf cf,
                      time_t last_update, time_t since, time_t until,
                      bool finest_only, struct export_plan *ret);

/*
 * Parses a time of --since/--until: "now", epoch seconds ("1700000000"),
 * or a time before now, "-<n><unit>" with unit s, m, h, d or w ("-30m",
 * "-2h", "-1d", "-1w").  Returns 0 or -EINVAL (anything else, including
 * signs, spaces, and amounts that overflow).
 */
int export_time_parse(const char *text, time_t now, time_t *ret);

/* Number of rows read i brings: (end - start) / resolution. */
size_t export_fetch_rows(const struct export_fetch *fetch);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What Proxmox's rrddata API does with a file, without the I/O: which
 * resolution and time window a timeframe asks for, when the legacy pve2
 * file of a 9.0 file is read too and over which window, how its rows are
 * joined in front of the 9.0 rows, and how rows become the API's JSON.
 * cmd_rrddata.c does the reading; `pvecg graph` uses the same windows.
 *
 * The rules (PVE's PVE::RRD::create_rrd_data, and pvecg-rrddata(1)):
 *   CTIME = RESO * floor(now / RESO); fetch -r RESO -s CTIME - RESO*ROWS
 *   -e CTIME - 1.  If the legacy file exists and its last update L is after
 *   that start, the legacy file is fetched with its own table's RESO/ROWS
 *   (-s CTIME' - RESO'*ROWS' -e L) and the 9.0 file from -s L instead.
 *   Legacy rows are kept only when they start before the first 9.0 row.
 *   Every row's "time" is the end of its interval (rrd_series_time), the
 *   label rrdtool fetch prints and Proxmox takes from RRDs::fetch.
 */
#ifndef PVECG_RRDDATA_H
#define PVECG_RRDDATA_H

#include "pvecg/json_writer.h"
#include "pvecg/rrd_fetch.h"
#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum rrddata_timeframe {
  RRDDATA_HOUR,
  RRDDATA_DAY,
  RRDDATA_WEEK,
  RRDDATA_MONTH,
  RRDDATA_YEAR,
  RRDDATA_DECADE,
};

/* Parses "hour".."decade".  Returns 0 or -EINVAL. */
int rrddata_timeframe_parse(const char *name, enum rrddata_timeframe *ret);

/* The fetch arguments: -r resolution -s start -e end. */
struct rrddata_window {
  unsigned long resolution;
  time_t start, end;
};

/*
 * The window of a timeframe at now, from the 9.0 table or, for a legacy
 * file (legacy true), the pve2 table, where decade reads as year (the
 * legacy files hold at most 70 weeks).
 */
void rrddata_window(enum rrddata_timeframe timeframe, bool legacy, time_t now,
                    struct rrddata_window *ret);

/* What to fetch for a 9.0 file whose legacy file exists or not. */
struct rrddata_plan {
  struct rrddata_window current;
  bool use_legacy;
  struct rrddata_window legacy; /* only when use_legacy */
};

/* legacy_last: the legacy file's last update, or NULL when there is no
 * legacy file. */
void rrddata_plan(enum rrddata_timeframe timeframe, time_t now,
                  const time_t *legacy_last, struct rrddata_plan *ret);

/*
 * Where a file belongs, from the name of the directory it is in: a layout
 * of rrd_layouts[] or NULL.  (PVE decides by the same name.)
 */
const struct rrd_layout *rrddata_path_layout(const char *path);

/* The legacy layout whose history a 9.0 layout continues, or NULL. */
const struct rrd_layout *rrddata_legacy_layout(const struct rrd_layout *layout);

/*
 * The legacy file next to a 9.0 file's path: "<dir>/../<legacy>/<name>"
 * plus suffix ("" or ".old").  Returns 0, -EINVAL when path is not in a
 * 9.0 layout's directory, or -ENAMETOOLONG.
 */
int rrddata_legacy_path(const char *path, const char *suffix, char *buf,
                        size_t size);

/* Whether row i of series holds no known value. */
bool rrddata_row_empty(const struct rrd_series *series, size_t i);

/* How many leading rows of legacy start before the first row of current
 * (all of them when current has none). */
size_t rrddata_legacy_rows(const struct rrd_series *legacy,
                           const struct rrd_series *current);

/*
 * Writes {"data":[...]} for the legacy rows (NULL for none) in front of
 * the current rows: "time" and every known value, a newest row without
 * any value left out.  node: also give a "memfree" column (old migrated
 * node files) as "memavailable", as PVE does.
 */
void rrddata_write(struct json_writer *w, const struct rrd_series *legacy,
                   const struct rrd_series *current, bool node);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading consolidated rows back out of an RRD file: the one way the pvecg
 * command gets history, from a file through librrd or through an rrdcached
 * daemon (which writes the file's pending rows first, as PVE's readers do).
 *
 * librrd's convention is kept: the series starts at `start`, and row i
 * holds the value consolidated over (start + i*step, start + (i+1)*step].
 * Every reader of RRD rows labels a row with the END of that interval:
 * `rrdtool fetch` prints start + (i+1)*step, Perl's RRDs::fetch returns
 * start + step as the first row's time, and Proxmox's rrddata API (which
 * steps from RRDs::fetch's start) prints the same.  rrd_series_time()
 * gives that label; rrd_series_row_start() the interval's start, for
 * comparing where rows of different resolutions begin.
 *
 * Not thread-safe when a daemon is used (librrd has one process-wide
 * daemon connection); fine for the single-threaded command.
 */
#ifndef PVECG_RRD_FETCH_H
#define PVECG_RRD_FETCH_H

#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct rrd_fetch_request {
  const char *path; /* with a daemon on TCP: relative to the daemon's -b */
  /* NULL or "": librrd reads the file.  Else an rrdcached address as
   * rrdtool takes it.  On a unix socket ("unix:/path", "/path") the daemon
   * flushes the file and librrd reads it here; over TCP ("host[:port]")
   * the daemon reads it (FETCH), which only gives its finest rows. */
  const char *daemon;
  enum rrd_cf cf;
  /* Wanted seconds per row; librrd picks the archive that fits best and
   * may return a coarser step.  0 for the finest archive. */
  unsigned long resolution;
  time_t start, end; /* as rrdtool fetch's -s and -e, in epoch seconds */
};

struct rrd_series {
  time_t start;
  unsigned long step;
  size_t ds_count;
  char **ds_names; /* ds_count names, in file order; NULL from rrd_direct.h */
  size_t row_count;
  double *values;       /* row_count * ds_count, row-major; NAN is unknown */
  bool values_malloced; /* from malloc (rrd_direct.h), not from librrd */
};

/*
 * Fetches the rows of req into *ret (to be released with
 * rrd_series_free()).  Returns 0; -EINVAL for a request that cannot be
 * right (no path, start after end); -ENOTCONN when the daemon cannot be
 * reached; -EOPNOTSUPP when a daemon over TCP cannot give the resolution;
 * -EIO with librrd's (or the daemon's) message in err otherwise,
 * e.g. for a file that does not exist or is not an RRD.
 */
int rrd_fetch_series(const struct rrd_fetch_request *req,
                     struct rrd_series *ret, char *err, size_t err_size);

void rrd_series_free(struct rrd_series *series);

/* The values of row i (ds_count of them). */
static inline const double *rrd_series_row(const struct rrd_series *series,
                                           size_t i) {
  return series->values + i * series->ds_count;
}

/* Start of row i's interval (not a row's label: see rrd_series_time). */
static inline time_t rrd_series_row_start(const struct rrd_series *series,
                                          size_t i) {
  return series->start + (time_t)(i * series->step);
}

/* Row i's time: the end of its interval, as rrdtool fetch, RRDs::fetch
 * and Proxmox's rrddata label it. */
static inline time_t rrd_series_time(const struct rrd_series *series,
                                     size_t i) {
  return rrd_series_row_start(series, i) + (time_t)series->step;
}

/* Index of the data source called name, or -ENOENT. */
int rrd_series_ds_index(const struct rrd_series *series, const char *name);

#endif

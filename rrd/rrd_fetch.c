/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Consolidated rows out of an RRD file (see rrd_fetch.h), through librrd's
 * rrd_fetch_r (after a FLUSH when a daemon on this host holds rows for the
 * file) or, for a daemon over TCP, its FETCH.  Both hand back arrays that
 * librrd allocated; the series adopts them and releases them with rrd_freemem.
 */
#include "pvecg/rrd_fetch.h"

#include "rrd_text.h"
#include "pvecg/rrdcached_client.h"

#include <rrd.h>
#include <rrd_client.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

static void series_adopt(struct rrd_series *ret, time_t start, time_t end,
                         unsigned long step, unsigned long ds_count,
                         char **names, rrd_value_t *data) {
  ret->start = start;
  ret->step = step;
  ret->ds_count = ds_count;
  ret->ds_names = names;
  /* librrd's rows end at start + step, ..., end: (end - start) / step. */
  ret->row_count = (step > 0 && end > start) ? (size_t)(end - start) / step : 0;
  ret->values = data;
}

static void free_names(char **names, unsigned long count) {
  if (names == NULL)
    return;
  for (unsigned long i = 0; i < count; i++)
    rrd_freemem(names[i]);
  rrd_freemem(names);
}

/* The daemon's answer was never read (see rrdcached_socket_failed):
 * whatever librrd returned is not the answer. */
static int connection_broke(bool returned, char **names, unsigned long ds_count,
                            rrd_value_t *data, char *err, size_t err_size) {
  int broke = errno;
  if (returned) {
    free_names(names, ds_count);
    rrd_freemem(data);
  }
  rrdc_disconnect();
  rrd_text_set(err, err_size, "the connection to rrdcached broke: %s",
               strerror(broke));
  return -EIO;
}

static int daemon_connect(const char *address, char *err, size_t err_size) {
  rrd_clear_error();
  if (rrdc_connect(address) != 0 || !rrdc_is_connected(address)) {
    rrd_text_set(err, err_size, "cannot reach rrdcached at %s: %s", address,
                 rrd_text_librrd_error("no answer"));
    return -ENOTCONN;
  }
  return 0;
}

/* Over TCP the file is the daemon's, so the daemon must read it: FETCH,
 * which has no resolution argument and answers from the finest archive
 * covering the range.  A coarser resolution cannot be had that way. */
static int fetch_remote(const struct rrd_fetch_request *req, const char *cf,
                        struct rrd_series *ret, char *err, size_t err_size) {
  time_t start = req->start, end = req->end;
  unsigned long step = 0, ds_count = 0;
  char **names = NULL;
  rrd_value_t *data = NULL;
  rrd_clear_error();
  errno = 0;
  int r =
      rrdc_fetch(req->path, cf, &start, &end, &step, &ds_count, &names, &data);
  if (rrdcached_socket_failed(errno))
    return connection_broke(r == 0, names, ds_count, data, err, err_size);
  if (r != 0) {
    rrd_text_set(err, err_size, "%s", rrd_text_librrd_error("fetch failed"));
    return -EIO;
  }
  series_adopt(ret, start, end, step, ds_count, names, data);
  if (req->resolution > step) {
    rrd_series_free(ret);
    rrd_text_set(err, err_size,
                 "rrdcached over TCP only returns %lu s rows, not %lu s: "
                 "read the file on the daemon's host",
                 step, req->resolution);
    return -EOPNOTSUPP;
  }
  return 0;
}
static int fetch_file(const struct rrd_fetch_request *req, const char *cf,
                      struct rrd_series *ret, char *err, size_t err_size) {
  time_t start = req->start, end = req->end;
  unsigned long step = req->resolution, ds_count = 0;
  char **names = NULL;
  rrd_value_t *data = NULL;
  rrd_clear_error();
  if (rrd_fetch_r(req->path, cf, &start, &end, &step, &ds_count, &names,
                  &data) != 0) {
    rrd_text_set(err, err_size, "%s", rrd_text_librrd_error("fetch failed"));
    return -EIO;
  }
  series_adopt(ret, start, end, step, ds_count, names, data);
  return 0;
}

int rrd_fetch_series(const struct rrd_fetch_request *req,
                     struct rrd_series *ret, char *err, size_t err_size) {
  if (req->path == NULL || req->path[0] == '\0' || req->start > req->end) {
    rrd_text_set(err, err_size, "no file, or a start after the end");
    return -EINVAL;
  }
  const char *cf = rrd_cf_name(req->cf);
  struct rrd_series series = {0};
  bool daemon = req->daemon != NULL && req->daemon[0] != '\0';
  int r = daemon ? daemon_connect(req->daemon, err, err_size) : 0;
  if (r == 0 && daemon && !rrdcached_address_is_unix(req->daemon)) {
    r = fetch_remote(req, cf, &series, err, err_size);
  } else if (r == 0) {
    /* A local file: have the daemon write out its pending rows, as PVE's
     * readers do, then read it at the wanted resolution. */
    if (daemon) {
      errno = 0;
      int flushed = rrdc_flush(req->path);
      int broke = rrdcached_socket_failed(errno) ? errno : 0;
      if (flushed != 0 || broke != 0) {
        rrd_text_set(err, err_size, "%s",
                     broke != 0 ? strerror(broke)
                                : rrd_text_librrd_error("flush failed"));
        r = -EIO;
      }
    }
    if (r == 0)
      r = fetch_file(req, cf, &series, err, err_size);
  }
  if (r == 0)
    *ret = series;
  return r;
}

void rrd_series_free(struct rrd_series *series) {
  if (series == NULL)
    return;
  free_names(series->ds_names, series->ds_count);
  rrd_freemem(series->values);
  memset(series, 0, sizeof(*series));
}

int rrd_series_ds_index(const struct rrd_series *series, const char *name) {
  for (size_t i = 0; i < series->ds_count; i++)
    if (strcmp(series->ds_names[i], name) == 0)
      return (int)i;
  return -ENOENT;
}

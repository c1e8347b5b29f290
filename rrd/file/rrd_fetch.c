/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Consolidated rows out of an RRD file (see rrd_fetch.h), through librrd's
 * rrd_fetch_r (after a FLUSH when a daemon on this host holds rows for the
 * file) or, for a daemon over TCP, its FETCH.  Both hand back arrays that
 * librrd allocated; the series adopts them and releases them with rrd_freemem.
 * The daemon is asked through the rrdcached client, which handles a
 * connection that breaks under a request.
 */
#include "pvecg/rrd_fetch.h"

#include "rrd_text.h"
#include "pvecg/rrdcached_client.h"

#include <rrd.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
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

/* librrd keeps one daemon connection per process, so fetches share one
 * client: made for the first address asked for, anew for another.  (Not
 * thread-safe, as rrd_fetch.h says of daemons.) */
static int daemon_client(const char *address, struct rrdcached_client **ret,
                         char *err, size_t err_size) {
  static struct rrdcached_client *client;
  if (client == NULL ||
      strcmp(rrdcached_client_address(client), address) != 0) {
    rrdcached_client_free(client);
    client = NULL;
    if (rrdcached_client_new(address, &client) != 0) {
      rrd_text_set(err, err_size, "not an rrdcached address: %s", address);
      return -EINVAL;
    }
  }
  char why[512] = "";
  if (rrdcached_client_connect(client, why, sizeof(why)) != 0) {
    rrd_text_set(err, err_size, "cannot reach rrdcached at %s: %s", address,
                 why);
    return -ENOTCONN;
  }
  *ret = client;
  return 0;
}

/* Over TCP the file is the daemon's, so the daemon must read it: FETCH,
 * which has no resolution argument and answers from the finest archive
 * covering the range.  A coarser resolution cannot be had that way. */
static int fetch_remote(struct rrdcached_client *client,
                        const struct rrd_fetch_request *req, const char *cf,
                        struct rrd_series *ret, char *err, size_t err_size) {
  struct rrdcached_rows rows = {.start = req->start, .end = req->end};
  int r = rrdcached_client_fetch(client, req->path, cf, &rows, err, err_size);
  if (r != 0)
    return r == -ENOTCONN ? r : -EIO;
  series_adopt(ret, rows.start, rows.end, rows.step, rows.ds_count, rows.names,
               rows.data);
  if (req->resolution > rows.step) {
    rrd_series_free(ret);
    rrd_text_set(err, err_size,
                 "rrdcached over TCP only returns %lu s rows, not %lu s: "
                 "read the file on the daemon's host",
                 rows.step, req->resolution);
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

/* Through a daemon: FETCH over TCP; on this host, the daemon writes its
 * pending rows (as PVE's readers have it do) and librrd reads the file at
 * the wanted resolution. */
static int fetch_through(const struct rrd_fetch_request *req, const char *cf,
                         struct rrd_series *ret, char *err, size_t err_size) {
  struct rrdcached_client *client;
  int r = daemon_client(req->daemon, &client, err, err_size);
  if (r != 0)
    return r;
  if (!rrdcached_client_is_unix(client))
    return fetch_remote(client, req, cf, ret, err, err_size);
  r = rrdcached_client_flush(client, req->path, err, err_size);
  if (r != 0)
    return r == -ENOTCONN ? r : -EIO;
  return fetch_file(req, cf, ret, err, err_size);
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
  int r = daemon ? fetch_through(req, cf, &series, err, err_size)
                 : fetch_file(req, cf, &series, err, err_size);
  if (r == 0)
    *ret = series;
  return r;
}

void rrd_series_free(struct rrd_series *series) {
  if (series == NULL)
    return;
  free_names(series->ds_names, series->ds_count);
  if (series->values_malloced)
    free(series->values);
  else
    rrd_freemem(series->values);
  memset(series, 0, sizeof(*series));
}

int rrd_series_ds_index(const struct rrd_series *series, const char *name) {
  for (size_t i = 0; series->ds_names != NULL && i < series->ds_count; i++)
    if (strcmp(series->ds_names[i], name) == 0)
      return (int)i;
  return -ENOENT;
}

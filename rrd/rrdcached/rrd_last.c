/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The newest row of a file (see rrd_last.h): its header through librrd
 * (rrd_lastupdate_r, which reads the header and nothing else) or, over
 * TCP, the daemon's INFO; then, through a daemon, the newest update it
 * holds for the file on top.
 */
#include "pvecg/rrd_last.h"

#include "pvecg/rrdcached_client.h"
#include "rrd_text.h"
#include "rrdcached_pending.h"

#include <errno.h>
#include <math.h>
#include <rrd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct rrd_last_reader {
  struct rrdcached_client *client; /* INFO over TCP; NULL without daemon */
  struct rrdcached_pending *pending;
  bool remote; /* a daemon over TCP: the files are not here */
};

/* A value as rrdtool writes it into a row or a header: a number or U. */
static double value_of(const char *text, size_t len) {
  char buf[64], *end;
  if (len == 0 || len >= sizeof(buf))
    return NAN;
  memcpy(buf, text, len);
  buf[len] = '\0';
  double v = strtod(buf, &end);
  return *end == '\0' && isfinite(v) ? v : NAN;
}

static void set_name(struct rrd_last_row *row, size_t i, const char *name) {
  snprintf(row->ds_names[i], sizeof(row->ds_names[i]), "%s", name);
}

/* ---- the header ---------------------------------------------------------- */

static int local_header(const char *path, struct rrd_last_row *row, char *err,
                        size_t err_size) {
  struct stat st;
  if (stat(path, &st) != 0)
    return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -EIO;
  time_t last;
  unsigned long count;
  char **names, **values;
  rrd_clear_error();
  if (rrd_lastupdate_r(path, &last, &count, &names, &values) != 0) {
    rrd_text_set(err, err_size, "%s", rrd_text_librrd_error("not an RRD"));
    return -EIO;
  }
  row->time = last;
  row->ds_count = count < RRD_LAYOUT_DS_MAX ? count : RRD_LAYOUT_DS_MAX;
  for (unsigned long i = 0; i < count; i++) {
    if (i < row->ds_count) {
      set_name(row, i, names[i]);
      row->values[i] = value_of(values[i], strlen(values[i]));
    }
    rrd_freemem(names[i]);
    rrd_freemem(values[i]);
  }
  rrd_freemem(names);
  rrd_freemem(values);
  return 0;
}

/* "ds[<name>].last_ds" = "<value>" of an INFO answer, in file order. */
static void take_info_ds(const rrd_info_t *i, struct rrd_last_row *row) {
  const char *open = i->key + 3, *close = strstr(i->key, "].last_ds");
  if (close == NULL || close[9] != '\0' || i->type != RD_I_STR ||
      row->ds_count == RRD_LAYOUT_DS_MAX ||
      (size_t)(close - open) >= RRD_LAST_NAME_SIZE)
    return;
  size_t k = row->ds_count++;
  snprintf(row->ds_names[k], RRD_LAST_NAME_SIZE, "%.*s", (int)(close - open),
           open);
  row->values[k] = value_of(i->value.u_str, strlen(i->value.u_str));
}

static int daemon_header(struct rrd_last_reader *r, const char *path,
                         struct rrd_last_row *row, char *err, size_t err_size) {
  rrd_info_t *info;
  int ret = rrdcached_client_info(r->client, path, &info, err, err_size);
  if (ret != 0)
    return ret;
  for (const rrd_info_t *i = info; i != NULL; i = i->next) {
    if (i->type == RD_I_CNT && strcmp(i->key, "last_update") == 0)
      row->time = (time_t)i->value.u_cnt;
    else if (strncmp(i->key, "ds[", 3) == 0)
      take_info_ds(i, row);
  }
  rrd_info_free(info);
  return 0;
}

/* ---- what the daemon holds ----------------------------------------------- */

/* "<time>:<v1>:...:<vn>" onto row, when it has the row's columns and is
 * newer than its header; false otherwise (an older line is offered next). */
static bool take_pending(void *ctx, const char *line) {
  struct rrd_last_row *row = ctx;
  char *end;
  double t = strtod(line, &end);
  if (end == line || *end != ':' || !(t > (double)row->time))
    return false;
  double values[RRD_LAYOUT_DS_MAX];
  size_t n = 0;
  for (const char *p = end + 1;; n++) {
    const char *colon = strchr(p, ':');
    size_t len = colon != NULL ? (size_t)(colon - p) : strlen(p);
    if (n == row->ds_count)
      return false; /* more values than columns: not this file's row */
    values[n] = len == 1 && p[0] == 'U' ? NAN : value_of(p, len);
    if (colon == NULL)
      break;
    p = colon + 1;
  }
  if (n + 1 != row->ds_count)
    return false;
  row->time = (time_t)t;
  memcpy(row->values, values, row->ds_count * sizeof(*values));
  return true;
}

static int newest_pending(struct rrd_last_reader *r, const char *path,
                          struct rrd_last_row *row, char *err,
                          size_t err_size) {
  int ret = rrdcached_pending_newest(r->pending, path, take_pending, row, err,
                                     err_size);
  return ret < 0 ? (ret == -ENOTCONN ? ret : -EIO) : 0;
}

int rrd_last_read(struct rrd_last_reader *r, const char *path,
                  struct rrd_last_row *ret, char *err, size_t err_size) {
  struct rrd_last_row row = {0};
  int rc = r->remote ? daemon_header(r, path, &row, err, err_size)
                     : local_header(path, &row, err, err_size);
  if (rc == 0 && r->pending != NULL)
    rc = newest_pending(r, path, &row, err, err_size);
  if (rc == 0)
    *ret = row;
  return rc;
}

double rrd_last_value(const struct rrd_last_row *row, const char *name) {
  for (size_t i = 0; i < row->ds_count; i++)
    if (strcmp(row->ds_names[i], name) == 0)
      return row->values[i];
  return NAN;
}

/* ---- the reader ---------------------------------------------------------- */

int rrd_last_reader_new(const char *daemon, struct rrd_last_reader **ret) {
  struct rrd_last_reader *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return -ENOMEM;
  if (daemon != NULL && daemon[0] != '\0') {
    /* librrd's client checks the address, also where only PENDING uses it */
    int rc = rrdcached_client_new(daemon, &r->client);
    r->remote = !rrdcached_address_is_unix(daemon);
    if (rc == 0 && !r->remote) {
      rrdcached_client_free(r->client);
      r->client = NULL;
    }
    if (rc == 0)
      rc = rrdcached_pending_new(daemon, &r->pending);
    if (rc != 0) {
      rrd_last_reader_free(r);
      return rc;
    }
  }
  *ret = r;
  return 0;
}

void rrd_last_reader_free(struct rrd_last_reader *r) {
  if (r == NULL)
    return;
  rrdcached_pending_free(r->pending);
  rrdcached_client_free(r->client);
  free(r);
}

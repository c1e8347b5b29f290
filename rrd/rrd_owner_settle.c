/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The operator's request to settle an owner (see rrd_owner_disk_settle):
 * applied to the owners file here when no writer holds the lock, through
 * the very rule the writer uses (rrd_owner_state.c), or handed to the
 * running writer as a request and waited for.
 */
#include "rrd_owner.h"

#include "pvecg/rrd_owner_disk.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_NS 50000000L /* 50 ms */

/* A record that cannot be taken back is left out, as the writer does. */
static int restore_one(const struct rrd_owner_record *r, void *ctx) {
  rrd_owner_restore(ctx, r, 0);
  return 0;
}

/* Whether the file of the request has a collision remembered. */
static int has_collision(const struct rrd_owner_record *r, void *ctx) {
  const struct rrd_owner_record *q = ctx;
  return r->kind == RRD_OWNER_RECORD_COLLISION && r->layout == q->layout &&
         strcmp(r->cluster, q->cluster) == 0 && strcmp(r->name, q->name) == 0;
}

/* No writer runs (the caller holds the lock): the file is read, settled
 * and saved here. */
static int settle_here(const char *data_dir, const struct rrd_owner_record *q,
                       char *err, size_t err_size) {
  struct rrd_owner *o;
  if (rrd_owner_new(&o) != 0)
    return -ENOMEM;
  struct rrd_owner_file_problems p;
  int r = rrd_owner_disk_read(data_dir, restore_one, o, &p);
  if (r == -EPROTO)
    snprintf(err, err_size, "%s/" RRD_OWNER_FILE_NAME ": %s", data_dir,
             p.first);
  if (r == 0 || r == -ENOENT)
    r = rrd_owner_settle(o, q, 0);
  struct rrd_owner_record *records = NULL;
  size_t count = 0;
  unsigned long long changes;
  if (r == 0)
    r = rrd_owner_snapshot(o, &records, &count, &changes);
  if (r == 0)
    r = rrd_owner_disk_save(data_dir, records, count, err, err_size);
  free(records);
  rrd_owner_free(o);
  return r;
}

/* The writer runs: the request waits for it. */
static int settle_there(const char *data_dir, const struct rrd_owner_record *q,
                        double wait, char *err, size_t err_size) {
  char path[PATH_MAX];
  int r = rrd_owner_disk_request(data_dir, q, 1, path, sizeof(path));
  if (r < 0) {
    snprintf(err, err_size, "leaving a request in %s: %s", data_dir,
             strerror(-r));
    return r;
  }
  struct timespec pause = {.tv_nsec = POLL_NS};
  for (double waited = 0; waited < wait; waited += POLL_NS / 1e9) {
    if (access(path, F_OK) != 0)
      return 1;
    nanosleep(&pause, NULL);
  }
  if (unlink(path) != 0 && errno == ENOENT)
    return 1; /* taken at the last moment */
  snprintf(err, err_size,
           "the running writer (pve_rrd) did not take the request within "
           "%.0f s; it is withdrawn",
           wait);
  return -ETIMEDOUT;
}

int rrd_owner_disk_settle(const char *data_dir,
                          const struct rrd_owner_record *q, double wait,
                          char *err, size_t err_size) {
  struct rrd_owner_file_problems p;
  if (q->kind == RRD_OWNER_RECORD_FORGET &&
      rrd_owner_disk_read(data_dir, has_collision, (void *)q, &p) != 1)
    return -ENOENT; /* as the file says; the writer saves every change */
  int fd = rrd_owner_disk_lock(data_dir);
  if (fd == -EWOULDBLOCK)
    return settle_there(data_dir, q, wait, err, err_size);
  if (fd < 0) {
    snprintf(err, err_size, "locking %s/" RRD_OWNER_LOCK_NAME ": %s", data_dir,
             strerror(-fd));
    return fd;
  }
  int r = settle_here(data_dir, q, err, err_size);
  close(fd);
  return r;
}

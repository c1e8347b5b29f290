/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How the store reaches its RRD files: the four operations it needs, so the
 * same bookkeeping (checks, creation, foreign files, other writers, back-off)
 * runs on local files through librrd (rrd_access_librrd in rrd_file.h) and
 * through an rrdcached daemon (rrdcached_client.h).
 *
 * Every operation returns 0 or a negative errno.  -ENOTCONN always means
 * "the daemon could not be reached": nothing was done, and the same call
 * may be made again later.  Messages go to the caller's err/why buffers.
 */
#ifndef PVECG_RRD_ACCESS_H
#define PVECG_RRD_ACCESS_H

#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct rrd_access {
  void *ctx; /* passed to every operation */
  /* The paths name files of this host: the store may stat() them and make
   * their directories.  False for a daemon over TCP, whose paths are
   * relative to its base directory. */
  bool local;
  /* As rrd_file_check(): 0, -ENOENT, -EPROTO (another layout, why says
   * what differs), -EIO (not an RRD), another errno (cannot look it up). */
  int (*check)(void *ctx, const struct rrd_layout *layout, const char *path,
               char *why, size_t why_size);
  /* Creates the file, never replacing one: -EEXIST when it exists. */
  int (*create)(void *ctx, const struct rrd_layout *layout, const char *path,
                time_t start, char *err, size_t err_size);
  /* Applies one formatted row.  -ESTALE: refused because the row is not
   * newer than the file's last update, which is stored in *file_last; when
   * that is the row's own time, the row may be in already (a daemon applied
   * it and the answer was lost, or the request was made twice). */
  int (*update)(void *ctx, const char *path, const char *row, time_t *file_last,
                char *err, size_t err_size);
  /* The time of the file's last update, including rows a daemon has not
   * written to disk yet. */
  int (*last_update)(void *ctx, const char *path, time_t *ret, char *err,
                     size_t err_size);
};

#endif

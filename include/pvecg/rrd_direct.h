/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading an RRD file of this host without librrd: one open, the header
 * read with two preads and checked in full against the layout the
 * file must have, then only the rows asked for.  What a pass of `pvecg
 * ship` reads of every file, where librrd opened and mapped the whole
 * file once for its last update and again for its rows.
 *
 * It takes only what it knows exactly: a regular file (not a symbolic
 * link) of librrd's format on this host, version 0003 or 0004, every
 * definition the layout's and the file's size what they make.  Anything
 * else is refused, and the caller reads the file through librrd, which
 * says what is wrong with it, as before.  Nothing is written.
 *
 * Unlike librrd's fetch, it takes no lock (a read lock makes librrd's
 * update, and so rrdcached's write, fail): an update still under way once
 * the rows are read shows by the write lock librrd's update holds, asked
 * about with F_GETLK, one done meanwhile by the last update and the row
 * pointers read again after the rows; then the rows are read again, a
 * little later.
 */
#ifndef PVECG_RRD_DIRECT_H
#define PVECG_RRD_DIRECT_H

#include "pvecg/rrd_fetch.h"
#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

struct rrd_direct;

/* Opens the file and checks its header.  Returns 0; -ENOENT (no such
 * file), -EPROTO (not a file of the layout as this reader knows them),
 * -EIO (it could not be read), -ENOMEM. */
int rrd_direct_open(const char *path, const struct rrd_layout *layout,
                    struct rrd_direct **ret);

/*
 * Reads the header of a file kept open since rrd_direct_open() again, for
 * the rows written since.  Only what an update writes (the last update,
 * the row pointers) is read, unless the last whole check of the header is
 * recheck_seconds old or older: then all of it is read and checked again,
 * with the file's size, as at the open (0: every time).  Between whole
 * checks a definition changed in place (rrdtool tune) goes unnoticed; a
 * file replaced or removed is its directory's business, not this
 * descriptor's, which still reads the file it opened.  Every read is a
 * pread: a file cut short is a short read, never a signal.
 * *moved (unless NULL) says whether the last update or a row pointer
 * differs from the last read: whether anything was written since.
 * Returns 0, -EPROTO (no longer a file of the layout, or truncated), -EIO;
 * the caller then closes it.
 */
int rrd_direct_refresh(struct rrd_direct *file, unsigned recheck_seconds,
                       bool *moved);

/* The file's last update, as its header said at the open (or at the latest
 * rrd_direct_refresh()). */
time_t rrd_direct_last_update(const struct rrd_direct *file);

/*
 * The rows of the layout's archive of cf at `resolution` seconds that end
 * at start + resolution, ..., end (multiples of resolution), at most
 * max_rows of them, oldest first, as rrd_fetch_series() gives them
 * (unknown rows outside what the archive holds).  Returns 0 with *ret to
 * be released with rrd_series_free(); -EINVAL (no such archive, a range
 * not aligned), -EIO (a read failed), -EAGAIN (the file kept changing
 * under the read for about a tenth of a second), -ENOMEM.
 */
int rrd_direct_fetch(struct rrd_direct *file, enum rrd_cf cf,
                     unsigned long resolution, time_t start, time_t end,
                     size_t max_rows, struct rrd_series *ret);

void rrd_direct_close(struct rrd_direct *file);

#endif

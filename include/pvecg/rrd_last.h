/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The newest row of an RRD file, as `rrdtool lastupdate` prints it: the
 * time of the last update and the values it gave (a DERIVE column's raw
 * counter, not a rate), read from the file's header alone -- never an
 * archive, so it costs one small read whatever the file's history.
 *
 * Through rrdcached the header on disk may be up to the daemon's -w
 * behind: the reader then asks the daemon which updates of the file it
 * still holds (PENDING) and takes the newest of them, instead of making
 * it write the file (a FLUSH per file per scrape would write every file
 * at every scrape).  Over a unix socket the header is read here; over
 * TCP, where the files are not local, the daemon reads it (INFO).
 *
 * A reader keeps its daemon connection: not thread-safe, one user at a
 * time (the server takes its read lock around it).
 */
#ifndef PVECG_RRD_LAST_H
#define PVECG_RRD_LAST_H

#include "pvecg/rrd_layout.h"

#include <stddef.h>
#include <time.h>

#define RRD_LAST_NAME_SIZE 20 /* librrd's DS_NAM_SIZE */

struct rrd_last_row {
  time_t time; /* of the last update; 0 when the file has none */
  size_t ds_count;
  char ds_names[RRD_LAYOUT_DS_MAX][RRD_LAST_NAME_SIZE]; /* in file order */
  double values[RRD_LAYOUT_DS_MAX];                     /* NAN for U */
};

struct rrd_last_reader;

/* daemon: NULL or "" to read files with librrd, else an rrdcached address
 * as rrdcached_client_new() takes it (not connected yet).  Returns 0,
 * -EINVAL for a bad address, or -ENOMEM. */
int rrd_last_reader_new(const char *daemon, struct rrd_last_reader **ret);
void rrd_last_reader_free(struct rrd_last_reader *reader);

/*
 * The newest row of path (over TCP: relative to the daemon's base
 * directory).  Returns 0; -ENOENT when there is no such file; -ENOTCONN
 * when the daemon cannot be reached; -EIO with the reason in err for a
 * file that is not an RRD or an answer that cannot be read.
 */
int rrd_last_read(struct rrd_last_reader *reader, const char *path,
                  struct rrd_last_row *ret, char *err, size_t err_size);

/* The value of column name, or NAN when the row has no such column. */
double rrd_last_value(const struct rrd_last_row *row, const char *name);

#endif

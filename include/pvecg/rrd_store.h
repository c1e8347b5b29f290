/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RRD files one writer keeps under a data directory.
 *
 * A row for (layout, cluster, name) goes to <data_dir>/<layout->name>/<name>,
 * or <data_dir>/<cluster>/<layout->name>/<name> when the writer keeps
 * several clusters apart (rrd_file_name.h; cluster NULL or "" is the data
 * directory itself, and the same name in two clusters is two files).  The
 * store remembers per file what it learnt: whether the file has our layout
 * (checked once, re-checked every recheck_seconds while it does not), and
 * the time of its last update, so rows that are not newer are dropped
 * without asking librrd.  It decides when a problem is worth a log line:
 * the first time, then with doubling back-off, and once more when the file
 * recovers (if its problem was logged); the caller only logs what it is
 * told to.
 *
 * It never fights another writer: when a file turns out to be updated by
 * someone else (its last update moves past the rows written here — pmxcfs
 * on a Proxmox VE node writing the same directory), one error says so, and
 * the file is left alone for recheck_seconds at a time until nobody else
 * has written it for that long.
 *
 * The files are reached through a struct rrd_access: librrd on local files
 * by default, or an rrdcached daemon.
 *
 * Thread-safe: collectd calls write callbacks from several threads.  Rows
 * for different files are written in parallel, rows for one file in turn.
 */
#ifndef PVECG_RRD_STORE_H
#define PVECG_RRD_STORE_H

#include "pvecg/rrd_access.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_row.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Longest file name (a VMID or a node name) the store accepts. */
#define RRD_STORE_NAME_MAX RRD_FILE_NAME_MAX

struct rrd_store;

struct rrd_store_options {
  /* Absolute, created (0750) if missing, for local files; relative to the
   * daemon's base directory ("" for the base itself, no "..") otherwise. */
  const char *data_dir;
  /* Foreign files are re-examined this often, files another writer updates
   * are left alone this long, and every file is writer_checked this often
   * whether someone else wrote it. */
  unsigned long recheck_seconds;
  /* A row more than this ahead of now is dropped (0: no limit): a sender
   * whose clock runs ahead would otherwise move the file's last update
   * into the future, and every row after its clock is fixed would be
   * dropped as not newer until real time caught up. */
  unsigned long max_ahead_seconds;
  const struct rrd_access *access; /* NULL: rrd_access_librrd */
};

enum rrd_store_outcome {
  RRD_STORE_WRITTEN,   /* row applied to an existing file */
  RRD_STORE_CREATED,   /* file created with the layout, then row applied */
  RRD_STORE_FOREIGN,   /* file exists with another layout: nothing written */
  RRD_STORE_STALE,     /* row not newer than the file's last update: dropped */
  RRD_STORE_FAILED,    /* librrd or the file system refused */
  RRD_STORE_RECOVERED, /* row applied after earlier problems with the file */
  RRD_STORE_HELD,      /* another writer updates the file: it is left
                          alone for a while, nothing written (but the row
                          sent after the writer check that found it out, in
                          the same exchange, when newer than theirs) */
  RRD_STORE_UNAVAILABLE, /* the daemon could not be reached: nothing done,
                            the row may be written again later */
};
#define RRD_STORE_OUTCOMES (RRD_STORE_UNAVAILABLE + 1)

struct rrd_store_result {
  enum rrd_store_outcome outcome;
  bool report;       /* the caller should log message now */
  char message[768]; /* what happened, naming the file, for the log */
};

/* Returns 0, -EINVAL (data_dir not as described above) or -ENOMEM. */
int rrd_store_new(const struct rrd_store_options *options,
                  struct rrd_store **ret);
void rrd_store_free(struct rrd_store *store);

/*
 * Writes the row (t, values[0..n)) to the file of (layout, cluster, name),
 * creating it (and its directories) when missing.  name must be a plain
 * file name: not empty, at most RRD_STORE_NAME_MAX bytes, no '/' or '\\',
 * no control characters, not "." or ".." (rrd_file_name_problem); cluster
 * NULL, "", or a name rrd_cluster_name_problem accepts.  now is the wall
 * clock, for re-check and back-off timing. Returns 0 with the outcome in
 * *res, or -EINVAL for a bad name, cluster, value count or time
 * (res->message says which).
 */
int rrd_store_write(struct rrd_store *store, const struct rrd_layout *layout,
                    const char *cluster, const char *name, time_t t,
                    const double *values, size_t n, time_t now,
                    struct rrd_store_result *res);

/*
 * Rows for a daemon in batches (the sink's sender): rrd_store_prepare does
 * what rrd_store_write does up to the update itself, rrd_store_complete
 * takes the daemon's answer.  Between the two the row's file is pending: a
 * second row for it is not prepared until the first is completed, so the
 * rows of one file reach the daemon one per batch and in order.
 *
 * Now and then (every recheck_seconds) the store checks whether someone
 * else wrote a file since our last row (the writer check): an update of
 * unknowns at that row's time, which must be refused.  rrd_store_write checks
 * in a round trip of its own; a prepared row carries the writer check in
 * `check`, to go to the same file just before the row in the same exchange,
 * where it costs the daemon one refused line.
 */
#define RRD_STORE_CHECK_SIZE 128 /* "<time>:U:...:U" for RRD_LAYOUT_DS_MAX */

struct rrd_store_pending {
  void *entry; /* the store's */
  time_t t;
  bool created;                     /* the file was made for this row */
  const char *path;                 /* the file; valid until completed */
  char row[RRD_ROW_SIZE];           /* the row as the daemon takes it */
  char check[RRD_STORE_CHECK_SIZE]; /* the writer check for p->path first, or ""
                                     */
};

/* The daemon's answer to one line, as the store's access returns an
 * update's (rrd_access.h): 0 applied; -ESTALE refused as not newer than
 * the file's last update, which is file_last; -EIO refused otherwise (the
 * daemon's words in message); -ENOTCONN unknown, the daemon went away. */
struct rrd_store_answer {
  int r;
  time_t file_last;
  const char *message; /* NULL for none */
};

/*
 * Returns 1 when p->row is to be sent to p->path, then completed; 0 when
 * the row is done (the outcome in *res, as from rrd_store_write); -EBUSY
 * when a row of the same file is pending (nothing done); -EINVAL as
 * rrd_store_write.
 */
int rrd_store_prepare(struct rrd_store *store, const struct rrd_layout *layout,
                      const char *cluster, const char *name, time_t t,
                      const double *values, size_t n, time_t now,
                      struct rrd_store_pending *p,
                      struct rrd_store_result *res);

/*
 * The daemon's answers for a prepared row: to its writer check when p->check
 * was sent (check, NULL otherwise) and to the row.  -ENOTCONN makes the row
 * UNAVAILABLE: it may be prepared again.  The outcome in *res.
 */
void rrd_store_complete(struct rrd_store *store, struct rrd_store_pending *p,
                        const struct rrd_store_answer *check,
                        const struct rrd_store_answer *row, time_t now,
                        struct rrd_store_result *res);

/* How many rows had each outcome since the store was made. */
struct rrd_store_counts {
  unsigned long long rows[RRD_STORE_OUTCOMES];
};
void rrd_store_counts(struct rrd_store *store, struct rrd_store_counts *ret);

/*
 * The paths of the files updated since the last call (for a daemon's
 * FLUSH), in *ret (free each and the array); short of memory, some of
 * them (the others stay for the next call).  Returns 0 or -ENOMEM.
 */
int rrd_store_take_dirty(struct rrd_store *store, char ***ret, size_t *count);

/*
 * Lets go of what the store keeps for files whose rows have stopped (a
 * guest gone) as of the wall clock now: no row for 30 s, or for four
 * times the spacing of the file's rows where that is longer (its layout's
 * step until it had two rows).  A file whose rows come again is examined
 * again, as after a restart.  The paths of those updated since the last
 * rrd_store_take_dirty() go to *dirty and *count (free each and the array;
 * dirty NULL: none wanted), as they are no longer among its files.
 * Returns how many files were let go.
 */
size_t rrd_store_let_go(struct rrd_store *store, time_t now, char ***dirty,
                        size_t *count);

/* The path of the file of (layout, cluster, name); -ENAMETOOLONG or
 * -EINVAL (see rrd_store_write for names). */
int rrd_store_path(const struct rrd_store *store,
                   const struct rrd_layout *layout, const char *cluster,
                   const char *name, char *buf, size_t size);

#endif

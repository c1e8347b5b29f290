/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rows to rrdcached in BATCH exchanges (rrdcached(1)), on a connection of
 * its own: "BATCH", one "UPDATE <file> <row>" line per row, ".", and one
 * answer naming the lines the daemon refused.  One exchange costs the
 * daemon and us one round trip for any number of rows, where librrd's
 * rrdc_update costs one per row; librrd has no batch call, so the
 * protocol is spoken here (the answer is read by rrdcached_answer.c).
 * Files are still created and checked through librrd's client
 * (rrdcached_client.c).
 *
 * Paths are sent as librrd sends them: over a unix socket absolute with
 * the directory resolved (realpath), so the daemon's cache knows a file by
 * one name whichever client names it; over TCP as given, relative to the
 * daemon's base directory.  Spaces and backslashes are escaped as librrd
 * escapes them.
 *
 * Like librrd, no timeout: a daemon that does not answer holds the
 * calling thread, which must be one that may wait (the sink's sender) and
 * must block or ignore SIGPIPE.  Not thread-safe.
 */
#ifndef PVECG_RRDCACHED_BATCH_H
#define PVECG_RRDCACHED_BATCH_H

#include <stddef.h>

struct rrdcached_batch;

/* One row for the daemon. */
struct rrdcached_batch_row {
  const char *path; /* as the store names the file */
  const char *row;  /* "<time>:<v1>:..." */
};

/* Called for each row the daemon refused, with its 0-based index in the
 * exchange and the daemon's message. */
typedef void rrdcached_batch_refused_fn(void *ctx, size_t index,
                                        const char *message);

/* For an address as rrdcached_client_new() takes it; does not connect.
 * Returns 0, -EINVAL or -ENOMEM. */
int rrdcached_batch_new(const char *address, struct rrdcached_batch **ret);
void rrdcached_batch_free(struct rrdcached_batch *batch);

/*
 * Sends rows[0..n) as one exchange, connecting first when needed (a new
 * connection first asks whether the daemon takes BATCH at all).  Returns 0
 * when the daemon answered, having called refused() for each line it
 * refused; -ENOTCONN when it could not be reached or the connection broke
 * before the whole answer came (nothing is known of the rows: the daemon
 * may have applied some); -EOPNOTSUPP when the daemon does not take BATCH
 * (nothing was sent); err says why.
 */
int rrdcached_batch_update(struct rrdcached_batch *batch,
                           const struct rrdcached_batch_row *rows, size_t n,
                           rrdcached_batch_refused_fn *refused, void *ctx,
                           char *err, size_t err_size);

/* Connects unless connected, and asks whether the daemon takes BATCH:
 * 0, -ENOTCONN or -EOPNOTSUPP, err saying why. */
int rrdcached_batch_connect(struct rrdcached_batch *batch, char *err,
                            size_t err_size);

/* Closes the connection (the next exchange makes a new one). */
void rrdcached_batch_disconnect(struct rrdcached_batch *batch);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sender's rows to rrdcached in batches (rrd_sender_batch.c): the
 * oldest queued rows, as many as are ready to go (a file's rows one per
 * batch, at most BATCH_ROWS_MAX rows and BATCH_BYTES_MAX bytes), in one
 * BATCH exchange (rrdcached_batch.c), each row's answer back to the store.
 * Rows leave the queue only when the store is done with them, so a batch
 * the daemon was not reached for is sent again, first, when it is back;
 * a row applied before the connection broke is refused at its own time
 * then, which the store takes as written (rrd_access.h).
 */
#ifndef PVECG_RRD_SENDER_BATCH_H
#define PVECG_RRD_SENDER_BATCH_H

#include "rrd_sink_internal.h"

#include <stdbool.h>
#include <stddef.h>

/* Rows in one exchange at most: enough for an interval of a large host in
 * a few exchanges. */
#define RRD_SENDER_BATCH_ROWS 2000

/* The sender thread's part of the sink for batches. */
struct rrd_sender_batch;

/* Returns 0, -EINVAL (address) or -ENOMEM. */
int rrd_sender_batch_new(const char *address, struct rrd_sender_batch **ret);
void rrd_sender_batch_free(struct rrd_sender_batch *b);

/* False once the daemon said it does not take BATCH: rows go one by one
 * (rrd_sender.c). */
bool rrd_sender_batch_usable(const struct rrd_sender_batch *b);

/* Connects the batches' own connection anew (the link is down): 0, -ENOTCONN
 * (err says why), or -EOPNOTSUPP when the daemon does not take BATCH,
 * which leaves the batches unusable (the caller logs it). */
int rrd_sender_batch_connect(struct rrd_sender_batch *b, char *err,
                             size_t err_size);

/* One batch of the oldest rows.  Called by the sender with the lock held;
 * returns with it held. */
void rrd_sender_batch_send(struct rrd_sink *s);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows waiting for the RRD daemon: a bounded first-in first-out ring
 * of rows, filled by collectd's write threads (rrd_sink.c) and emptied by
 * the sink's sender thread (rrd_sender.c), under the sink's lock.  Bounded so
 * that a daemon that stays away costs a known amount of memory: at most
 * capacity rows (a pve-vm-9.0 row is about 200 bytes).  Rows keep their
 * arrival order, which for one file is time order, so a replay after an
 * outage is accepted by the daemon row by row.
 */
#ifndef PVECG_RRD_QUEUE_H
#define PVECG_RRD_QUEUE_H

#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct rrd_queued_row {
  const struct rrd_layout *layout;
  const char *cluster; /* "" for the data directory's own; after name */
  const char *name;    /* stored after values */
  time_t t;
  size_t n;
  /* The store is done with it (a row behind a batch still in flight):
   * it leaves the queue when it is the oldest, without going again. */
  bool done;
  double values[];
};

/* One allocation holding a copy of everything; NULL when out of memory or
 * n exceeds RRD_LAYOUT_DS_MAX.  Freed with free(). */
struct rrd_queued_row *rrd_queued_row_new(const struct rrd_layout *layout,
                                          const char *cluster, const char *name,
                                          time_t t, const double *values,
                                          size_t n);

struct rrd_queue {
  struct rrd_queued_row **slots;
  size_t capacity, head, count;
};

/* Returns 0, -EINVAL for a capacity of 0, or -ENOMEM. */
int rrd_queue_init(struct rrd_queue *q, size_t capacity);
/* Frees the rows still queued. */
void rrd_queue_destroy(struct rrd_queue *q);

/* Appends the row (the queue owns it then); -ENOSPC when full. */
int rrd_queue_push(struct rrd_queue *q, struct rrd_queued_row *row);
/* The oldest row, still queued; NULL when empty. */
struct rrd_queued_row *rrd_queue_peek(const struct rrd_queue *q);
/* The i-th oldest row (0: the oldest), still queued; NULL past the end. */
struct rrd_queued_row *rrd_queue_peek_at(const struct rrd_queue *q, size_t i);
/* Removes the oldest row and gives it to the caller; NULL when empty. */
struct rrd_queued_row *rrd_queue_pop(struct rrd_queue *q);

#endif

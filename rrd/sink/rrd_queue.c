/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bounded FIFO of rows waiting for the daemon (see rrd_queue.h): a ring
 * of pointers allocated once at its full capacity (8 bytes a row), the rows
 * themselves only while they wait.
 */
#include "rrd_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rrd_queued_row *rrd_queued_row_new(const struct rrd_layout *layout,
                                          const char *cluster, const char *name,
                                          time_t t, const double *values,
                                          size_t n) {
  if (n > RRD_LAYOUT_DS_MAX || name == NULL || (n > 0 && values == NULL))
    return NULL;
  cluster = cluster != NULL ? cluster : "";
  size_t name_size = strlen(name) + 1, cluster_size = strlen(cluster) + 1;
  struct rrd_queued_row *row =
      malloc(sizeof(*row) + n * sizeof(*values) + name_size + cluster_size);
  if (row == NULL)
    return NULL;
  row->layout = layout;
  row->t = t;
  row->n = n;
  row->done = false;
  if (n > 0)
    memcpy(row->values, values, n * sizeof(*values));
  char *copy = (char *)(row->values + n);
  memcpy(copy, name, name_size);
  row->name = copy;
  memcpy(copy + name_size, cluster, cluster_size);
  row->cluster = copy + name_size;
  return row;
}

int rrd_queue_init(struct rrd_queue *q, size_t capacity) {
  *q = (struct rrd_queue){0};
  if (capacity == 0)
    return -EINVAL;
  q->slots = calloc(capacity, sizeof(*q->slots));
  if (q->slots == NULL)
    return -ENOMEM;
  q->capacity = capacity;
  return 0;
}

void rrd_queue_destroy(struct rrd_queue *q) {
  struct rrd_queued_row *row;
  while ((row = rrd_queue_pop(q)) != NULL)
    free(row);
  free(q->slots);
  *q = (struct rrd_queue){0};
}

int rrd_queue_push(struct rrd_queue *q, struct rrd_queued_row *row) {
  if (q->count == q->capacity)
    return -ENOSPC;
  q->slots[(q->head + q->count) % q->capacity] = row;
  q->count++;
  return 0;
}

struct rrd_queued_row *rrd_queue_peek(const struct rrd_queue *q) {
  return q->count > 0 ? q->slots[q->head] : NULL;
}

struct rrd_queued_row *rrd_queue_peek_at(const struct rrd_queue *q, size_t i) {
  return i < q->count ? q->slots[(q->head + i) % q->capacity] : NULL;
}

struct rrd_queued_row *rrd_queue_pop(struct rrd_queue *q) {
  if (q->count == 0)
    return NULL;
  struct rrd_queued_row *row = q->slots[q->head];
  q->slots[q->head] = NULL;
  q->head = (q->head + 1) % q->capacity;
  q->count--;
  return row;
}

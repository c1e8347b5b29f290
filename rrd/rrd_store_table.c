/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's entries (see rrd_store_table.h), chained in buckets whose
 * count doubles when there are more entries than buckets: their memory,
 * the lock and the walks.
 */
#include "rrd_store_table.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_table_init(struct store_table *table) {
  int r = rrd_keyed_table_init(&table->keyed);
  if (r == 0 && pthread_mutex_init(&table->lock, NULL) != 0) {
    rrd_keyed_table_destroy(&table->keyed, NULL);
    r = -ENOMEM;
  }
  return r;
}

static void entry_free(struct rrd_keyed *k) {
  struct entry *e = (struct entry *)k;
  pthread_mutex_destroy(&e->lock);
  free(e->path);
  free(e);
}

void store_table_destroy(struct store_table *table) {
  rrd_keyed_table_destroy(&table->keyed, entry_free);
  pthread_mutex_destroy(&table->lock);
}

static struct entry *entry_new(const struct rrd_layout *layout,
                               const char *cluster, const char *name,
                               const char *path) {
  struct entry *e = calloc(1, sizeof(*e));
  if (e == NULL)
    return NULL;
  if (pthread_mutex_init(&e->lock, NULL) != 0) {
    free(e);
    return NULL;
  }
  rrd_keyed_set(&e->key, layout, cluster, name);
  if (path != NULL && (e->path = strdup(path)) == NULL) {
    pthread_mutex_destroy(&e->lock);
    free(e);
    return NULL;
  }
  return e;
}

struct entry *store_table_find(struct store_table *table,
                               const struct rrd_layout *layout,
                               const char *cluster, const char *name) {
  pthread_mutex_lock(&table->lock);
  struct entry *e = (struct entry *)rrd_keyed_table_find(&table->keyed, layout,
                                                         cluster, name);
  pthread_mutex_unlock(&table->lock);
  return e;
}

struct entry *store_table_add(struct store_table *table,
                              const struct rrd_layout *layout,
                              const char *cluster, const char *name,
                              const char *path) {
  pthread_mutex_lock(&table->lock);
  struct entry *e = (struct entry *)rrd_keyed_table_find(&table->keyed, layout,
                                                         cluster, name);
  if (e == NULL && (e = entry_new(layout, cluster, name, path)) != NULL)
    rrd_keyed_table_insert(&table->keyed, &e->key);
  pthread_mutex_unlock(&table->lock);
  return e;
}

/* The caller's visit, with the count of entries it wants. */
struct visit {
  int (*visit)(struct entry *e, size_t count, void *ctx);
  size_t count;
  void *ctx;
};

static int visit_one(struct rrd_keyed *k, void *ctx) {
  struct visit *v = ctx;
  return v->visit((struct entry *)k, v->count, v->ctx);
}

int store_table_each(struct store_table *table,
                     int (*visit)(struct entry *e, size_t count, void *ctx),
                     void *ctx) {
  pthread_mutex_lock(&table->lock);
  struct visit v = {visit, table->keyed.entry_count, ctx};
  int r = rrd_keyed_table_each(&table->keyed, visit_one, &v);
  pthread_mutex_unlock(&table->lock);
  return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's entries (see rrd_store_table.h), chained in buckets whose
 * count doubles when there are more entries than buckets: their memory,
 * the lock and the walks.
 */
#include "rrd_store_table.h"

#include "rrd_entry_hash.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_BUCKETS 64

int store_table_init(struct store_table *table) {
  table->buckets = calloc(INITIAL_BUCKETS, sizeof(*table->buckets));
  if (table->buckets == NULL)
    return -ENOMEM;
  if (pthread_mutex_init(&table->lock, NULL) != 0) {
    free(table->buckets);
    return -ENOMEM;
  }
  table->bucket_count = INITIAL_BUCKETS;
  table->entry_count = 0;
  return 0;
}

static void entry_free(struct entry *e) {
  pthread_mutex_destroy(&e->lock);
  free(e->path);
  free(e);
}

void store_table_destroy(struct store_table *table) {
  for (size_t i = 0; i < table->bucket_count; i++)
    for (struct entry *e = table->buckets[i], *next; e != NULL; e = next) {
      next = e->next;
      entry_free(e);
    }
  pthread_mutex_destroy(&table->lock);
  free(table->buckets);
}

/* Doubles the table when it is full; a failed allocation only costs speed. */
static void grow(struct store_table *table) {
  size_t count = table->bucket_count * 2;
  struct entry **buckets = calloc(count, sizeof(*buckets));
  if (buckets == NULL)
    return;
  for (size_t i = 0; i < table->bucket_count; i++)
    for (struct entry *e = table->buckets[i], *next; e != NULL; e = next) {
      next = e->next;
      size_t b = rrd_entry_hash(e->layout, e->cluster, e->name) & (count - 1);
      e->next = buckets[b];
      buckets[b] = e;
    }
  free(table->buckets);
  table->buckets = buckets;
  table->bucket_count = count;
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
  e->layout = layout;
  snprintf(e->cluster, sizeof(e->cluster), "%s", cluster);
  snprintf(e->name, sizeof(e->name), "%s", name);
  if (path != NULL && (e->path = strdup(path)) == NULL) {
    pthread_mutex_destroy(&e->lock);
    free(e);
    return NULL;
  }
  return e;
}

static struct entry *entry_find(const struct store_table *table,
                                const struct rrd_layout *layout,
                                const char *cluster, const char *name,
                                size_t hash) {
  for (struct entry *e = table->buckets[hash & (table->bucket_count - 1)];
       e != NULL; e = e->next)
    if (e->layout == layout && strcmp(e->name, name) == 0 &&
        strcmp(e->cluster, cluster) == 0)
      return e;
  return NULL;
}

struct entry *store_table_find(struct store_table *table,
                               const struct rrd_layout *layout,
                               const char *cluster, const char *name) {
  size_t hash = rrd_entry_hash(layout, cluster, name);
  pthread_mutex_lock(&table->lock);
  struct entry *e = entry_find(table, layout, cluster, name, hash);
  pthread_mutex_unlock(&table->lock);
  return e;
}

struct entry *store_table_add(struct store_table *table,
                              const struct rrd_layout *layout,
                              const char *cluster, const char *name,
                              const char *path) {
  size_t hash = rrd_entry_hash(layout, cluster, name);
  pthread_mutex_lock(&table->lock);
  struct entry *e = entry_find(table, layout, cluster, name, hash);
  if (e == NULL && (e = entry_new(layout, cluster, name, path)) != NULL) {
    size_t b = hash & (table->bucket_count - 1);
    e->next = table->buckets[b];
    table->buckets[b] = e;
    if (++table->entry_count > table->bucket_count)
      grow(table);
  }
  pthread_mutex_unlock(&table->lock);
  return e;
}

int store_table_each(struct store_table *table,
                     int (*visit)(struct entry *e, size_t count, void *ctx),
                     void *ctx) {
  int r = 0;
  pthread_mutex_lock(&table->lock);
  for (size_t i = 0; r == 0 && i < table->bucket_count; i++)
    for (struct entry *e = table->buckets[i]; r == 0 && e != NULL; e = e->next)
      r = visit(e, table->entry_count, ctx);
  pthread_mutex_unlock(&table->lock);
  return r;
}

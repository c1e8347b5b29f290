/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's entries (see rrd_store_table.h), chained in buckets whose
 * count doubles when there are more entries than buckets: their memory,
 * the lock, the walks, and letting go of those whose rows have stopped.
 */
#include "rrd_store_table.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
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

/* A row of time t at now takes e: what tells when it had rows last. */
static struct entry *take(struct entry *e, time_t t, time_t now) {
  if (e == NULL)
    return NULL;
  atomic_fetch_add(&e->use.users, 1);
  struct entry_use *u = &e->use;
  if (u->used_at != 0 && t > u->last_t)
    u->spacing = t - u->last_t;
  if (t > u->last_t)
    u->last_t = t;
  u->used_at = now;
  return e;
}

struct entry *store_table_find(struct store_table *table,
                               const struct rrd_layout *layout,
                               const char *cluster, const char *name, time_t t,
                               time_t now) {
  pthread_mutex_lock(&table->lock);
  struct entry *e = take((struct entry *)rrd_keyed_table_find(
                             &table->keyed, layout, cluster, name),
                         t, now);
  pthread_mutex_unlock(&table->lock);
  return e;
}

struct entry *store_table_add(struct store_table *table,
                              const struct rrd_layout *layout,
                              const char *cluster, const char *name,
                              const char *path, time_t t, time_t now) {
  pthread_mutex_lock(&table->lock);
  struct entry *e = (struct entry *)rrd_keyed_table_find(&table->keyed, layout,
                                                         cluster, name);
  if (e == NULL && (e = entry_new(layout, cluster, name, path)) != NULL)
    rrd_keyed_table_insert(&table->keyed, &e->key);
  e = take(e, t, now);
  pthread_mutex_unlock(&table->lock);
  return e;
}

void store_table_give_back(struct entry *e) {
  atomic_fetch_sub(&e->use.users, 1);
}

/* ---- letting go -------------------------------------------------------- */

struct idle {
  time_t now;
  void (*gone)(struct entry *e, void *ctx);
  void *ctx;
};

/* Nobody holds it (only a row takes it, under the table's lock, held
 * here), and its rows have stopped. */
static bool idle(const struct rrd_keyed *k, void *ctx) {
  const struct idle *i = ctx;
  struct entry *e = (struct entry *)k;
  const struct entry_use *u = &e->use;
  time_t spacing = u->spacing > 0 ? u->spacing : (time_t)k->layout->step;
  time_t quiet = STORE_IDLE_ROWS * spacing;
  if (quiet < STORE_IDLE_SECONDS)
    quiet = STORE_IDLE_SECONDS;
  if (atomic_load(&u->users) != 0 || i->now - u->used_at <= quiet)
    return false;
  if (i->gone != NULL) {
    pthread_mutex_lock(&e->lock); /* the lock order: table -> entry */
    i->gone(e, i->ctx);
    pthread_mutex_unlock(&e->lock);
  }
  return true;
}

size_t store_table_drop_idle(struct store_table *table, time_t now,
                             void (*gone)(struct entry *e, void *ctx),
                             void *ctx) {
  struct idle i = {now, gone, ctx};
  pthread_mutex_lock(&table->lock);
  size_t n = rrd_keyed_table_drop(&table->keyed, idle, entry_free, &i);
  pthread_mutex_unlock(&table->lock);
  return n;
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners' entries (see rrd_owner_table.h), chained in buckets whose
 * count doubles when there are more entries than buckets: their memory
 * and their removal.
 */
#include "rrd_owner_table.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int owner_table_init(struct owner_table *table) {
  return rrd_keyed_table_init(&table->keyed);
}

static void entry_free(struct owner_entry *e) {
  if (e->dispute != NULL) {
    free(e->dispute->rivals);
    free(e->dispute->said);
    free(e->dispute->marks);
    free(e->dispute);
  }
  free(e);
}

static void release(struct rrd_keyed *k) {
  entry_free((struct owner_entry *)k);
}

void owner_table_destroy(struct owner_table *table) {
  rrd_keyed_table_destroy(&table->keyed, release);
}

struct owner_entry *owner_table_find(const struct owner_table *table,
                                     const struct rrd_layout *layout,
                                     const char *cluster, const char *name) {
  return (struct owner_entry *)rrd_keyed_table_find(&table->keyed, layout,
                                                    cluster, name);
}

struct owner_entry *owner_table_add(struct owner_table *table,
                                    const struct rrd_layout *layout,
                                    const char *cluster, const char *name) {
  struct owner_entry *e = calloc(1, sizeof(*e));
  if (e == NULL)
    return NULL;
  rrd_keyed_set(&e->key, layout, cluster, name);
  rrd_keyed_table_insert(&table->keyed, &e->key);
  return e;
}

static struct owner_dispute *dispute_of(struct owner_entry *e) {
  if (e->dispute == NULL)
    e->dispute = calloc(1, sizeof(*e->dispute));
  return e->dispute;
}

struct owner_claim *owner_table_add_rival(struct owner_entry *e) {
  struct owner_dispute *d = dispute_of(e);
  if (d == NULL)
    return NULL;
  if (d->rival_count == OWNER_RIVALS_MAX)
    return NULL;
  struct owner_claim *r = realloc(d->rivals, (d->rival_count + 1) * sizeof(*r));
  if (r == NULL)
    return NULL;
  d->rivals = r;
  r = &d->rivals[d->rival_count++];
  memset(r, 0, sizeof(*r));
  return r;
}

struct owner_pair *owner_table_add_pair(struct owner_entry *e) {
  struct owner_dispute *d = e->dispute;
  if (d->said_count == OWNER_PAIRS_MAX)
    return NULL;
  struct owner_pair *p = realloc(d->said, (d->said_count + 1) * sizeof(*p));
  if (p == NULL)
    return NULL;
  d->said = p;
  return &d->said[d->said_count++];
}

struct owner_mark *owner_table_add_mark(struct owner_entry *e) {
  struct owner_dispute *d = dispute_of(e);
  if (d == NULL || d->mark_count == OWNER_MARKS_MAX)
    return NULL;
  struct owner_mark *m = realloc(d->marks, (d->mark_count + 1) * sizeof(*m));
  if (m == NULL)
    return NULL;
  d->marks = m;
  m = &d->marks[d->mark_count++];
  memset(m, 0, sizeof(*m));
  return m;
}

struct owner_mark *owner_table_mark_of(const struct owner_entry *e,
                                       const char *host) {
  for (size_t i = 0; e->dispute != NULL && i < e->dispute->mark_count; i++)
    if (strncmp(e->dispute->marks[i].host, host, OWNER_HOST_SIZE - 1) == 0)
      return &e->dispute->marks[i];
  return NULL;
}

bool owner_table_unmark(struct owner_entry *e, const char *host) {
  struct owner_mark *m = owner_table_mark_of(e, host);
  if (m == NULL)
    return false;
  struct owner_dispute *d = e->dispute;
  *m = d->marks[--d->mark_count]; /* the last takes its place */
  d->mark_next = 0;
  return true;
}

void owner_table_settle(struct owner_entry *e) {
  if (e->dispute == NULL)
    return;
  free(e->dispute->rivals);
  free(e->dispute->said);
  free(e->dispute->marks);
  free(e->dispute);
  e->dispute = NULL;
}

void owner_table_remove(struct owner_table *table, struct owner_entry *e) {
  rrd_keyed_table_remove(&table->keyed, &e->key);
  entry_free(e);
}

struct stale_test {
  bool (*stale)(const struct owner_entry *e, void *ctx);
  void *ctx;
};

static bool is_stale(const struct rrd_keyed *k, void *ctx) {
  const struct stale_test *t = ctx;
  return t->stale((const struct owner_entry *)k, t->ctx);
}

size_t owner_table_drop(struct owner_table *table,
                        bool (*stale)(const struct owner_entry *e, void *ctx),
                        void *ctx) {
  struct stale_test t = {stale, ctx};
  return rrd_keyed_table_drop(&table->keyed, is_stale, release, &t);
}

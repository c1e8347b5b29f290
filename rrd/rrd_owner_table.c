/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners' entries (see rrd_owner_table.h), chained in buckets whose
 * count doubles when there are more entries than buckets: their memory
 * and their removal.
 */
#include "rrd_owner_table.h"

#include "rrd_entry_hash.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_BUCKETS 64

int owner_table_init(struct owner_table *table) {
  table->buckets = calloc(INITIAL_BUCKETS, sizeof(*table->buckets));
  if (table->buckets == NULL)
    return -ENOMEM;
  table->bucket_count = INITIAL_BUCKETS;
  table->entry_count = 0;
  return 0;
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

void owner_table_destroy(struct owner_table *table) {
  for (size_t i = 0; i < table->bucket_count; i++)
    for (struct owner_entry *e = table->buckets[i], *next; e != NULL;
         e = next) {
      next = e->next;
      entry_free(e);
    }
  free(table->buckets);
  table->buckets = NULL;
}

/* Doubles the table when it is full; a failed allocation only costs speed. */
static void grow(struct owner_table *table) {
  size_t count = table->bucket_count * 2;
  struct owner_entry **buckets = calloc(count, sizeof(*buckets));
  if (buckets == NULL)
    return;
  for (size_t i = 0; i < table->bucket_count; i++)
    for (struct owner_entry *e = table->buckets[i], *next; e != NULL;
         e = next) {
      next = e->next;
      size_t b = rrd_entry_hash(e->layout, e->cluster, e->name) & (count - 1);
      e->next = buckets[b];
      buckets[b] = e;
    }
  free(table->buckets);
  table->buckets = buckets;
  table->bucket_count = count;
}

struct owner_entry *owner_table_find(const struct owner_table *table,
                                     const struct rrd_layout *layout,
                                     const char *cluster, const char *name) {
  size_t b = rrd_entry_hash(layout, cluster, name) & (table->bucket_count - 1);
  for (struct owner_entry *e = table->buckets[b]; e != NULL; e = e->next)
    if (e->layout == layout && strcmp(e->name, name) == 0 &&
        strcmp(e->cluster, cluster) == 0)
      return e;
  return NULL;
}

struct owner_entry *owner_table_add(struct owner_table *table,
                                    const struct rrd_layout *layout,
                                    const char *cluster, const char *name) {
  struct owner_entry *e = calloc(1, sizeof(*e));
  if (e == NULL)
    return NULL;
  e->layout = layout;
  snprintf(e->cluster, sizeof(e->cluster), "%s", cluster);
  snprintf(e->name, sizeof(e->name), "%s", name);
  size_t b = rrd_entry_hash(layout, cluster, name) & (table->bucket_count - 1);
  e->next = table->buckets[b];
  table->buckets[b] = e;
  if (++table->entry_count > table->bucket_count)
    grow(table);
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
  size_t b = rrd_entry_hash(e->layout, e->cluster, e->name) &
             (table->bucket_count - 1);
  for (struct owner_entry **link = &table->buckets[b]; *link != NULL;
       link = &(*link)->next)
    if (*link == e) {
      *link = e->next;
      entry_free(e);
      table->entry_count--;
      return;
    }
}

size_t owner_table_drop(struct owner_table *table,
                        bool (*stale)(const struct owner_entry *e, void *ctx),
                        void *ctx) {
  size_t dropped = 0;
  for (size_t i = 0; i < table->bucket_count; i++)
    for (struct owner_entry **link = &table->buckets[i]; *link != NULL;) {
      struct owner_entry *e = *link;
      if (!stale(e, ctx)) {
        link = &e->next;
        continue;
      }
      *link = e->next;
      entry_free(e);
      dropped++;
    }
  table->entry_count -= dropped;
  return dropped;
}

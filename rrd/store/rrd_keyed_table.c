/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table keyed by (layout, cluster, name) (see rrd_keyed_table.h).
 * The bucket: FNV-1a of the cluster, a NUL and the name (so that no two
 * keys run together), mixed with the layout's address (the same name is
 * two files in two layouts).
 */
#include "rrd_keyed_table.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_BUCKETS 64

size_t rrd_keyed_hash(const struct rrd_layout *layout, const char *cluster,
                      const char *name) {
  uint64_t h = 14695981039346656037ULL; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)cluster; *p; p++)
    h = (h ^ *p) * 1099511628211ULL;
  h *= 1099511628211ULL; /* the NUL between them */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 1099511628211ULL;
  return (size_t)(h ^ ((uintptr_t)layout * 0x9e3779b97f4a7c15ULL));
}

static struct rrd_keyed **bucket_of(const struct rrd_keyed_table *t,
                                    const struct rrd_layout *layout,
                                    const char *cluster, const char *name) {
  return &t->buckets[rrd_keyed_hash(layout, cluster, name) &
                     (t->bucket_count - 1)];
}

int rrd_keyed_table_init(struct rrd_keyed_table *t) {
  t->buckets = calloc(INITIAL_BUCKETS, sizeof(*t->buckets));
  if (t->buckets == NULL)
    return -ENOMEM;
  t->bucket_count = INITIAL_BUCKETS;
  t->entry_count = 0;
  return 0;
}

void rrd_keyed_table_destroy(struct rrd_keyed_table *t,
                             void (*release)(struct rrd_keyed *)) {
  for (size_t i = 0; t->buckets != NULL && i < t->bucket_count; i++)
    for (struct rrd_keyed *k = t->buckets[i], *next; k != NULL; k = next) {
      next = k->next;
      if (release != NULL)
        release(k);
    }
  free(t->buckets);
  t->buckets = NULL;
  t->entry_count = 0;
}

void rrd_keyed_set(struct rrd_keyed *k, const struct rrd_layout *layout,
                   const char *cluster, const char *name) {
  k->layout = layout;
  snprintf(k->cluster, sizeof(k->cluster), "%s", cluster);
  snprintf(k->name, sizeof(k->name), "%s", name);
}

struct rrd_keyed *rrd_keyed_table_find(const struct rrd_keyed_table *t,
                                       const struct rrd_layout *layout,
                                       const char *cluster, const char *name) {
  for (struct rrd_keyed *k = *bucket_of(t, layout, cluster, name); k != NULL;
       k = k->next)
    if (k->layout == layout && strcmp(k->name, name) == 0 &&
        strcmp(k->cluster, cluster) == 0)
      return k;
  return NULL;
}

/* Doubles the buckets when there are more entries than buckets. */
static void grow(struct rrd_keyed_table *t) {
  size_t count = t->bucket_count * 2;
  struct rrd_keyed **buckets = calloc(count, sizeof(*buckets));
  if (buckets == NULL)
    return;
  for (size_t i = 0; i < t->bucket_count; i++)
    for (struct rrd_keyed *k = t->buckets[i], *next; k != NULL; k = next) {
      next = k->next;
      size_t b = rrd_keyed_hash(k->layout, k->cluster, k->name) & (count - 1);
      k->next = buckets[b];
      buckets[b] = k;
    }
  free(t->buckets);
  t->buckets = buckets;
  t->bucket_count = count;
}

void rrd_keyed_table_insert(struct rrd_keyed_table *t, struct rrd_keyed *k) {
  struct rrd_keyed **b = bucket_of(t, k->layout, k->cluster, k->name);
  k->next = *b;
  *b = k;
  if (++t->entry_count > t->bucket_count)
    grow(t);
}

void rrd_keyed_table_remove(struct rrd_keyed_table *t, struct rrd_keyed *k) {
  for (struct rrd_keyed **link = bucket_of(t, k->layout, k->cluster, k->name);
       *link != NULL; link = &(*link)->next)
    if (*link == k) {
      *link = k->next;
      t->entry_count--;
      return;
    }
}

size_t rrd_keyed_table_drop(struct rrd_keyed_table *t,
                            bool (*stale)(const struct rrd_keyed *, void *),
                            void (*release)(struct rrd_keyed *), void *ctx) {
  size_t dropped = 0;
  for (size_t i = 0; i < t->bucket_count; i++)
    for (struct rrd_keyed **link = &t->buckets[i]; *link != NULL;) {
      struct rrd_keyed *k = *link;
      if (!stale(k, ctx)) {
        link = &k->next;
        continue;
      }
      *link = k->next;
      release(k);
      dropped++;
    }
  t->entry_count -= dropped;
  return dropped;
}

int rrd_keyed_table_each(const struct rrd_keyed_table *t,
                         int (*visit)(struct rrd_keyed *, void *), void *ctx) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < t->bucket_count; i++)
    for (struct rrd_keyed *k = t->buckets[i]; r == 0 && k != NULL; k = k->next)
      r = visit(k, ctx);
  return r;
}

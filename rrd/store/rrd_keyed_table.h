/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of the store's entries keyed by (layout, cluster, name)
 * (rrd_store_table.c, with its lock; the owners keep smaller entries of
 * their own in rrd_owner.c).  An entry begins with a struct rrd_keyed
 * (its first member, so the table hands back the entry itself); the table
 * chains them in buckets whose count doubles when there are more entries
 * than buckets, and owns no entry's memory: the caller allocates, and
 * frees what drop() and destroy() give back.  No lock: the user holds its
 * own.
 */
#ifndef PVECG_RRD_KEYED_TABLE_H
#define PVECG_RRD_KEYED_TABLE_H

#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_store.h"

#include <stdbool.h>
#include <stddef.h>

struct rrd_keyed {
  struct rrd_keyed *next; /* the bucket's chain */
  const struct rrd_layout *layout;
  char cluster[RRD_STORE_NAME_MAX + 1]; /* "": the data directory's own */
  char name[RRD_STORE_NAME_MAX + 1];
};

struct rrd_keyed_table {
  struct rrd_keyed **buckets;
  size_t bucket_count; /* a power of two */
  size_t entry_count;
};

/* An empty table.  Returns 0 or -ENOMEM. */
int rrd_keyed_table_init(struct rrd_keyed_table *table);

/* Gives every entry to release (NULL: none), then frees the buckets. */
void rrd_keyed_table_destroy(struct rrd_keyed_table *table,
                             void (*release)(struct rrd_keyed *entry));

/* Sets k's key; cluster and name are cut to RRD_STORE_NAME_MAX. */
void rrd_keyed_set(struct rrd_keyed *k, const struct rrd_layout *layout,
                   const char *cluster, const char *name);

/* The entry of (layout, cluster, name), or NULL. */
struct rrd_keyed *rrd_keyed_table_find(const struct rrd_keyed_table *table,
                                       const struct rrd_layout *layout,
                                       const char *cluster, const char *name);

/* Puts k, keyed and in no table, into the table (the caller found none of
 * its key).  A failed growth only costs speed. */
void rrd_keyed_table_insert(struct rrd_keyed_table *table, struct rrd_keyed *k);

/* Takes k, which is in the table, out of it. */
void rrd_keyed_table_remove(struct rrd_keyed_table *table, struct rrd_keyed *k);

/* Takes out every entry for which stale(entry, ctx), giving each to
 * release; returns how many. */
size_t rrd_keyed_table_drop(struct rrd_keyed_table *table,
                            bool (*stale)(const struct rrd_keyed *, void *),
                            void (*release)(struct rrd_keyed *), void *ctx);

/* visit(entry, ctx) for every entry, until one returns non-zero: that. */
int rrd_keyed_table_each(const struct rrd_keyed_table *table,
                         int (*visit)(struct rrd_keyed *, void *), void *ctx);

/* FNV-1a of (layout, cluster, name): the tables keyed by a file's name
 * (this one, the owners') hash alike. */
size_t rrd_keyed_hash(const struct rrd_layout *layout, const char *cluster,
                      const char *name);

#endif

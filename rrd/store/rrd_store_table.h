/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's entries by (layout, cluster, name): a hash table with its own
 * lock, never held during I/O (rrd_store_table.c).  It knows nothing of files:
 * an entry's path is handed to it.  An entry is taken for each row and
 * given back when the row is done with it, so a pointer stays valid after
 * the table lock is dropped; entries nobody holds and that had no row for
 * a while are let go (store_table_drop_idle).
 */
#ifndef PVECG_RRD_STORE_TABLE_H
#define PVECG_RRD_STORE_TABLE_H

#include "rrd_store_entry.h"

#include <pthread.h>
#include <stddef.h>
#include <time.h>

struct store_table {
  pthread_mutex_t lock;
  struct rrd_keyed_table keyed;
};

/* An empty table.  Returns 0 or -ENOMEM. */
int store_table_init(struct store_table *table);

/* Frees the table and every entry in it. */
void store_table_destroy(struct store_table *table);

/* The entry of (layout, cluster, name), or NULL; cluster "" is the data
 * directory itself.  An entry found is taken for a row of time t at the
 * wall clock now: give it back with store_table_give_back(). */
struct entry *store_table_find(struct store_table *table,
                               const struct rrd_layout *layout,
                               const char *cluster, const char *name, time_t t,
                               time_t now);

/* The entry of (layout, cluster, name), added with a copy of path (NULL:
 * it has none) unless another thread added it first, and taken as by
 * store_table_find(); NULL when out of memory. */
struct entry *store_table_add(struct store_table *table,
                              const struct rrd_layout *layout,
                              const char *cluster, const char *name,
                              const char *path, time_t t, time_t now);

/* The row is done with e. */
void store_table_give_back(struct entry *e);

/* Takes out and frees every entry that nobody holds and that had no row
 * for the longer of STORE_IDLE_SECONDS and STORE_IDLE_ROWS times the
 * spacing of its rows (its layout's step until it had two) before now;
 * gone(e, ctx) sees each first.  Returns how many. */
#define STORE_IDLE_SECONDS 30
#define STORE_IDLE_ROWS 4
size_t store_table_drop_idle(struct store_table *table, time_t now,
                             void (*gone)(struct entry *e, void *ctx),
                             void *ctx);

/* Calls visit(e, count, ctx) for each entry, count being the number of
 * entries, with the table locked, until visit returns non-zero; returns
 * that, or 0.  visit may take e->lock: the lock order is table -> entry,
 * and nothing holds an entry lock while taking the table's. */
int store_table_each(struct store_table *table,
                     int (*visit)(struct entry *e, size_t count, void *ctx),
                     void *ctx);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host reports each guest file, as rrd_owner.c keeps it: one entry
 * per (layout, cluster, name) in a hash table (rrd_owner_table.c) that knows
 * nothing of the rule, only the entries' memory.  It has no lock: its one
 * user holds its own around every call.  Unlike the store's entries, these
 * are dropped again once nobody has reported the guest for a long time,
 * so the table holds the guests of the recent past and no more.
 */
#ifndef PVECG_RRD_OWNER_TABLE_H
#define PVECG_RRD_OWNER_TABLE_H

#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_owner_file.h"
#include "pvecg/rrd_store.h"
#include "rrd_keyed_table.h"

#include <stdbool.h>
#include <stddef.h>

#define OWNER_HOST_SIZE RRD_OWNER_HOST_SIZE
/* Hosts refused at once for one guest that are told apart (more take the
 * place of the one heard from least recently), hosts remembered as seen
 * colliding (more take the place of the one marked first), and pairs of
 * hosts whose collision over one guest is remembered as told (more take
 * the place of the oldest): limits against a flood of host names, far
 * above the hosts that share a VMID in any real setup. */
#define OWNER_RIVALS_MAX 64
#define OWNER_MARKS_MAX 64
#define OWNER_PAIRS_MAX 64

/* A host that reports the guest. */
struct owner_claim {
  bool in_use; /* false: a free rival slot, or the owner is unknown */
  char host[OWNER_HOST_SIZE];
  double first;    /* its first row since it began (again), s */
  double last;     /* its latest row, s */
  double interval; /* between its rows, s */
};

struct owner_pair {
  char a[OWNER_HOST_SIZE], b[OWNER_HOST_SIZE];
  double said_at; /* when their collision was last told, s */
};

/* A host seen colliding: never the file's owner until the operator says
 * otherwise, kept on disk. */
struct owner_mark {
  char host[OWNER_HOST_SIZE];
  long long since; /* s since the epoch */
};

/* What only a guest that two hosts report needs: arrays that grow one
 * element at a time, since most disputes have one rival and one pair. */
struct owner_dispute {
  struct owner_claim *rivals; /* hosts whose rows are refused */
  size_t rival_count;
  struct owner_pair *said; /* collisions told */
  size_t said_count;
  size_t said_next;         /* the slot the next one takes once full */
  struct owner_mark *marks; /* hosts seen colliding */
  size_t mark_count;
  size_t mark_next; /* the slot the next one takes once full */
};

struct owner_entry {
  struct rrd_keyed key;     /* first: the table's (layout, cluster, name) */
  struct owner_claim owner; /* the host whose rows are written */
  struct owner_dispute *dispute; /* NULL until another host reports it */
  double seen;                   /* the latest row of any host, s */
};

struct owner_table {
  struct rrd_keyed_table keyed;
};

/* An empty table.  Returns 0 or -ENOMEM. */
int owner_table_init(struct owner_table *table);

/* Frees the table and every entry in it. */
void owner_table_destroy(struct owner_table *table);

/* The entry of (layout, cluster, name), or NULL. */
struct owner_entry *owner_table_find(const struct owner_table *table,
                                     const struct rrd_layout *layout,
                                     const char *cluster, const char *name);

/* A new entry of (layout, cluster, name), zeroed but for its key (the
 * caller found none); NULL when out of memory.  cluster and name fit
 * RRD_STORE_NAME_MAX. */
struct owner_entry *owner_table_add(struct owner_table *table,
                                    const struct rrd_layout *layout,
                                    const char *cluster, const char *name);

/* A new rival slot (not in use) of e's dispute, made with the dispute if
 * need be; NULL at OWNER_RIVALS_MAX or when out of memory. */
struct owner_claim *owner_table_add_rival(struct owner_entry *e);

/* A new slot for a pair told in e's dispute (there is one); NULL at
 * OWNER_PAIRS_MAX or when out of memory. */
struct owner_pair *owner_table_add_pair(struct owner_entry *e);

/* A new slot for a host seen colliding in e's dispute, made with the
 * dispute if need be; NULL at OWNER_MARKS_MAX or when out of memory. */
struct owner_mark *owner_table_add_mark(struct owner_entry *e);

/* The mark of host in e, or NULL. */
struct owner_mark *owner_table_mark_of(const struct owner_entry *e,
                                       const char *host);

/* Removes host's mark from e (if any); returns whether there was one. */
bool owner_table_unmark(struct owner_entry *e, const char *host);

/* Forgets every mark, told pair and rival of e. */
void owner_table_settle(struct owner_entry *e);

/* Frees e, which is in the table. */
void owner_table_remove(struct owner_table *table, struct owner_entry *e);

/* Frees every entry for which stale(e, ctx) is true; returns how many. */
size_t owner_table_drop(struct owner_table *table,
                        bool (*stale)(const struct owner_entry *e, void *ctx),
                        void *ctx);

#endif

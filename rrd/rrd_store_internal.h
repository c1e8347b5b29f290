/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the store (rrd_store.c: the public API and its
 * locking; rrd_store_table.c: the table of entries, its memory and its
 * lock; rrd_store_file.c: one file's
 * lifecycle; rrd_store_dir.c: the layout directories; rrd_store_report.c:
 * outcomes, messages and the back-off of repeated problems) share.  An
 * entry's fields are guarded by its lock, the table by the table's.
 */
#ifndef PVECG_RRD_STORE_INTERNAL_H
#define PVECG_RRD_STORE_INTERNAL_H

#include "pvecg/rrd_store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define WHY_SIZE 256
/* Paths in messages are shortened beyond this, so that a very long data
 * directory cannot push the reason out of a message. */
#define SHOWN_SIZE 192

enum entry_state {
  ENTRY_UNCHECKED, /* not examined yet, or must be again */
  ENTRY_OK,        /* has our layout; last_update is the file's */
  ENTRY_FOREIGN,   /* another layout or not an RRD: never written */
  ENTRY_CONFLICT,  /* another writer updates it: left alone for a while */
};

struct entry {
  struct entry *next; /* hash chain */
  const struct rrd_layout *layout;
  char *path;             /* NULL when it would not fit in PATH_MAX */
  char shown[SHOWN_SIZE]; /* path for messages, shortened if very long */
  pthread_mutex_t lock;
  enum entry_state state;
  time_t last_update;
  bool have_identity; /* dev/ino of the file that was checked */
  dev_t dev;
  ino_t ino;
  time_t next_check;  /* ENTRY_FOREIGN/CONFLICT: when to examine it again */
  char why[WHY_SIZE]; /* ENTRY_FOREIGN: the difference last reported */
  time_t other_last;  /* ENTRY_CONFLICT: the other writer's last update */
  time_t next_verify; /* ENTRY_OK: when to ask whether someone else wrote */
  bool wrote;         /* a row of ours is in the file */
  bool dirty;         /* updated since rrd_store_take_dirty() */
  /* Problems since the last successful write. */
  bool troubled;
  bool trouble_reported;
  unsigned long problem_rows;
  /* Back-off of FAILED/STALE log lines; kept across recoveries so a file
   * that flaps does not log every row. */
  bool reporting;
  time_t last_problem;
  time_t next_report;
  unsigned long backoff;
  unsigned long suppressed;
  char name[RRD_STORE_NAME_MAX + 1];
};

/* The entries, one per (layout, name), chained in buckets (see
 * rrd_store_table.c).  Only that file touches the fields. */
struct store_table {
  pthread_mutex_t lock; /* the table only, never held during I/O */
  struct entry **buckets;
  size_t bucket_count; /* a power of two */
  size_t entry_count;
};

struct rrd_store {
  char *data_dir; /* without trailing '/' ("" for the root) */
  unsigned long recheck_seconds;
  unsigned long max_ahead_seconds;
  const struct rrd_access *access;
  atomic_ullong counts[RRD_STORE_OUTCOMES];
  struct store_table table;
};

/* rrd_store_report.c: fill res with an outcome and its message, and keep
 * the entry's problem bookkeeping. */
__attribute__((format(printf, 2, 3))) void
store_add_message(struct rrd_store_result *res, const char *fmt, ...);
void store_shorten_path(const char *path, char *buf, size_t size);
void store_set_outcome(struct rrd_store_result *res,
                       enum rrd_store_outcome outcome, bool report);
__attribute__((format(printf, 4, 5))) void
store_fail(struct entry *e, time_t now, struct rrd_store_result *res,
           const char *fmt, ...);
void store_stale(struct entry *e, time_t t, time_t now,
                 struct rrd_store_result *res);
void store_same_second(struct entry *e, time_t t, struct rrd_store_result *res);
void store_ahead(const struct rrd_store *store, struct entry *e, time_t t,
                 time_t now, struct rrd_store_result *res);
void store_foreign(const struct rrd_store *store, struct entry *e, int r,
                   const char *why, time_t now, struct rrd_store_result *res);
void store_still_foreign(struct entry *e, struct rrd_store_result *res);
void store_unavailable(const char *reason, struct rrd_store_result *res);
void store_conflict(const struct rrd_store *store, struct entry *e,
                    time_t other_last, time_t now,
                    struct rrd_store_result *res);
void store_found_ahead(const struct rrd_store *store, struct entry *e, time_t t,
                       time_t now, struct rrd_store_result *res);
void store_still_held(struct entry *e, struct rrd_store_result *res);
void store_succeed(struct entry *e, time_t t, bool created,
                   struct rrd_store_result *res);

/* rrd_store_dir.c: the directory of e's layout, made for local files;
 * fills res (FAILED) when it cannot be. */
int store_make_layout_dir(const struct rrd_store *store, struct entry *e,
                          time_t t, time_t now, struct rrd_store_result *res);

/* rrd_store_file.c: one row to the file behind e, with e->lock held. */
void store_write_entry(const struct rrd_store *store, struct entry *e, time_t t,
                       const char *row, time_t now,
                       struct rrd_store_result *res);

/* rrd_store_table.c: an empty table.  Returns 0 or -ENOMEM. */
int store_table_init(struct store_table *table);

/* Frees the table and every entry in it. */
void store_table_destroy(struct store_table *table);

/* The entry of (layout, name), made when missing; NULL when out of memory.
 * Entries live until the table is destroyed, so the pointer stays valid
 * after the table lock (taken here) is dropped. */
struct entry *store_entry_get(struct rrd_store *store,
                              const struct rrd_layout *layout,
                              const char *name);

/* Calls visit(e, count, ctx) for each entry, count being the number of
 * entries, with the table locked, until visit returns non-zero; returns
 * that, or 0.  visit may take e->lock: the lock order is table -> entry,
 * and nothing holds an entry lock while taking the table's. */
int store_table_each(struct store_table *table,
                     int (*visit)(struct entry *e, size_t count, void *ctx),
                     void *ctx);

#endif

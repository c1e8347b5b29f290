/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RRD files one writer keeps under a data directory (see rrd_store.h).
 *
 * One entry per (layout, name) remembers what the store learnt about that
 * file, so the common case — a checked file and a newer row — costs one
 * stat() and one update (rrd_update_r, or one request to rrdcached).  A global
 * mutex guards only the hash table; each entry has its own mutex, held across
 * that file's librrd calls, so files are written in parallel and one file's
 * rows in turn.  Entries live until the store is freed, so a pointer stays
 * valid after the table lock is dropped.
 *
 * This file holds the public API, the validation of the caller's rows and
 * the locking; the entries' table is rrd_store_table.c, a file's lifecycle
 * rrd_store_file.c (with rrd_store_dir.c for its directory), and outcomes
 * and messages rrd_store_report.c.
 */
#include "rrd_store_internal.h"

#include "pvecg/rrd_file.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_row.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names and paths -------------------------------------------------- */

int rrd_store_path(const struct rrd_store *store,
                   const struct rrd_layout *layout, const char *name, char *buf,
                   size_t size) {
  if (store == NULL)
    return -EINVAL;
  /* A daemon's base directory itself is "", and its paths stay relative;
   * a local "" is the root. */
  const char *dir = store->data_dir[0] == '\0' && !store->access->local
                        ? NULL
                        : store->data_dir;
  return rrd_file_name_path(dir, layout, name, buf, size);
}

/* ---- public ------------------------------------------------------------ */

/* Local files need an absolute directory; a daemon's paths are relative to
 * its base directory and must stay inside it. */
static bool data_dir_valid(const char *dir, const struct rrd_access *access) {
  if (access->local)
    return dir[0] == '/';
  if (dir[0] == '/')
    return false;
  for (const char *p = dir; *p != '\0';) {
    size_t len = strcspn(p, "/");
    if (len == 2 && strncmp(p, "..", 2) == 0)
      return false;
    p += len;
    p += *p == '/';
  }
  return true;
}

int rrd_store_new(const struct rrd_store_options *options,
                  struct rrd_store **ret) {
  if (options == NULL || options->data_dir == NULL || ret == NULL)
    return -EINVAL;
  const struct rrd_access *access =
      options->access != NULL ? options->access : &rrd_access_librrd;
  if (!data_dir_valid(options->data_dir, access))
    return -EINVAL;
  rrd_file_prepare_librrd(); /* before any writer thread calls librrd */
  struct rrd_store *store = calloc(1, sizeof(*store));
  if (store == NULL)
    return -ENOMEM;
  store->data_dir = strdup(options->data_dir);
  if (store->data_dir == NULL || store_table_init(&store->table) != 0) {
    free(store->data_dir);
    free(store);
    return -ENOMEM;
  }
  size_t len = strlen(store->data_dir);
  while (len > 0 && store->data_dir[len - 1] == '/')
    store->data_dir[--len] = '\0';
  store->recheck_seconds = options->recheck_seconds;
  store->max_ahead_seconds = options->max_ahead_seconds;
  store->access = access;
  *ret = store;
  return 0;
}

void rrd_store_free(struct rrd_store *store) {
  if (store == NULL)
    return;
  store_table_destroy(&store->table);
  free(store->data_dir);
  free(store);
}

static int invalid(struct rrd_store_result *res, const char *what) {
  store_set_outcome(res, RRD_STORE_FAILED, false);
  store_add_message(res, "Invalid row: %s; the row is dropped.", what);
  return -EINVAL;
}

/* The caller's mistakes, found before any entry or file is touched. */
static int validate(const struct rrd_store *store,
                    const struct rrd_layout *layout, const char *name, time_t t,
                    const double *values, size_t n,
                    struct rrd_store_result *res) {
  const char *problem = rrd_file_name_problem(name);
  if (store == NULL || layout == NULL)
    return invalid(res, "no store or layout");
  if (problem != NULL)
    return invalid(res, problem);
  if (n != layout->ds_count || (n > 0 && values == NULL))
    return invalid(res, "the number of values does not match the layout");
  /* t - 1 is the start of a new file, and librrd reads a start of 0 as
   * "now" */
  if (t < 2)
    return invalid(res, "the time is not after the epoch");
  return 0;
}

int rrd_store_write(struct rrd_store *store, const struct rrd_layout *layout,
                    const char *name, time_t t, const double *values, size_t n,
                    time_t now, struct rrd_store_result *res) {
  if (res == NULL)
    return -EINVAL;
  res->path[0] = '\0';
  int r = validate(store, layout, name, t, values, n, res);
  if (r != 0)
    return r;
  char row[RRD_ROW_SIZE];
  if (rrd_row_format(layout, t, values, n, row, sizeof(row)) < 0)
    return invalid(res, "the row cannot be formatted for the layout");
  struct entry *e = store_entry_get(store, layout, name);
  if (e == NULL) {
    store_set_outcome(res, RRD_STORE_FAILED, true);
    store_add_message(res, "Out of memory: the row for %s/%s is dropped.",
                      layout->name, name);
    return 0;
  }
  pthread_mutex_lock(&e->lock);
  if (e->path != NULL)
    store_write_entry(store, e, t, row, now, res);
  else
    store_fail(e, now, res,
               "Dropped the row for %lld for %s/%s: its path is longer than "
               "PATH_MAX (data directory %s).",
               (long long)t, layout->name, name, store->data_dir);
  pthread_mutex_unlock(&e->lock);
  atomic_fetch_add(&store->counts[res->outcome], 1);
  return 0;
}

void rrd_store_counts(struct rrd_store *store, struct rrd_store_counts *ret) {
  for (size_t i = 0; i < RRD_STORE_OUTCOMES; i++)
    ret->rows[i] = atomic_load(&store->counts[i]);
}

struct dirty_list {
  char **paths; /* NULL-terminated, for every entry of the table */
  size_t count;
  bool no_memory; /* for the list itself */
};

/* Adds e's path to the list when it is dirty; -ENOMEM leaves it dirty, for
 * the next call. */
static int take_if_dirty(struct entry *e, size_t entries, void *ctx) {
  struct dirty_list *list = ctx;
  if (list->paths == NULL &&
      (list->paths = calloc(entries + 1, sizeof(*list->paths))) == NULL) {
    list->no_memory = true;
    return -ENOMEM;
  }
  pthread_mutex_lock(&e->lock);
  int r = 0;
  if (e->dirty && (list->paths[list->count] = strdup(e->path)) == NULL)
    r = -ENOMEM;
  else if (e->dirty) {
    e->dirty = false;
    list->count++;
  }
  pthread_mutex_unlock(&e->lock);
  return r;
}

int rrd_store_take_dirty(struct rrd_store *store, char ***ret, size_t *count) {
  /* With the table locked, it waits for a row being written; the sink
   * calls it from the thread that writes them all. */
  struct dirty_list list = {0};
  store_table_each(&store->table, take_if_dirty, &list);
  if (list.paths == NULL && !list.no_memory)
    list.paths = calloc(1, sizeof(*list.paths)); /* no entries */
  if (list.paths == NULL)
    return -ENOMEM;
  *ret = list.paths; /* short of memory: the files taken so far */
  *count = list.count;
  return 0;
}

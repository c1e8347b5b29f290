/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RRD files one writer keeps under a data directory (see rrd_store.h).
 *
 * One entry per (layout, cluster, name) remembers what the store learnt about
 * that file, so the common case — a checked file and a newer row — costs one
 * update (rrd_update_r, or one request to rrdcached), and a stat of the
 * file's directory a second (rrd_store_dirs.c).  A global
 * mutex guards only the hash table; each entry has its own mutex, held across
 * that file's librrd calls, so files are written in parallel and one file's
 * rows in turn.  A row holds its entry from finding it until it is done,
 * so a pointer stays valid after the table lock is dropped; entries whose
 * rows have stopped (a guest gone) are let go (rrd_store_let_go), so what
 * the store keeps follows the files written now, not every file ever.
 *
 * This file holds the public API, the validation of the caller's rows and
 * the locking, and takes each row through the other three once (see
 * rrd_store_entry.h): the table finds the entry, rrd_store_entry.c applies
 * the row or finds why not, rrd_store_report.c says what happened.
 */
#include "rrd_store_entry.h"
#include "rrd_store_report.h"
#include "rrd_store_table.h"

#include "pvecg/rrd_file.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_row.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rrd_store {
  struct store_config config;
  struct store_dirs dirs;
  atomic_ullong counts[RRD_STORE_OUTCOMES];
  struct store_table table;
};

/* ---- names and paths -------------------------------------------------- */

int rrd_store_path(const struct rrd_store *store,
                   const struct rrd_layout *layout, const char *cluster,
                   const char *name, char *buf, size_t size) {
  if (store == NULL)
    return -EINVAL;
  /* A daemon's base directory itself is "", and its paths stay relative;
   * a local "" is the root. */
  const struct store_config *c = &store->config;
  const char *dir =
      c->data_dir[0] == '\0' && !c->access->local ? NULL : c->data_dir;
  return rrd_cluster_file_path(dir, cluster, layout, name, buf, size);
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
  struct store_config *c = &store->config;
  c->data_dir = strdup(options->data_dir);
  if (c->data_dir == NULL || store_table_init(&store->table) != 0) {
    free(c->data_dir);
    free(store);
    return -ENOMEM;
  }
  size_t len = strlen(c->data_dir);
  while (len > 0 && c->data_dir[len - 1] == '/')
    c->data_dir[--len] = '\0';
  c->recheck_seconds = options->recheck_seconds;
  c->max_ahead_seconds = options->max_ahead_seconds;
  c->access = access;
  store_dirs_init(&store->dirs);
  c->dirs = &store->dirs;
  *ret = store;
  return 0;
}

void rrd_store_free(struct rrd_store *store) {
  if (store == NULL)
    return;
  store_table_destroy(&store->table);
  store_dirs_destroy(&store->dirs);
  free(store->config.data_dir);
  free(store);
}

/* The caller's mistakes, found before any entry or file is touched. */
static int validate(const struct rrd_store *store,
                    const struct rrd_layout *layout, const char *cluster,
                    const char *name, time_t t, const double *values, size_t n,
                    struct rrd_store_result *res) {
  const char *problem = rrd_file_name_problem(name);
  if (store == NULL || layout == NULL)
    return store_report_invalid(res, "no store or layout");
  if (problem != NULL)
    return store_report_invalid(res, problem);
  if (cluster[0] != '\0' && rrd_cluster_name_problem(cluster) != NULL)
    return store_report_invalid(res, "the cluster cannot name a directory");
  if (n != layout->ds_count || (n > 0 && values == NULL))
    return store_report_invalid(
        res, "the number of values does not match the layout");
  /* t - 1 is the start of a new file, and librrd reads a start of 0 as
   * "now" */
  if (t < 2)
    return store_report_invalid(res, "the time is not after the epoch");
  return 0;
}

/* The entry of (layout, cluster, name), made with its path on its first
 * row. */
static struct entry *entry_of(struct rrd_store *store,
                              const struct rrd_layout *layout,
                              const char *cluster, const char *name, time_t t,
                              time_t now) {
  struct entry *e =
      store_table_find(&store->table, layout, cluster, name, t, now);
  if (e != NULL)
    return e;
  /* A path that does not fit stays NULL: every row then fails, logged
   * with back-off like any other failure. */
  char path[PATH_MAX];
  bool fits =
      rrd_store_path(store, layout, cluster, name, path, sizeof(path)) == 0;
  return store_table_add(&store->table, layout, cluster, name,
                         fits ? path : NULL, t, now);
}

/* What writing and preparing a row share: the caller's row checked and
 * formatted into text, and its file's entry, taken (given back when the
 * row is done with it).  Returns 1 with *ret set, 0 when the row is done
 * (no memory for the entry; res says so), or -EINVAL (res says why). */
static int admit(struct rrd_store *store, const struct rrd_layout *layout,
                 const char *cluster, const char *name, time_t t, time_t now,
                 const double *values, size_t n, char *text, struct entry **ret,
                 struct rrd_store_result *res) {
  cluster = cluster != NULL ? cluster : "";
  int r = validate(store, layout, cluster, name, t, values, n, res);
  if (r != 0)
    return r;
  if (rrd_row_format(layout, t, values, n, text, RRD_ROW_SIZE) < 0)
    return store_report_invalid(res,
                                "the row cannot be formatted for the layout");
  if ((*ret = entry_of(store, layout, cluster, name, t, now)) == NULL) {
    store_report_no_memory(res, layout, cluster, name);
    return 0;
  }
  return 1;
}

int rrd_store_write(struct rrd_store *store, const struct rrd_layout *layout,
                    const char *cluster, const char *name, time_t t,
                    const double *values, size_t n, time_t now,
                    struct rrd_store_result *res) {
  if (res == NULL)
    return -EINVAL;
  char text[RRD_ROW_SIZE];
  struct entry *e = NULL; /* set when admit() returns 1; -O3 cannot see it */
  int r = admit(store, layout, cluster, name, t, now, values, n, text, &e, res);
  if (r <= 0)
    return r;
  struct store_row row = {
      .config = &store->config, .e = e, .t = t, .text = text, .now = now};
  struct store_event ev;
  pthread_mutex_lock(&e->lock);
  store_entry_write(&row, &ev);
  store_report(&row, &ev, res);
  pthread_mutex_unlock(&e->lock);
  store_table_give_back(e);
  atomic_fetch_add(&store->counts[res->outcome], 1);
  return 0;
}

int rrd_store_prepare(struct rrd_store *store, const struct rrd_layout *layout,
                      const char *cluster, const char *name, time_t t,
                      const double *values, size_t n, time_t now,
                      struct rrd_store_pending *p,
                      struct rrd_store_result *res) {
  if (res == NULL || p == NULL)
    return -EINVAL;
  char text[RRD_ROW_SIZE];
  struct entry *e = NULL; /* set when admit() returns 1; -O3 cannot see it */
  int r = admit(store, layout, cluster, name, t, now, values, n, text, &e, res);
  if (r <= 0)
    return r;
  struct store_row row = {
      .config = &store->config, .e = e, .t = t, .text = text, .now = now};
  struct store_event ev;
  pthread_mutex_lock(&e->lock);
  if (e->file.pending) {
    pthread_mutex_unlock(&e->lock);
    store_table_give_back(e);
    return -EBUSY;
  }
  int ready = store_entry_prepare(&row, p->check, sizeof(p->check), &ev);
  if (ready) {
    e->file.pending = true;
    p->entry = e;
    p->t = t;
    p->created = ev.created;
    p->path = e->path;
    memcpy(p->row, text, sizeof(p->row));
  } else {
    store_report(&row, &ev, res);
  }
  pthread_mutex_unlock(&e->lock);
  if (!ready) { /* else held until the answer is in */
    store_table_give_back(e);
    atomic_fetch_add(&store->counts[res->outcome], 1);
  }
  return ready;
}

void rrd_store_complete(struct rrd_store *store, struct rrd_store_pending *p,
                        const struct rrd_store_answer *check,
                        const struct rrd_store_answer *answer, time_t now,
                        struct rrd_store_result *res) {
  struct entry *e = p->entry;
  struct store_row row = {
      .config = &store->config, .e = e, .t = p->t, .text = p->row, .now = now};
  struct store_event ev = {.created = p->created};
  pthread_mutex_lock(&e->lock);
  e->file.pending = false;
  store_entry_answered(&row, p->check[0] != '\0' ? check : NULL, answer, &ev);
  store_report(&row, &ev, res);
  pthread_mutex_unlock(&e->lock);
  store_table_give_back(e);
  atomic_fetch_add(&store->counts[res->outcome], 1);
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
  if (e->file.dirty && (list->paths[list->count] = strdup(e->path)) == NULL)
    r = -ENOMEM;
  else if (e->file.dirty) {
    e->file.dirty = false;
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

/* The dirty paths of the entries let go, for the caller to flush. */
struct gone_list {
  char **paths;
  size_t count, size;
};

static void note_gone(struct entry *e, void *ctx) {
  struct gone_list *list = ctx;
  if (!e->file.dirty || e->path == NULL)
    return;
  if (list->count == list->size) {
    size_t size = list->size ? 2 * list->size : 16;
    char **paths = realloc(list->paths, size * sizeof(*paths));
    if (paths == NULL)
      return; /* its rows reach the disk at the daemon's own pace */
    list->paths = paths;
    list->size = size;
  }
  list->paths[list->count] = e->path; /* taken over: e is freed next */
  e->path = NULL;
  list->count++;
}

size_t rrd_store_let_go(struct rrd_store *store, time_t now, char ***dirty,
                        size_t *count) {
  struct gone_list list = {0};
  size_t n = store_table_drop_idle(&store->table, now, note_gone, &list);
  if (dirty != NULL) {
    *dirty = list.paths;
    *count = list.count;
  } else {
    for (size_t i = 0; i < list.count; i++)
      free(list.paths[i]);
    free(list.paths);
  }
  return n;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One file's lifecycle in the store, for a row written with its entry's lock
 * held: examine it (check, or create it when missing), find it foreign or
 * updated by another writer and leave it alone for a while, ask it now and
 * then whether someone else wrote it, and apply the row.  The files are
 * reached only through the store's struct rrd_access; what each step
 * tells the caller is filled in by rrd_store_report.c.
 */
#include "rrd_store_internal.h"

#include "pvecg/rrd_file.h"
#include "pvecg/rrd_row.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>

#define ERR_SIZE 512

/* ---- the file behind an entry ------------------------------------------ */

static bool recheck_due(const struct rrd_store *store, const struct entry *e,
                        time_t now) {
  return now >= e->next_check ||
         e->next_check - now > (time_t)store->recheck_seconds;
}

static void remember_identity(const struct rrd_store *store, struct entry *e) {
  struct stat st;
  e->have_identity = store->access->local && stat(e->path, &st) == 0;
  e->dev = e->have_identity ? st.st_dev : 0;
  e->ino = e->have_identity ? st.st_ino : 0;
}

/* A file deleted or replaced since the check is examined again, so a file
 * someone else put in its place is never written into.  (Only for local
 * files: a daemon over TCP reports a missing file on the update.) */
static bool same_file(const struct rrd_store *store, const struct entry *e) {
  struct stat st;
  if (!store->access->local)
    return true;
  return e->have_identity && stat(e->path, &st) == 0 && st.st_dev == e->dev &&
         st.st_ino == e->ino;
}

/* The next row after this one asks the file whether someone else wrote
 * it meanwhile (pmxcfs writes every 10 s), later ones every
 * recheck_seconds. */
static void opened(const struct rrd_store *store, struct entry *e,
                   time_t last_update, time_t now) {
  e->state = ENTRY_OK;
  e->last_update = last_update;
  e->next_verify = now;
  remember_identity(store, e);
}

static int create_file(const struct rrd_store *store, struct entry *e, time_t t,
                       time_t now, struct rrd_store_result *res) {
  int r = store_make_layout_dir(store, e, t, now, res);
  if (r < 0)
    return r;
  time_t start = rrd_file_start_time(now);
  if (t - 1 < start)
    start = t - 1; /* rrd takes only rows newer than the start */
  char err[ERR_SIZE] = "";
  r = store->access->create(store->access->ctx, e->layout, e->path, start, err,
                            sizeof(err));
  if (r == -EEXIST)
    return r;
  if (r == -ENOTCONN)
    store_unavailable(err, res);
  else if (r < 0)
    store_fail(e, now, res,
               "Could not create %s: %s; the row for %lld is dropped.",
               e->shown, err, (long long)t);
  if (r < 0)
    return r;
  opened(store, e, start, now);
  return 0;
}

/* The file's last update through the access; a daemon out of reach is
 * reported in res (-ENOTCONN), other errors are left to the caller. */
static int file_last_update(const struct rrd_store *store,
                            const struct entry *e, time_t *last, char *err,
                            struct rrd_store_result *res) {
  int r = store->access->last_update(store->access->ctx, e->path, last, err,
                                     ERR_SIZE);
  if (r == -ENOTCONN)
    store_unavailable(err, res);
  return r;
}

static int load_last_update(const struct rrd_store *store, struct entry *e,
                            time_t now, struct rrd_store_result *res) {
  char err[ERR_SIZE] = "";
  time_t last;
  int r = file_last_update(store, e, &last, err, res);
  if (r == -ENOTCONN)
    return r;
  if (r != 0) {
    store_fail(e, now, res, "Could not read the last update time of %s: %s.",
               e->shown, err);
    return -EIO;
  }
  e->why[0] = '\0';
  /* Rows of ours are in the file and it has moved on past them since. */
  if (e->wrote && last > e->last_update) {
    store_conflict(store, e, last, now, res);
    return -EBUSY;
  }
  opened(store, e, last, now);
  return 0;
}

static int check_file(const struct rrd_store *store, struct entry *e,
                      char *why) {
  return store->access->check(store->access->ctx, e->layout, e->path, why,
                              WHY_SIZE);
}

/* Brings an unchecked or foreign entry to ENTRY_OK (creating the file when
 * missing); otherwise fills res and returns a negative errno. */
static int open_file(const struct rrd_store *store, struct entry *e, time_t t,
                     time_t now, struct rrd_store_result *res, bool *created) {
  char why[WHY_SIZE] = "";
  int r = check_file(store, e, why);
  if (r == -ENOENT) {
    r = create_file(store, e, t, now, res);
    if (r != -EEXIST) {
      *created = r == 0;
      return r;
    }
    /* another writer created it in between: examine theirs */
    r = check_file(store, e, why);
    if (r == -ENOENT) {
      store_fail(e, now, res,
                 "Could not create %s: it appeared and vanished "
                 "meanwhile; the row for %lld is dropped.",
                 e->shown, (long long)t);
      return r;
    }
  }
  if (r == -ENOTCONN) {
    store_unavailable(why, res);
    return r;
  }
  if (r == -EPROTO || r == -EIO) {
    store_foreign(store, e, r, why, now, res);
    return r;
  }
  if (r != 0) {
    store_fail(e, now, res,
               "Could not look up %s: %s; the row for %lld is dropped.",
               e->shown, why, (long long)t);
    return r;
  }
  return load_last_update(store, e, now, res);
}

/* ENTRY_CONFLICT, examined again: writing resumes only when nobody else has
 * updated the file since the last look and this row is newer than theirs.
 * Returns 0 to go on with the row, or fills res. */
static int conflict_over(const struct rrd_store *store, struct entry *e,
                         time_t t, time_t now, struct rrd_store_result *res) {
  char err[ERR_SIZE] = "";
  time_t last;
  int r = file_last_update(store, e, &last, err, res);
  if (r == -ENOTCONN)
    return r;
  e->next_check = now + (time_t)store->recheck_seconds;
  if (r == -ENOENT || r == -EIO) { /* gone or replaced: start afresh */
    e->state = ENTRY_UNCHECKED;
    e->wrote = false;
    return 0;
  }
  if (r != 0 || last != e->other_last || t <= last) {
    if (r == 0)
      e->other_last = e->last_update = last;
    store_still_held(e, res);
    return -EBUSY;
  }
  opened(store, e, last, now);
  return 0;
}

static bool verify_due(const struct rrd_store *store, const struct entry *e,
                       time_t now) {
  return now >= e->next_verify ||
         e->next_verify - now > (time_t)store->recheck_seconds;
}

/*
 * Asks the file whether someone else wrote it since our last row, without
 * changing it: an update of unknowns at the time of our last row must be
 * refused, and the refusal names the file's real last update (through a
 * daemon: including rows it has not written yet).  Two writers whose rows
 * interleave would otherwise never see a refusal.  Returns 0 to go on, or
 * fills res.
 */
static int verify(const struct rrd_store *store, struct entry *e, time_t t,
                  time_t now, struct rrd_store_result *res) {
  double unknown[RRD_LAYOUT_DS_MAX];
  for (size_t i = 0; i < e->layout->ds_count; i++)
    unknown[i] = NAN;
  char row[RRD_ROW_SIZE], err[ERR_SIZE] = "";
  time_t last = 0;
  e->next_verify = now + (time_t)store->recheck_seconds;
  if (rrd_row_format(e->layout, e->last_update, unknown, e->layout->ds_count,
                     row, sizeof(row)) < 0)
    return 0;
  int r = store->access->update(store->access->ctx, e->path, row, &last, err,
                                sizeof(err));
  if (r == -ENOTCONN) {
    store_unavailable(err, res);
    return r;
  }
  /* last == t: this very row is in already (a daemon applied it, then its
   * answer was lost); apply() sees that too. */
  if (r == -ESTALE && last > e->last_update && last != t) {
    store_conflict(store, e, last, now, res);
    return -EBUSY;
  }
  /* Refused at our own last update: nobody else wrote.  Accepted: the file
   * was behind our last row (a daemon restarted without its journal); a row
   * of unknowns there changes nothing.  Other errors show on the update. */
  if (r == 0)
    e->dirty = true;
  return 0;
}

static void apply(const struct rrd_store *store, struct entry *e, time_t t,
                  const char *row, time_t now, bool created,
                  struct rrd_store_result *res) {
  char err[ERR_SIZE] = "";
  time_t last = 0;
  int r = store->access->update(store->access->ctx, e->path, row, &last, err,
                                sizeof(err));
  if (r == -ENOTCONN) {
    store_unavailable(err, res);
    return;
  }
  /* Our own row, applied before a daemon's answer was lost. */
  if (r == -ESTALE && last == t)
    r = 0;
  if (r == -ESTALE && last > e->last_update) {
    store_conflict(store, e, last, now, res);
    return;
  }
  if (r != 0) {
    store_fail(e, now, res, "Could not write the row for %lld to %s: %s.",
               (long long)t, e->shown, err);
    /* The file may have been deleted, replaced, damaged or moved on by
     * another writer: the next row examines it again, creating it when
     * gone, or finding it FOREIGN. */
    e->state = ENTRY_UNCHECKED;
    return;
  }
  e->last_update = t;
  e->wrote = e->dirty = true;
  store_succeed(e, t, created, res);
}

void store_write_entry(const struct rrd_store *store, struct entry *e, time_t t,
                       const char *row, time_t now,
                       struct rrd_store_result *res) {
  snprintf(res->path, sizeof(res->path), "%s", e->path);
  if (store->max_ahead_seconds > 0 &&
      t - now > (time_t)store->max_ahead_seconds) {
    store_ahead(store, e, t, now, res);
    return;
  }
  bool due = recheck_due(store, e, now);
  if (e->state == ENTRY_FOREIGN && !due) {
    store_still_foreign(e, res);
    return;
  }
  if (e->state == ENTRY_CONFLICT) {
    if (!due) {
      store_still_held(e, res);
      return;
    }
    if (conflict_over(store, e, t, now, res) != 0)
      return;
  }
  if (e->state == ENTRY_OK && !same_file(store, e))
    e->state = ENTRY_UNCHECKED;
  bool created = false, opening = e->state != ENTRY_OK;
  if (opening && open_file(store, e, t, now, res, &created) != 0)
    return;
  if (t <= e->last_update) {
    if (e->wrote && t == e->last_update)
      store_same_second(e, t, res);
    else if (!e->wrote && t < e->last_update)
      store_found_ahead(store, e, t, now, res);
    else
      store_stale(e, t, now, res);
    return;
  }
  if (!opening && verify_due(store, e, now) &&
      verify(store, e, t, now, res) != 0)
    return;
  apply(store, e, t, row, now, created, res);
}

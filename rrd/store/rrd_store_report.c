/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the store tells its caller about a row (see rrd_store_report.h).
 * Repeated problems with one file are logged with a doubling back-off, a
 * file that is not ours once per reason, and a file's recovery once, when
 * its problem was logged.  rrd_store_entry.c decides what happened; this
 * file only says it.
 */
#include "rrd_store_report.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BACKOFF_FIRST 60
#define BACKOFF_MAX 3600
/* Paths in messages are shortened beyond this, so that a very long data
 * directory cannot push the reason out of a message. */
#define SHOWN_SIZE 192

/* ---- messages ---------------------------------------------------------- */

/* Appends to res->message; a message cut short ends in "..." so a log
 * reader knows. */
__attribute__((format(printf, 2, 3))) static void
add(struct rrd_store_result *res, const char *fmt, ...) {
  size_t used = strlen(res->message);
  size_t room = sizeof(res->message) - used;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(res->message + used, room, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n >= room)
    memcpy(res->message + sizeof(res->message) - 4, "...", 4);
}

static void set(struct rrd_store_result *res, enum rrd_store_outcome outcome,
                bool report) {
  res->outcome = outcome;
  res->report = report;
  res->message[0] = '\0';
}

/* path, or its start and end around "..." when it is longer than fits. */
static void shorten(const char *path, char *buf, size_t size) {
  size_t len = strlen(path);
  if (len < size)
    memcpy(buf, path, len + 1);
  else
    snprintf(buf, size, "%.*s...%s", (int)(size / 3), path,
             path + len - (size - size / 3 - 4));
}

/* ---- a file's problems ------------------------------------------------- */

/* Whether a FAILED/STALE/HELD row is logged: the first one, then after a
 * back-off that doubles from BACKOFF_FIRST to BACKOFF_MAX.  A quiet
 * back-off period starts over.  A clock that went back counts as due. */
static bool problem_due(struct entry_trouble *tr, time_t now,
                        unsigned long *suppressed) {
  bool fresh = tr->backoff == 0 ||
               now - tr->last_problem > (time_t)tr->backoff ||
               now < tr->last_problem;
  bool due = fresh || now >= tr->next_report ||
             tr->next_report - now > (time_t)tr->backoff;
  tr->last_problem = now;
  if (!due) {
    tr->suppressed++;
    return false;
  }
  *suppressed = fresh ? 0 : tr->suppressed;
  tr->backoff =
      fresh ? BACKOFF_FIRST
            : (tr->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : tr->backoff * 2);
  tr->next_report = now + (time_t)tr->backoff;
  tr->suppressed = 0;
  return true;
}

static void note_trouble(struct entry_trouble *tr, bool reported) {
  tr->reported = tr->reported || reported;
  tr->problem_rows++;
}

/* A problem's outcome, logged as problem_due() decides; its message
 * follows, then problem_end(). */
static unsigned long problem_begin(const struct store_row *row,
                                   enum rrd_store_outcome outcome,
                                   struct rrd_store_result *res) {
  unsigned long suppressed = 0;
  set(res, outcome, problem_due(&row->e->trouble, row->now, &suppressed));
  return suppressed;
}

static void problem_end(const struct store_row *row,
                        struct rrd_store_result *res,
                        unsigned long suppressed) {
  if (suppressed > 0)
    add(res,
        " %lu further problems with this file were not logged since the "
        "last report.",
        suppressed);
  note_trouble(&row->e->trouble, res->report);
}

/* ---- one message per event --------------------------------------------- */

static void report_failed(const struct store_row *row,
                          const struct store_event *ev, const char *shown,
                          struct rrd_store_result *res) {
  const struct entry *e = row->e;
  long long t = (long long)row->t;
  const char *d = ev->detail;
  char dir[PATH_MAX], dir_shown[SHOWN_SIZE];
  switch (ev->failure) {
  case STORE_FAIL_PATH:
    add(res,
        "Dropped the row for %lld for %s%s%s/%s: its path is longer than "
        "PATH_MAX (data directory %s).",
        t, e->key.cluster, e->key.cluster[0] ? "/" : "", e->key.layout->name,
        e->key.name, row->config->data_dir);
    break;
  case STORE_FAIL_DIRECTORY:
    snprintf(dir, sizeof(dir), "%s/%s%s%s", row->config->data_dir,
             e->key.cluster, e->key.cluster[0] ? "/" : "", e->key.layout->name);
    shorten(dir, dir_shown, sizeof(dir_shown));
    /* named with the file: one line per file, not several alike */
    add(res,
        "Could not create the directory %s for %s: %s; the row for %lld is "
        "dropped.",
        dir_shown, e->key.name, d, t);
    break;
  case STORE_FAIL_CREATE:
    add(res, "Could not create %s: %s; the row for %lld is dropped.", shown, d,
        t);
    break;
  case STORE_FAIL_VANISHED:
    add(res,
        "Could not create %s: it appeared and vanished meanwhile; the row "
        "for %lld is dropped.",
        shown, t);
    break;
  case STORE_FAIL_LOOKUP:
    add(res, "Could not look up %s: %s; the row for %lld is dropped.", shown, d,
        t);
    break;
  case STORE_FAIL_LAST_UPDATE:
    add(res, "Could not read the last update time of %s: %s.", shown, d);
    break;
  case STORE_FAIL_WRITE:
    add(res, "Could not write the row for %lld to %s: %s.", t, shown, d);
    break;
  }
}

static void report_foreign(const struct store_row *row,
                           const struct store_event *ev, const char *shown,
                           struct rrd_store_result *res) {
  set(res, RRD_STORE_FOREIGN, ev->new_reason);
  if (ev->not_rrd)
    add(res, "%s cannot be read as an RRD file (%s); ", shown, ev->detail);
  else
    add(res, "%s is not an RRD file of layout %s (%s); ", shown,
        row->e->key.layout->name, ev->detail);
  add(res,
      "the file is left untouched, nothing is written to it, and it is "
      "checked again every %lu s.",
      row->config->recheck_seconds);
  note_trouble(&row->e->trouble, res->report);
}

static void report_held(const struct store_row *row,
                        const struct store_event *ev, const char *shown,
                        struct rrd_store_result *res) {
  unsigned long suppressed = problem_begin(row, RRD_STORE_HELD, res);
  add(res,
      "Another writer is updating %s: its last update is %lld, newer than "
      "%s (%lld). On a Proxmox VE node this is pmxcfs writing the same "
      "file; give pve_rrd a DataDir of its own. Nothing is written to this "
      "file until nobody else has updated it for %lu s; rows meanwhile are "
      "dropped and counted.",
      shown, (long long)ev->theirs,
      ev->ours_is_row ? "this row" : "the last row written here",
      (long long)ev->ours, row->config->recheck_seconds);
  problem_end(row, res, suppressed);
}

/* Outcomes that do not change how a file's problems are counted or
 * logged: the daemon away, or a second row for the second of our last. */
static void report_quiet(const struct store_row *row,
                         const struct store_event *ev, const char *shown,
                         struct rrd_store_result *res) {
  if (ev->kind == STORE_UNAVAILABLE) {
    /* not a problem of this file; the caller keeps the row and says why */
    set(res, RRD_STORE_UNAVAILABLE, false);
    add(res, "%s", ev->detail[0] != '\0' ? ev->detail : "no reason given");
    return;
  }
  /* collectd's reads can come less than a second apart (its first two, or
   * two on a loaded host), and a row the daemon applied before its answer
   * was lost comes again; an RRD holds one row per second */
  set(res, RRD_STORE_STALE, false);
  add(res,
      "Dropped the row for %lld for %s: the file has a row of ours for that "
      "second.",
      (long long)row->t, shown);
}

/* A row for a foreign or held file between examinations: no file access,
 * no line. */
static void report_still(const struct store_row *row,
                         const struct store_event *ev, const char *shown,
                         struct rrd_store_result *res) {
  const struct entry_file *f = &row->e->file;
  if (ev->kind == STORE_STILL_FOREIGN) {
    set(res, RRD_STORE_FOREIGN, false);
    add(res,
        "Dropped a row for %s: the file does not have layout %s (%s) and is "
        "left untouched.",
        shown, row->e->key.layout->name, f->why);
  } else {
    set(res, RRD_STORE_HELD, false);
    add(res,
        "Dropped a row for %s: another writer is updating it (last update "
        "%lld).",
        shown, (long long)f->other_last);
  }
  note_trouble(&row->e->trouble, false);
}

/* Rows dropped for their time, with the back-off. */
static void report_dropped(const struct store_row *row,
                           const struct store_event *ev, const char *shown,
                           struct rrd_store_result *res) {
  unsigned long suppressed = problem_begin(row, RRD_STORE_STALE, res);
  if (ev->kind == STORE_AHEAD)
    add(res,
        "Dropped the row for %lld for %s: it is %lld s ahead of this host's "
        "clock (at most %lu s are accepted); is the sender's clock right?",
        (long long)row->t, shown, (long long)(row->t - row->now),
        row->config->max_ahead_seconds);
  else
    add(res,
        "Dropped the row for %lld for %s: it is not newer than the file's "
        "last update at %lld; another writer may be updating this file.",
        (long long)row->t, shown, (long long)row->e->file.last_update);
  problem_end(row, res, suppressed);
}

static void report_applied(const struct store_row *row,
                           const struct store_event *ev, const char *shown,
                           struct rrd_store_result *res) {
  struct entry_trouble *tr = &row->e->trouble;
  long long t = (long long)row->t;
  if (tr->problem_rows == 0) {
    set(res, ev->created ? RRD_STORE_CREATED : RRD_STORE_WRITTEN, false);
    if (ev->created)
      add(res, "Created %s with layout %s and wrote the row for %lld.", shown,
          row->e->key.layout->name, t);
    else
      add(res, "Wrote the row for %lld to %s.", t, shown);
    return;
  }
  /* Only a problem that was logged needs its end logged. */
  set(res, RRD_STORE_RECOVERED, tr->reported);
  add(res,
      "%s is written again%s: the row for %lld was applied after %lu rows "
      "that could not be.",
      shown, ev->created ? " (created anew)" : "", t, tr->problem_rows);
  tr->reported = false;
  tr->problem_rows = 0;
}

void store_report(const struct store_row *row, const struct store_event *ev,
                  struct rrd_store_result *res) {
  char shown[SHOWN_SIZE] = "";
  if (row->e->path != NULL)
    shorten(row->e->path, shown, sizeof(shown));
  switch (ev->kind) {
  case STORE_APPLIED:
    report_applied(row, ev, shown, res);
    break;
  case STORE_NOT_NEWER:
  case STORE_AHEAD:
    report_dropped(row, ev, shown, res);
    break;
  case STORE_SAME_SECOND:
  case STORE_UNAVAILABLE:
    report_quiet(row, ev, shown, res);
    break;
  case STORE_FOREIGN:
    report_foreign(row, ev, shown, res);
    break;
  case STORE_STILL_FOREIGN:
  case STORE_STILL_HELD:
    report_still(row, ev, shown, res);
    break;
  case STORE_HELD:
    report_held(row, ev, shown, res);
    break;
  case STORE_FAILED: {
    unsigned long suppressed = problem_begin(row, RRD_STORE_FAILED, res);
    report_failed(row, ev, shown, res);
    problem_end(row, res, suppressed);
    break;
  }
  }
}

int store_report_invalid(struct rrd_store_result *res, const char *what) {
  set(res, RRD_STORE_FAILED, false);
  add(res, "Invalid row: %s; the row is dropped.", what);
  return -EINVAL;
}

void store_report_no_memory(struct rrd_store_result *res,
                            const struct rrd_layout *layout,
                            const char *cluster, const char *name) {
  set(res, RRD_STORE_FAILED, true);
  add(res, "Out of memory: the row for %s%s%s/%s is dropped.", cluster,
      cluster[0] ? "/" : "", layout->name, name);
}

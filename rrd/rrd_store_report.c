/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the store tells its caller about a row (see rrd_store.h): the
 * outcome, the message for the log, and whether to log it now.  Repeated
 * problems with one file are logged with a doubling back-off, a file that
 * is not ours or that another writer updates once per reason, and a file's
 * recovery once, when its problem was logged.  The bookkeeping for that
 * lives in the entry (rrd_store_internal.h); rrd_store_file.c decides which
 * of these a row gets.
 */
#include "rrd_store_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BACKOFF_FIRST 60
#define BACKOFF_MAX 3600

/* ---- messages ---------------------------------------------------------- */

/* Appends to res->message; a message cut short ends in "..." so a log
 * reader knows. */
__attribute__((format(printf, 2, 0))) static void
vadd_message(struct rrd_store_result *res, const char *fmt, va_list ap) {
  size_t used = strlen(res->message);
  size_t room = sizeof(res->message) - used;
  int n = vsnprintf(res->message + used, room, fmt, ap);
  if (n >= 0 && (size_t)n >= room)
    memcpy(res->message + sizeof(res->message) - 4, "...", 4);
}

__attribute__((format(printf, 2, 3))) void
store_add_message(struct rrd_store_result *res, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vadd_message(res, fmt, ap);
  va_end(ap);
}

/* path, or its start and end around "..." when it is longer than fits. */
void store_shorten_path(const char *path, char *buf, size_t size) {
  size_t len = strlen(path);
  if (len < size)
    memcpy(buf, path, len + 1);
  else
    snprintf(buf, size, "%.*s...%s", (int)(size / 3), path,
             path + len - (size - size / 3 - 4));
}

void store_set_outcome(struct rrd_store_result *res,
                       enum rrd_store_outcome outcome, bool report) {
  res->outcome = outcome;
  res->report = report;
  res->message[0] = '\0';
}

/* ---- problem bookkeeping ----------------------------------------------- */

/* Whether a FAILED/STALE row is logged: the first one, then after a back-off
 * that doubles from BACKOFF_FIRST to BACKOFF_MAX.  A quiet back-off period
 * starts over.  A clock that went back counts as due. */
static bool problem_due(struct entry *e, time_t now,
                        unsigned long *suppressed) {
  bool fresh = !e->reporting || now - e->last_problem > (time_t)e->backoff ||
               now < e->last_problem;
  bool due = fresh || now >= e->next_report ||
             e->next_report - now > (time_t)e->backoff;
  e->last_problem = now;
  if (!due) {
    e->suppressed++;
    return false;
  }
  *suppressed = fresh ? 0 : e->suppressed;
  e->backoff =
      fresh ? BACKOFF_FIRST
            : (e->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : e->backoff * 2);
  e->next_report = now + (time_t)e->backoff;
  e->suppressed = 0;
  e->reporting = true;
  return true;
}

static void note_trouble(struct entry *e, bool reported) {
  e->troubled = true;
  e->trouble_reported = e->trouble_reported || reported;
  e->problem_rows++;
}

static void add_suppressed(struct rrd_store_result *res,
                           unsigned long suppressed) {
  if (suppressed > 0)
    store_add_message(
        res,
        " %lu further problems with this file were not logged since "
        "the last report.",
        suppressed);
}

/* FAILED with the message given; logged as problem_due() decides. */
__attribute__((format(printf, 4, 5))) void
store_fail(struct entry *e, time_t now, struct rrd_store_result *res,
           const char *fmt, ...) {
  unsigned long suppressed = 0;
  bool report = problem_due(e, now, &suppressed);
  store_set_outcome(res, RRD_STORE_FAILED, report);
  va_list ap;
  va_start(ap, fmt);
  vadd_message(res, fmt, ap);
  va_end(ap);
  add_suppressed(res, suppressed);
  note_trouble(e, report);
}

void store_stale(struct entry *e, time_t t, time_t now,
                 struct rrd_store_result *res) {
  unsigned long suppressed = 0;
  bool report = problem_due(e, now, &suppressed);
  store_set_outcome(res, RRD_STORE_STALE, report);
  store_add_message(
      res,
      "Dropped the row for %lld for %s: it is not newer than the "
      "file's last update at %lld; another writer may be updating "
      "this file.",
      (long long)t, e->shown, (long long)e->last_update);
  add_suppressed(res, suppressed);
  note_trouble(e, report);
}

/* A second row for the second of our last one: collectd's reads can come
 * less than a second apart (its first two, or two on a loaded host), and
 * a row the daemon applied before its answer was lost comes again.  An RRD
 * holds one row per second, the file has ours: nothing to report. */
void store_same_second(struct entry *e, time_t t,
                       struct rrd_store_result *res) {
  store_set_outcome(res, RRD_STORE_STALE, false);
  store_add_message(res,
                    "Dropped the row for %lld for %s: the file has a row of "
                    "ours for that second.",
                    (long long)t, e->shown);
}

/* A row from a clock ahead of ours by more than the store allows: logged
 * like a stale row, with the back-off, and nothing is touched. */
void store_ahead(const struct rrd_store *store, struct entry *e, time_t t,
                 time_t now, struct rrd_store_result *res) {
  unsigned long suppressed = 0;
  bool report = problem_due(e, now, &suppressed);
  store_set_outcome(res, RRD_STORE_STALE, report);
  store_add_message(res,
                    "Dropped the row for %lld for %s: it is %lld s ahead of "
                    "this host's clock (at most %lu s are accepted); is the "
                    "sender's clock right?",
                    (long long)t, e->shown, (long long)(t - now),
                    store->max_ahead_seconds);
  add_suppressed(res, suppressed);
  note_trouble(e, report);
}

/* The file is not ours: remember why, log when the reason is new. */
void store_foreign(const struct rrd_store *store, struct entry *e, int r,
                   const char *why, time_t now, struct rrd_store_result *res) {
  if (why[0] == '\0')
    why = "unknown difference";
  bool report = strcmp(e->why, why) != 0;
  snprintf(e->why, sizeof(e->why), "%s", why);
  e->state = ENTRY_FOREIGN;
  e->next_check = now + (time_t)store->recheck_seconds;
  store_set_outcome(res, RRD_STORE_FOREIGN, report);
  if (r == -EPROTO)
    store_add_message(res, "%s is not an RRD file of layout %s (%s); ",
                      e->shown, e->layout->name, why);
  else
    store_add_message(res, "%s cannot be read as an RRD file (%s); ", e->shown,
                      why);
  store_add_message(
      res,
      "the file is left untouched, nothing is written to it, and it "
      "is checked again every %lu s.",
      store->recheck_seconds);
  note_trouble(e, report);
}

/* A row for a foreign file between re-checks: no file access at all. */
void store_still_foreign(struct entry *e, struct rrd_store_result *res) {
  store_set_outcome(res, RRD_STORE_FOREIGN, false);
  store_add_message(
      res,
      "Dropped a row for %s: the file does not have layout %s (%s) "
      "and is left untouched.",
      e->shown, e->layout->name, e->why);
  note_trouble(e, false);
}

/* The daemon could not be reached: not a problem of this file, so nothing
 * is counted against it; the caller keeps the row and tries again.  The
 * message is only the reason, for the caller's own line. */
void store_unavailable(const char *reason, struct rrd_store_result *res) {
  store_set_outcome(res, RRD_STORE_UNAVAILABLE, false);
  store_add_message(res, "%s", reason[0] != '\0' ? reason : "no reason given");
}

/* Someone else writes rows newer than ours into the file (pmxcfs on a
 * Proxmox VE node, or a second collector): stop writing it rather than
 * interleave rows with theirs or flood the log with refusals. */
static void hold(const struct rrd_store *store, struct entry *e,
                 time_t other_last, time_t ours, bool ours_is_row, time_t now,
                 struct rrd_store_result *res) {
  unsigned long suppressed = 0;
  bool report = problem_due(e, now, &suppressed);
  e->state = ENTRY_CONFLICT;
  e->other_last = other_last;
  e->last_update = other_last;
  e->next_check = now + (time_t)store->recheck_seconds;
  store_set_outcome(res, RRD_STORE_CONFLICT, report);
  store_add_message(
      res,
      "Another writer is updating %s: its last update is %lld, newer "
      "than %s (%lld). On a Proxmox VE node this is pmxcfs writing "
      "the same file; give pve_rrd a DataDir of its own. Nothing is "
      "written to this file until nobody else has updated it for "
      "%lu s; rows meanwhile are dropped and counted.",
      e->shown, (long long)other_last,
      ours_is_row ? "this row" : "the last row written here", (long long)ours,
      store->recheck_seconds);
  add_suppressed(res, suppressed);
  note_trouble(e, report);
}

void store_conflict(const struct rrd_store *store, struct entry *e,
                    time_t other_last, time_t now,
                    struct rrd_store_result *res) {
  hold(store, e, other_last, e->last_update, false, now, res);
}

/* A file found ahead of the first row written to it: older rows may come
 * from a collector restarted with its clock set back, but rows that keep
 * falling behind come from someone else writing the file. */
void store_found_ahead(const struct rrd_store *store, struct entry *e, time_t t,
                       time_t now, struct rrd_store_result *res) {
  hold(store, e, e->last_update, t, true, now, res);
}

/* A row for a file another writer updates, between examinations. */
void store_still_held(struct entry *e, struct rrd_store_result *res) {
  store_set_outcome(res, RRD_STORE_CONFLICT, false);
  store_add_message(res,
                    "Dropped a row for %s: another writer is updating it (last "
                    "update %lld).",
                    e->shown, (long long)e->other_last);
  note_trouble(e, false);
}

void store_succeed(struct entry *e, time_t t, bool created,
                   struct rrd_store_result *res) {
  if (!e->troubled) {
    store_set_outcome(res, created ? RRD_STORE_CREATED : RRD_STORE_WRITTEN,
                      false);
    if (created)
      store_add_message(res,
                        "Created %s with layout %s and wrote the row for %lld.",
                        e->shown, e->layout->name, (long long)t);
    else
      store_add_message(res, "Wrote the row for %lld to %s.", (long long)t,
                        e->shown);
    return;
  }
  /* Only a problem that was logged needs its end logged. */
  store_set_outcome(res, RRD_STORE_RECOVERED, e->trouble_reported);
  store_add_message(
      res,
      "%s is written again%s: the row for %lld was applied after %lu "
      "rows that could not be.",
      e->shown, created ? " (created anew)" : "", (long long)t,
      e->problem_rows);
  e->troubled = e->trouble_reported = false;
  e->problem_rows = 0;
}

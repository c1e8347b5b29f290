/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A row at its file (see rrd_store_entry.h): the only code that changes
 * what the store knows of a file.  It examines the file (checks it, or
 * creates it with its directory when missing), finds it foreign or updated
 * by another writer and holds off for a while, checks now and then
 * whether someone else wrote it (the writer check), and applies the row; what
 * happened goes back as one event, which rrd_store_report.c turns into words.
 * The files are reached only through the store's struct rrd_access.
 */
#include "rrd_store_entry.h"

#include "pvecg/rrd_row.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---- events ------------------------------------------------------------ */

static int event(struct store_event *ev, enum store_event_kind kind,
                 const char *detail) {
  ev->kind = kind;
  snprintf(ev->detail, sizeof(ev->detail), "%s", detail ? detail : "");
  return -1;
}

static int failed(struct store_event *ev, enum store_failure failure,
                  const char *detail) {
  ev->failure = failure;
  return event(ev, STORE_FAILED, detail);
}

/* The daemon could not be reached: nothing is known about the file. */
static int unavailable(struct store_event *ev, const char *reason) {
  return event(ev, STORE_UNAVAILABLE, reason);
}

/* ---- what the store knows of the file ---------------------------------- */

static bool recheck_due(const struct store_row *row) {
  const struct entry_file *f = &row->e->file;
  return row->now >= f->next_check ||
         f->next_check - row->now > (time_t)row->config->recheck_seconds;
}

/* The epoch of the file's directory now (rrd_store_dirs.h), taken before
 * the file is stat'ed: a change after it moves the epoch.  0: unknown. */
static uint64_t dir_epoch(const struct store_row *row) {
  struct entry_file *f = &row->e->file;
  if (f->dir == NULL)
    f->dir = store_dirs_of(row->config->dirs, row->e->path);
  return f->dir != NULL ? store_dirs_epoch(row->config->dirs, f->dir, row->now)
                        : 0;
}

static void remember_identity(const struct store_row *row) {
  struct entry_file *f = &row->e->file;
  struct stat st;
  uint64_t epoch = row->config->access->local ? dir_epoch(row) : 0;
  f->have_identity = row->config->access->local && stat(row->e->path, &st) == 0;
  f->dev = f->have_identity ? st.st_dev : 0;
  f->ino = f->have_identity ? st.st_ino : 0;
  f->seen_in_epoch = f->have_identity ? epoch : 0;
}

/* A file deleted or replaced since the check is examined again, so a file
 * someone else put in its place is never written into: stat'ed again when
 * its directory may have changed since it was last found the same.  (Only
 * for local files: a daemon over TCP reports a missing file on the
 * update.) */
static bool same_file(const struct store_row *row) {
  struct entry_file *f = &row->e->file;
  struct stat st;
  if (!row->config->access->local)
    return true;
  if (!f->have_identity)
    return false;
  uint64_t epoch = dir_epoch(row);
  if (epoch != 0 && epoch == f->seen_in_epoch)
    return true;
  bool same = stat(row->e->path, &st) == 0 && st.st_dev == f->dev &&
              st.st_ino == f->ino;
  f->seen_in_epoch = same ? epoch : 0;
  return same;
}

/* The file has our layout and its last update is last.  The next row
 * after this one checks whether someone else wrote it meanwhile (pmxcfs
 * writes every 10 s), later ones every recheck_seconds. */
static void trust(const struct store_row *row, time_t last) {
  struct entry_file *f = &row->e->file;
  f->state = ENTRY_OK;
  f->last_update = last;
  f->next_verify = row->now;
  remember_identity(row);
}

/* Someone else writes rows newer than ours into the file (pmxcfs on a
 * Proxmox VE node, or a second collector): stop writing it rather than
 * interleave rows with theirs or flood the log with refusals. */
static int hold(const struct store_row *row, time_t theirs, time_t ours,
                bool ours_is_row, struct store_event *ev) {
  struct entry_file *f = &row->e->file;
  f->state = ENTRY_HELD;
  f->other_last = f->last_update = theirs;
  f->next_check = row->now + (time_t)row->config->recheck_seconds;
  ev->theirs = theirs;
  ev->ours = ours;
  ev->ours_is_row = ours_is_row;
  return event(ev, STORE_HELD, NULL);
}

/* The file is not ours: remember why, and whether the reason is new. */
static int found_foreign(const struct store_row *row, int r, const char *why,
                         struct store_event *ev) {
  struct entry_file *f = &row->e->file;
  if (why[0] == '\0')
    why = "unknown difference";
  ev->new_reason = strcmp(f->why, why) != 0;
  ev->not_rrd = r != -EPROTO;
  snprintf(f->why, sizeof(f->why), "%s", why);
  f->state = ENTRY_FOREIGN;
  f->next_check = row->now + (time_t)row->config->recheck_seconds;
  return event(ev, STORE_FOREIGN, why);
}

/* ---- the layout's directory -------------------------------------------- */

/* One level of make_dirs(): an existing directory is fine. */
static int make_dir(const char *path) {
  if (mkdir(path, 0750) == 0)
    return 0;
  int r = -errno;
  struct stat st;
  if (stat(path, &st) != 0)
    return r == -EEXIST ? -errno : r;
  return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* mkdir -p with mode 0750 (pmxcfs's directories under its umask 027). */
static int make_dirs(const char *path) {
  char buf[PATH_MAX];
  int n = snprintf(buf, sizeof(buf), "%s", path);
  if (n < 0 || (size_t)n >= sizeof(buf))
    return -ENAMETOOLONG;
  for (char *p = buf + 1; *p != '\0'; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    int r = make_dir(buf);
    *p = '/';
    if (r < 0)
      return r;
  }
  return make_dir(buf);
}

/* The layout's directory (and its cluster's), made here for local files
 * (rrdcached over a unix socket resolves paths on this side too), so a
 * fresh DataDir needs no preparation; a daemon over TCP makes its own
 * (rrdcached -R). */
static int make_layout_dir(const struct store_row *row,
                           struct store_event *ev) {
  if (!row->config->access->local)
    return 0;
  char dir[PATH_MAX], text[128];
  const struct entry *e = row->e;
  int n = snprintf(dir, sizeof(dir), "%s/%s%s%s", row->config->data_dir,
                   e->key.cluster, e->key.cluster[0] ? "/" : "",
                   e->key.layout->name);
  int r = n < 0 || (size_t)n >= sizeof(dir) ? -ENAMETOOLONG : make_dirs(dir);
  if (r < 0)
    failed(ev, STORE_FAIL_DIRECTORY, strerror_r(-r, text, sizeof(text)));
  return r;
}

/* ---- examining the file ------------------------------------------------ */

time_t store_start_time(time_t now) {
  struct tm tm;
  if (localtime_r(&now, &tm) == NULL)
    return now;
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1; /* midnight may be on the other side of a DST change */
  time_t t = mktime(&tm);
  return t == (time_t)-1 ? now : t;
}

static int create_file(const struct store_row *row, struct store_event *ev) {
  const struct rrd_access *access = row->config->access;
  int r = make_layout_dir(row, ev);
  if (r < 0)
    return r;
  time_t start = store_start_time(row->now);
  if (row->t - 1 < start)
    start = row->t - 1; /* rrd takes only rows newer than the start */
  char err[512] = "";
  r = access->create(access->ctx, row->e->key.layout, row->e->path, start, err,
                     sizeof(err));
  if (r == -EEXIST)
    return r;
  if (r == -ENOTCONN)
    return unavailable(ev, err);
  if (r < 0)
    return failed(ev, STORE_FAIL_CREATE, err);
  ev->created = true;
  trust(row, start);
  return 0;
}

static int read_last_update(const struct store_row *row, time_t *last,
                            char *err, size_t err_size) {
  const struct rrd_access *access = row->config->access;
  return access->last_update(access->ctx, row->e->path, last, err, err_size);
}

/* A checked file's last update, unless it shows another writer. */
static int load_last_update(const struct store_row *row,
                            struct store_event *ev) {
  struct entry_file *f = &row->e->file;
  char err[512] = "";
  time_t last;
  int r = read_last_update(row, &last, err, sizeof(err));
  if (r == -ENOTCONN)
    return unavailable(ev, err);
  if (r != 0)
    return failed(ev, STORE_FAIL_LAST_UPDATE, err);
  f->why[0] = '\0';
  /* Rows of ours are in the file and it has moved on past them since. */
  if (f->wrote && last > f->last_update)
    return hold(row, last, f->last_update, false, ev);
  trust(row, last);
  return 0;
}

static int check_file(const struct store_row *row, char *why) {
  const struct rrd_access *access = row->config->access;
  return access->check(access->ctx, row->e->key.layout, row->e->path, why,
                       STORE_WHY_SIZE);
}

/* Brings an unchecked or foreign file to ENTRY_OK, creating it when
 * missing; otherwise fills ev and returns non-zero. */
static int examine(const struct store_row *row, struct store_event *ev) {
  char why[STORE_WHY_SIZE] = "";
  int r = check_file(row, why);
  if (r == -ENOENT) {
    r = create_file(row, ev);
    if (r != -EEXIST)
      return r;
    /* another writer created it in between: examine theirs */
    r = check_file(row, why);
    if (r == -ENOENT)
      return failed(ev, STORE_FAIL_VANISHED, NULL);
  }
  if (r == -ENOTCONN)
    return unavailable(ev, why);
  if (r == -EPROTO || r == -EIO)
    return found_foreign(row, r, why, ev);
  if (r != 0)
    return failed(ev, STORE_FAIL_LOOKUP, why);
  return load_last_update(row, ev);
}

/* A held file, examined again: writing resumes only when nobody else has
 * updated it since the last look and this row is newer than theirs.
 * Returns 0 to go on with the row, or fills ev. */
static int hold_over(const struct store_row *row, struct store_event *ev) {
  struct entry_file *f = &row->e->file;
  char err[512] = "";
  time_t last;
  int r = read_last_update(row, &last, err, sizeof(err));
  if (r == -ENOTCONN)
    return unavailable(ev, err);
  f->next_check = row->now + (time_t)row->config->recheck_seconds;
  if (r == -ENOENT || r == -EIO) { /* gone or replaced: start afresh */
    f->state = ENTRY_UNCHECKED;
    f->wrote = false;
    return 0;
  }
  if (r != 0 || last != f->other_last || row->t <= last) {
    if (r == 0)
      f->other_last = f->last_update = last;
    return event(ev, STORE_STILL_HELD, NULL);
  }
  trust(row, last);
  return 0;
}

/* ---- checking and writing ---------------------------------------------- */

static bool verify_due(const struct store_row *row) {
  const struct entry_file *f = &row->e->file;
  return row->now >= f->next_verify ||
         f->next_verify - row->now > (time_t)row->config->recheck_seconds;
}

/*
 * The writer check: whether someone else wrote the file since our last row,
 * which does not change it: an update of unknowns at the time of our last
 * row must be refused, and the refusal names the file's real last update
 * (through a daemon: including rows it has not written yet).  Two writers
 * whose rows interleave would otherwise never see a refusal.  Returns
 * rrd_row_format's result.
 */
static int writer_check_text(const struct store_row *row, char *text,
                             size_t size) {
  const struct rrd_layout *layout = row->e->key.layout;
  double unknown[RRD_LAYOUT_DS_MAX];
  for (size_t i = 0; i < layout->ds_count; i++)
    unknown[i] = NAN;
  row->e->file.next_verify = row->now + (time_t)row->config->recheck_seconds;
  return rrd_row_format(layout, row->e->file.last_update, unknown,
                        layout->ds_count, text, size);
}

/* What the answer to the writer check says.  Returns 0 to go on, or fills ev.
 */
static int writer_checked(const struct store_row *row, int r, time_t last,
                          const char *err, struct store_event *ev) {
  struct entry_file *f = &row->e->file;
  if (r == -ENOTCONN)
    return unavailable(ev, err);
  /* last == t: this very row is in already (a daemon applied it, then its
   * answer was lost); the row's own answer shows that too. */
  if (r == -ESTALE && last > f->last_update && last != row->t)
    return hold(row, last, f->last_update, false, ev);
  /* Refused at our own last update: nobody else wrote.  Accepted: the file
   * was behind our last row (a daemon restarted without its journal); a row
   * of unknowns there changes nothing.  Other errors show on the update. */
  if (r == 0)
    f->dirty = true;
  return 0;
}

/* The writer check in a round trip of its own.  Returns 0 to go on, or fills
 * ev. */
static int check_writer_alone(const struct store_row *row,
                              struct store_event *ev) {
  const struct rrd_access *access = row->config->access;
  char text[RRD_STORE_CHECK_SIZE], err[512] = "";
  time_t last = 0;
  if (writer_check_text(row, text, sizeof(text)) < 0)
    return 0;
  int r =
      access->update(access->ctx, row->e->path, text, &last, err, sizeof(err));
  return writer_checked(row, r, last, err, ev);
}

static void applied(const struct store_row *row, int r, time_t last,
                    const char *err, struct store_event *ev) {
  struct entry_file *f = &row->e->file;
  if (r == -ENOTCONN) {
    unavailable(ev, err);
    return;
  }
  /* Our own row, applied before a daemon's answer was lost. */
  if (r == -ESTALE && last == row->t)
    r = 0;
  if (r == -ESTALE && last > f->last_update) {
    hold(row, last, f->last_update, false, ev);
    return;
  }
  if (r != 0) {
    failed(ev, STORE_FAIL_WRITE, err);
    /* The file may have been deleted, replaced, damaged or moved on by
     * another writer: the next row examines it again, creating it when
     * gone, or finding it FOREIGN. */
    f->state = ENTRY_UNCHECKED;
    return;
  }
  f->last_update = row->t;
  f->wrote = f->dirty = true;
  event(ev, STORE_APPLIED, NULL);
}

/* A row at or before the file's last update. */
static void not_newer(const struct store_row *row, struct store_event *ev) {
  const struct entry_file *f = &row->e->file;
  if (f->wrote && row->t == f->last_update)
    event(ev, STORE_SAME_SECOND, NULL);
  else if (!f->wrote && row->t < f->last_update)
    /* A file found ahead of the first row written to it: older rows may
     * come from a collector restarted with its clock set back, but rows
     * that keep falling behind come from someone else writing it. */
    hold(row, f->last_update, row->t, true, ev);
  else
    event(ev, STORE_NOT_NEWER, NULL);
}

/* The states in which a row goes no further, or 0 to go on. */
static int held_off(const struct store_row *row, struct store_event *ev) {
  struct entry_file *f = &row->e->file;
  unsigned long ahead = row->config->max_ahead_seconds;
  if (row->e->path == NULL)
    return failed(ev, STORE_FAIL_PATH, NULL);
  if (ahead > 0 && row->t - row->now > (time_t)ahead)
    return event(ev, STORE_AHEAD, NULL);
  bool due = recheck_due(row);
  if (f->state == ENTRY_FOREIGN && !due)
    return event(ev, STORE_STILL_FOREIGN, NULL);
  if (f->state == ENTRY_HELD)
    return due ? hold_over(row, ev) : event(ev, STORE_STILL_HELD, NULL);
  return 0;
}

int store_entry_prepare(const struct store_row *row, char *check,
                        size_t check_size, struct store_event *ev) {
  struct entry_file *f = &row->e->file;
  memset(ev, 0, sizeof(*ev));
  if (check != NULL)
    check[0] = '\0';
  if (held_off(row, ev) != 0)
    return 0;
  if (f->state == ENTRY_OK && !same_file(row))
    f->state = ENTRY_UNCHECKED;
  bool examined = f->state != ENTRY_OK;
  if (examined && examine(row, ev) != 0)
    return 0;
  if (row->t <= f->last_update) {
    not_newer(row, ev);
    return 0;
  }
  if (!examined && verify_due(row)) {
    if (check == NULL && check_writer_alone(row, ev) != 0)
      return 0;
    if (check != NULL && writer_check_text(row, check, check_size) < 0)
      check[0] = '\0';
  }
  return 1; /* ev->created says whether the file was made for it */
}

/* Someone else wrote the file before our row, which came after the
 * writer check in the same exchange: taken, it is in the file, whose readers
 * must see it flushed, and it is the last update the hold compares with,
 * so that a whole recheck_seconds without another writer ends the hold as
 * when it was writer_checked alone. */
static void held_with_row(const struct store_row *row, int r) {
  struct entry_file *f = &row->e->file;
  if (r != 0 || row->t <= f->other_last)
    return;
  f->dirty = true;
  f->other_last = f->last_update = row->t;
}

void store_entry_answered(const struct store_row *row,
                          const struct rrd_store_answer *check,
                          const struct rrd_store_answer *answer,
                          struct store_event *ev) {
  if (check != NULL &&
      writer_checked(row, check->r, check->file_last,
                     check->message ? check->message : "", ev) != 0) {
    if (ev->kind == STORE_HELD)
      held_with_row(row, answer->r);
    return;
  }
  applied(row, answer->r, answer->file_last,
          answer->message ? answer->message : "", ev);
}

void store_entry_write(const struct store_row *row, struct store_event *ev) {
  if (store_entry_prepare(row, NULL, 0, ev) == 0)
    return;
  const struct rrd_access *access = row->config->access;
  char err[512] = "";
  time_t last = 0;
  int r = access->update(access->ctx, row->e->path, row->text, &last, err,
                         sizeof(err));
  applied(row, r, last, err, ev); /* keeps ev->created */
}

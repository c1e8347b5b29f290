/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners kept in <DataDir>/pvecg-owners (see rrd_owner.h), without a
 * thread: read back at start; then from a write thread, at most every
 * LOOK_EVERY s, an edit of the file (`pvecg check --owners`) is taken, it
 * wins for the files it names, and what changed is saved, both under the
 * file's flock.  A file of another version is left alone: the owners then
 * live in memory only.
 */
#include "rrd_owner.h"

#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOK_EVERY 2.0   /* s between looks at the file */
#define GONE_EVERY 300.0 /* s between looks for marked guests' files */

struct rrd_owner_sync {
  char dir[PATH_MAX];
  struct rrd_owner *owner;
  rrd_sink_log_fn *log;
  void *log_ctx;
  bool (*in_cluster)(const char *cluster, const char *host);
  atomic_flag busy;                /* one thread looks, the others go on */
  unsigned long long saved;        /* the owners' changes when last saved */
  struct stat last;                /* the file as last read or written */
  char lines[RRD_OWNER_LINES_MIN]; /* a save's round of lines */
  double now, next_look, next_gone;
  bool foreign; /* the file is not ours: left alone */
  bool failing; /* a failed save is logged, until one works */
};

__attribute__((format(printf, 3, 4))) static void
log_line(struct rrd_owner_sync *s, enum rrd_sink_level level, const char *fmt,
         ...) {
  char line[2 * PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  if (s->log != NULL)
    s->log(s->log_ctx, level, line);
}

/* Logs what the operator changed of file r (n its records, 0: none). */
static void take_file(struct rrd_owner_sync *s,
                      const struct rrd_owner_record *r, size_t n, bool start) {
  char label[PATH_MAX];
  int changed = rrd_owner_replace(s->owner, r, n, s->now);
  if (start || changed <= 0 ||
      rrd_cluster_file_path(NULL, r->cluster, r->layout, r->name, label,
                            sizeof(label)) != 0)
    return;
  if ((changed & RRD_OWNER_GIVEN) && n > 0 && r->kind == RRD_OWNER_RECORD_OWNER)
    log_line(s, RRD_SINK_INFO,
             "The file %s now belongs to %s, as pvecg check --owners asked.",
             label, r->host);
  else if (changed & RRD_OWNER_FORGOTTEN)
    log_line(s, RRD_SINK_INFO,
             "The collisions of the file %s are forgotten, as pvecg check "
             "--owners asked.",
             label);
}

/* The file's records into memory, one file at a time; at start, owners
 * the configuration now sends elsewhere left out; later, marked files it
 * no longer names at all lose their marks. */
static size_t take_records(struct rrd_owner_sync *s,
                           struct rrd_owner_records *f, bool start) {
  size_t moved = 0;
  for (size_t i = 0, j; i < f->count; i = j) {
    struct rrd_owner_record *r = &f->r[i];
    for (j = i + 1; j < f->count && rrd_owner_same_file(r, &f->r[j]);)
      j++;
    bool gone = start && s->in_cluster && r->kind == RRD_OWNER_RECORD_OWNER &&
                !s->in_cluster(r->cluster, r->host);
    moved += gone;
    if (j - i - gone > 0)
      take_file(s, r + gone, j - i - gone, start);
  }
  struct rrd_owner_record *m;
  size_t n;
  if (start || rrd_owner_snapshot(s->owner, true, &m, &n) != 0)
    return moved;
  for (size_t i = 0; i < n; i++)
    if (m[i].kind == RRD_OWNER_RECORD_COLLISION &&
        (f->count == 0 ||
         !bsearch(&m[i], f->r, f->count, sizeof(*f->r), rrd_owner_file_order)))
      take_file(s, &m[i], 0, false);
  free(m);
  return moved;
}

/* Reads the file (the caller holds its lock) into memory, logging what
 * is wrong with it once. */
static void take(struct rrd_owner_sync *s, bool start) {
  struct rrd_owner_records f = {0};
  int r = rrd_owner_file_read(s->dir, &f);
  size_t moved = r == 0 ? take_records(s, &f, start) : 0, marks = 0;
  for (size_t i = 0; i < f.count; i++)
    marks += f.r[i].kind == RRD_OWNER_RECORD_COLLISION;
  free(f.r);
  if (r == -EPROTO && !s->foreign)
    log_line(
        s, RRD_SINK_ERROR,
        "%s/" RRD_OWNER_FILE_NAME " is not a version %d owners file: it is "
        "left alone, and the owners of guests' files are kept in memory only.",
        s->dir, RRD_OWNER_FILE_VERSION);
  else if (r < 0 && r != -ENOENT && r != -EPROTO)
    log_line(s, RRD_SINK_ERROR, "Cannot read %s/" RRD_OWNER_FILE_NAME ": %s.",
             s->dir, strerror(-r));
  else if (r == 0 && (f.cut || f.bad_lines > 0))
    log_line(s, RRD_SINK_ERROR,
             "The owners file %s/" RRD_OWNER_FILE_NAME " is %s (%zu lines "
             "skipped); a guest it does not name is owned by the first host to "
             "report it that was not seen colliding.",
             s->dir, f.cut ? "cut short" : "damaged", f.bad_lines);
  else if (r == 0 && start)
    log_line(s, RRD_SINK_INFO,
             "Read back the owners of %zu guests' files and %zu hosts seen "
             "colliding from %s/" RRD_OWNER_FILE_NAME ".",
             f.count - marks - moved, marks, s->dir);
  if (moved > 0)
    log_line(
        s, RRD_SINK_WARNING,
        "%s/" RRD_OWNER_FILE_NAME " names %zu owners whose rows the "
        "configuration now sends to another directory: their files go to the "
        "first host to report them that was not seen colliding.",
        s->dir, moved);
  s->foreign = r == -EPROTO;
}

struct saving {
  struct rrd_owner *owner;
  struct rrd_owner_cursor at;
};

static long next_lines(void *ctx, char *buf, size_t size, size_t *records) {
  struct saving *v = ctx;
  return rrd_owner_lines(v->owner, &v->at, buf, size, records);
}

/* In rounds of lines formatted under the owners' lock into a buffer of
 * the sync's, written outside it: no copy of the owners per save. */
static void save(struct rrd_owner_sync *s) {
  unsigned long long changes = rrd_owner_changes(s->owner);
  struct saving v = {.owner = s->owner};
  if (s->foreign || changes == s->saved)
    return;
  int err = rrd_owner_file_save_lines(s->dir, next_lines, &v, s->lines,
                                      sizeof(s->lines));
  rrd_owner_file_changed(s->dir, &s->last); /* ours */
  if (err != 0 && err != -ENOENT && !s->failing)
    log_line(
        s, RRD_SINK_ERROR,
        "Cannot save the owners of guests' files in %s/" RRD_OWNER_FILE_NAME
        " (%s); they are kept in memory and saved once it works again.",
        s->dir, strerror(-err));
  s->failing = err != 0 && err != -ENOENT; /* no directory yet: waited for */
  s->saved = err == 0 ? changes : s->saved;
}

/* Takes an edit of the file, then saves what changed, under its lock. */
static void look(struct rrd_owner_sync *s) {
  struct stat now = s->last;
  if (!rrd_owner_file_changed(s->dir, &now) &&
      (s->foreign || rrd_owner_changes(s->owner) == s->saved))
    return; /* the usual case: one stat */
  int fd = rrd_owner_file_lock(s->dir);
  if (fd < 0 && fd != -ENOENT && !s->failing) /* no directory yet: waited */
    log_line(s, RRD_SINK_ERROR,
             "Cannot lock %s/" RRD_OWNER_FILE_NAME ".lock (%s); the owners of "
             "guests' files are kept in memory and saved once it works again.",
             s->dir, strerror(-fd));
  s->failing |= fd < 0 && fd != -ENOENT;
  if (fd < 0)
    return;
  if (rrd_owner_file_changed(s->dir, &s->last))
    take(s, false);
  save(s);
  close(fd);
}

/* Forgets marked guests whose file has gone; others expire after a day. */
static void drop_gone(struct rrd_owner_sync *s) {
  struct rrd_owner_record *r;
  size_t n;
  char path[PATH_MAX];
  if (rrd_owner_snapshot(s->owner, true, &r, &n) != 0)
    return;
  for (size_t i = 0; i < n; i++)
    if (r[i].kind == RRD_OWNER_RECORD_COLLISION &&
        rrd_cluster_file_path(s->dir, r[i].cluster, r[i].layout, r[i].name,
                              path, sizeof(path)) == 0 &&
        access(path, F_OK) != 0 && errno == ENOENT)
      rrd_owner_drop(s->owner, r[i].layout, r[i].cluster, r[i].name, s->now,
                     GONE_EVERY);
  free(r);
}

void rrd_owner_sync_tick(struct rrd_owner_sync *s, double now) {
  if (atomic_flag_test_and_set(&s->busy))
    return;
  s->now = now;
  if (now >= s->next_gone) {
    drop_gone(s);
    s->next_gone = now + GONE_EVERY;
  }
  if (now >= s->next_look) {
    look(s);
    s->next_look = now + LOOK_EVERY;
  }
  atomic_flag_clear(&s->busy);
}

int rrd_owner_sync_start(const char *data_dir, struct rrd_owner *owner,
                         rrd_sink_log_fn *log, void *log_ctx,
                         bool (*in_cluster)(const char *, const char *),
                         double now, struct rrd_owner_sync **ret) {
  struct rrd_owner_sync *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return -ENOMEM;
  *s = (struct rrd_owner_sync){.owner = owner,
                               .log = log,
                               .log_ctx = log_ctx,
                               .in_cluster = in_cluster,
                               .now = now,
                               .next_gone = now + GONE_EVERY};
  snprintf(s->dir, sizeof(s->dir), "%s", data_dir);
  atomic_flag_clear(&s->busy);
  int fd = rrd_owner_file_lock(s->dir);
  if (fd >= 0 && rrd_owner_file_changed(s->dir, &s->last))
    take(s, true);
  if (fd >= 0)
    close(fd);
  s->saved = rrd_owner_changes(owner); /* a file read is not rewritten */
  *ret = s;
  return 0;
}

void rrd_owner_sync_stop(struct rrd_owner_sync *s) {
  if (s != NULL) /* collectd's write threads have stopped */
    look(s);
  free(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners kept in <DataDir>/pvecg-owners (see rrd_owner.h), without a
 * thread: read back at start; then, from a write thread at most every
 * LOOK_EVERY s, an edit of the file by `pvecg check --owners` is taken
 * (it wins for the files it names) and what changed is saved.  Both
 * happen under the file's flock, so neither side loses the other's work.
 * A file of another version is left alone: the owners live in memory.
 */
#include "rrd_owner.h"

#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOOK_EVERY 2.0   /* s between looks at the file */
#define GONE_EVERY 300.0 /* s between looks for marked files gone */

struct rrd_owner_sync {
  struct rrd_owner_sync_options o;
  char dir[PATH_MAX];
  atomic_flag busy; /* held by the one thread looking: the rest skip */
  unsigned long long saved; /* the owners' changes when last saved */
  struct rrd_owner_file_id id; /* the file as last read or written */
  double now, next_look, next_gone;
  bool foreign; /* the file is not ours: left alone */
  bool failing; /* a failed save is logged, until one works */
};

__attribute__((format(printf, 3, 4))) static void
say(struct rrd_owner_sync *s, enum rrd_sink_level level, const char *fmt, ...) {
  char line[2 * PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  if (s->o.log != NULL)
    s->o.log(s->o.log_ctx, level, line);
}

static bool file_gone(struct rrd_owner_sync *s,
                      const struct rrd_owner_record *r) {
  char path[PATH_MAX];
  struct stat st;
  return rrd_cluster_file_path(s->dir, r->cluster, r->layout, r->name, path,
                               sizeof(path)) == 0 &&
         stat(path, &st) != 0 && errno == ENOENT;
}

/* ---- reading ----------------------------------------------------------- */

struct taking {
  size_t owners, marks, moved;
  struct rrd_owner_record first_moved;
};

/* One file's records [r, r + n) into memory.  At start, owners whose
 * rows the configuration now sends to another cluster's directory, and
 * files that have gone, are left out; later, what the operator changed
 * is logged. */
static void take_file(struct rrd_owner_sync *s, const struct rrd_owner_record *r,
                      size_t n, bool start, struct taking *t) {
  bool owner = r->kind == RRD_OWNER_RECORD_OWNER;
  if (start && owner && s->o.host_in_cluster &&
      !s->o.host_in_cluster(r->cluster, r->host)) {
    if (t->moved++ == 0)
      t->first_moved = *r;
    r++, n--, owner = false;
  }
  if (n == 0 || (start && file_gone(s, r)))
    return;
  char label[PATH_MAX];
  rrd_cluster_file_path(NULL, r->cluster, r->layout, r->name, label,
                        sizeof(label));
  int changed = rrd_owner_replace(s->o.owners, r, n, s->now);
  t->owners += owner;
  t->marks += n - owner;
  if (!start && changed > 0 && (changed & RRD_OWNER_GIVEN) && owner)
    say(s, RRD_SINK_INFO,
        "The file %s now belongs to %s, as pvecg check --owners asked.", label,
        r->host);
  else if (!start && changed > 0 && (changed & RRD_OWNER_FORGOTTEN))
    say(s, RRD_SINK_INFO,
        "The collisions of the file %s are forgotten, as pvecg check "
        "--owners asked.",
        label);
}

/* Marked files the file no longer names at all: their marks forgotten. */
static void take_missing(struct rrd_owner_sync *s,
                         const struct rrd_owner_records *f) {
  struct rrd_owner_record *m;
  size_t n;
  char label[PATH_MAX];
  if (rrd_owner_snapshot(s->o.owners, &m, &n) != 0)
    return;
  for (size_t i = 0; i < n; i++)
    if (m[i].kind == RRD_OWNER_RECORD_COLLISION &&
        !bsearch(&m[i], f->r, f->count, sizeof(*f->r), rrd_owner_file_order) &&
        rrd_owner_replace(s->o.owners, &m[i], 0, s->now) > 0 &&
        rrd_cluster_file_path(NULL, m[i].cluster, m[i].layout, m[i].name,
                              label, sizeof(label)) == 0)
      say(s, RRD_SINK_INFO,
          "The collisions of the file %s are forgotten, as pvecg check "
          "--owners asked.",
          label);
  free(m);
}

static void say_read(struct rrd_owner_sync *s, int r,
                     const struct rrd_owner_records *f, const struct taking *t,
                     bool start) {
  if (r == -EPROTO)
    say(s, RRD_SINK_ERROR,
        "%s/" RRD_OWNER_FILE_NAME " is not a version %d owners file: it is "
        "left alone, and the owners of guests' files are kept in memory only.",
        s->dir, RRD_OWNER_FILE_VERSION);
  else if (r < 0 && r != -ENOENT)
    say(s, RRD_SINK_ERROR, "Cannot read %s/" RRD_OWNER_FILE_NAME ": %s.",
        s->dir, strerror(-r));
  else if (f->cut || f->bad_lines > 0)
    say(s, RRD_SINK_ERROR,
        "The owners file %s/" RRD_OWNER_FILE_NAME " is %s (%zu lines "
        "skipped); a guest it does not name is owned by the first host to "
        "report it that was not seen colliding.",
        s->dir, f->cut ? "cut short" : "damaged", f->bad_lines);
  else if (r == 0 && start)
    say(s, RRD_SINK_INFO,
        "Read back the owners of %zu guests' files and %zu hosts seen "
        "colliding from %s/" RRD_OWNER_FILE_NAME ".",
        t->owners, t->marks, s->dir);
  if (t->moved > 0)
    say(s, RRD_SINK_WARNING,
        "The owners file %s/" RRD_OWNER_FILE_NAME " names %zu owners whose "
        "rows the configuration no longer sends to their file (the first: "
        "%s of %s/%s); those files go to the first host to report them that "
        "was not seen colliding.",
        s->dir, t->moved, t->first_moved.host, t->first_moved.layout->name,
        t->first_moved.name);
}

/* Reads the file (the caller holds its lock) into memory. */
static void take(struct rrd_owner_sync *s, bool start) {
  struct rrd_owner_records f = {0};
  struct taking t = {0};
  int r = rrd_owner_file_read(s->dir, &f);
  rrd_owner_file_id_of(s->dir, &s->id);
  for (size_t i = 0, j; r == 0 && i < f.count; i = j) {
    for (j = i + 1; j < f.count && rrd_owner_same_file(&f.r[i], &f.r[j]);)
      j++;
    take_file(s, &f.r[i], j - i, start, &t);
  }
  if (r == 0 && !start)
    take_missing(s, &f);
  if (r != -EPROTO || !s->foreign) /* another version: logged once */
    say_read(s, r, &f, &t, start);
  s->foreign = r == -EPROTO;
  free(f.r);
}

/* ---- saving ------------------------------------------------------------ */

static void save(struct rrd_owner_sync *s) {
  unsigned long long changes = rrd_owner_changes(s->o.owners);
  struct rrd_owner_record *r;
  size_t n;
  if (s->foreign || changes == s->saved ||
      rrd_owner_snapshot(s->o.owners, &r, &n) != 0)
    return;
  int err = rrd_owner_file_save(s->dir, r, n, &s->id);
  free(r);
  if (err == 0 && s->failing)
    say(s, RRD_SINK_INFO, "The owners of guests' files are saved again.");
  else if (err != 0 && err != -ENOENT && !s->failing)
    say(s, RRD_SINK_ERROR,
        "Cannot save the owners of guests' files in %s/" RRD_OWNER_FILE_NAME
        " (%s); they are kept in memory and saved once it works again.",
        s->dir, strerror(-err));
  s->failing = err != 0 && err != -ENOENT; /* no directory yet: waited for */
  if (err == 0)
    s->saved = changes;
}

/* Forgets marked guests whose file has gone; others expire after a day. */
static void drop_gone(struct rrd_owner_sync *s) {
  struct rrd_owner_record *r;
  size_t n;
  if (rrd_owner_snapshot(s->o.owners, &r, &n) != 0)
    return;
  for (size_t i = 0; i < n; i++)
    if (r[i].kind == RRD_OWNER_RECORD_COLLISION && file_gone(s, &r[i]))
      rrd_owner_drop(s->o.owners, r[i].layout, r[i].cluster, r[i].name, s->now,
                     GONE_EVERY);
  free(r);
}

/* Takes an edit of the file, then saves what changed, under its lock. */
static void look(struct rrd_owner_sync *s) {
  struct rrd_owner_file_id id;
  rrd_owner_file_id_of(s->dir, &id);
  if (rrd_owner_file_id_same(&id, &s->id) &&
      (s->foreign || rrd_owner_changes(s->o.owners) == s->saved))
    return; /* the usual case: one stat */
  int fd = rrd_owner_file_lock(s->dir);
  if (fd < 0)
    return; /* no directory yet, or tried again at the next look */
  rrd_owner_file_id_of(s->dir, &id);
  if (!rrd_owner_file_id_same(&id, &s->id))
    take(s, false);
  save(s);
  close(fd);
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

int rrd_owner_sync_start(const struct rrd_owner_sync_options *o, double now,
                         struct rrd_owner_sync **ret) {
  struct rrd_owner_sync *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return -ENOMEM;
  s->o = *o;
  snprintf(s->dir, sizeof(s->dir), "%s", o->data_dir);
  s->o.data_dir = s->dir;
  atomic_flag_clear(&s->busy);
  s->now = now;
  s->next_gone = now + GONE_EVERY;
  int fd = rrd_owner_file_lock(s->dir);
  if (fd >= 0) {
    take(s, true);
    close(fd);
  }
  /* saved only once something changes: a file read is not rewritten */
  s->saved = rrd_owner_changes(s->o.owners);
  *ret = s;
  return 0;
}

void rrd_owner_sync_stop(struct rrd_owner_sync *s) {
  if (s == NULL)
    return;
  while (atomic_flag_test_and_set(&s->busy))
    ; /* a write thread still looking: collectd stops them first */
  look(s);
  free(s);
}

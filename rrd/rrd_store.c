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
 */
#include "rrd_store.h"

#include "rrd_file.h"
#include "rrd_file_name.h"
#include "rrd_row.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BACKOFF_FIRST 60
#define BACKOFF_MAX 3600
#define INITIAL_BUCKETS 64
#define WHY_SIZE 256
#define ERR_SIZE 512
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

struct rrd_store {
  char *data_dir; /* without trailing '/' ("" for the root) */
  unsigned long recheck_seconds;
  const struct rrd_access *access;
  atomic_ullong counts[RRD_STORE_OUTCOMES];
  pthread_mutex_t lock; /* the table only, never held during I/O */
  struct entry **buckets;
  size_t bucket_count; /* a power of two */
  size_t entry_count;
};

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

__attribute__((format(printf, 2, 3))) static void
add_message(struct rrd_store_result *res, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vadd_message(res, fmt, ap);
  va_end(ap);
}

/* path, or its start and end around "..." when it is longer than fits. */
static void shorten_path(const char *path, char *buf, size_t size) {
  size_t len = strlen(path);
  if (len < size)
    memcpy(buf, path, len + 1);
  else
    snprintf(buf, size, "%.*s...%s", (int)(size / 3), path,
             path + len - (size - size / 3 - 4));
}

static void set_outcome(struct rrd_store_result *res,
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
    add_message(res,
                " %lu further problems with this file were not logged since "
                "the last report.",
                suppressed);
}

/* FAILED with the message given; logged as problem_due() decides. */
__attribute__((format(printf, 4, 5))) static void
fail(struct entry *e, time_t now, struct rrd_store_result *res, const char *fmt,
     ...) {
  unsigned long suppressed = 0;
  bool report = problem_due(e, now, &suppressed);
  set_outcome(res, RRD_STORE_FAILED, report);
  va_list ap;
  va_start(ap, fmt);
  vadd_message(res, fmt, ap);
  va_end(ap);
  add_suppressed(res, suppressed);
  note_trouble(e, report);
}

static void stale(struct entry *e, time_t t, time_t now,
                  struct rrd_store_result *res) {
  unsigned long suppressed = 0;
  bool report = problem_due(e, now, &suppressed);
  set_outcome(res, RRD_STORE_STALE, report);
  add_message(res,
              "Dropped the row for %lld for %s: it is not newer than the "
              "file's last update at %lld; another writer may be updating "
              "this file.",
              (long long)t, e->shown, (long long)e->last_update);
  add_suppressed(res, suppressed);
  note_trouble(e, report);
}

static bool recheck_due(const struct rrd_store *store, const struct entry *e,
                        time_t now) {
  return now >= e->next_check ||
         e->next_check - now > (time_t)store->recheck_seconds;
}

/* The file is not ours: remember why, log when the reason is new. */
static void foreign(const struct rrd_store *store, struct entry *e, int r,
                    const char *why, time_t now, struct rrd_store_result *res) {
  if (why[0] == '\0')
    why = "unknown difference";
  bool report = strcmp(e->why, why) != 0;
  snprintf(e->why, sizeof(e->why), "%s", why);
  e->state = ENTRY_FOREIGN;
  e->next_check = now + (time_t)store->recheck_seconds;
  set_outcome(res, RRD_STORE_FOREIGN, report);
  if (r == -EPROTO)
    add_message(res, "%s is not an RRD file of layout %s (%s); ", e->shown,
                e->layout->name, why);
  else
    add_message(res, "%s cannot be read as an RRD file (%s); ", e->shown, why);
  add_message(res,
              "the file is left untouched, nothing is written to it, and it "
              "is checked again every %lu s.",
              store->recheck_seconds);
  note_trouble(e, report);
}

/* A row for a foreign file between re-checks: no file access at all. */
static void still_foreign(struct entry *e, struct rrd_store_result *res) {
  set_outcome(res, RRD_STORE_FOREIGN, false);
  add_message(res,
              "Dropped a row for %s: the file does not have layout %s (%s) "
              "and is left untouched.",
              e->shown, e->layout->name, e->why);
  note_trouble(e, false);
}

/* The daemon could not be reached: not a problem of this file, so nothing
 * is counted against it; the caller keeps the row and tries again.  The
 * message is only the reason, for the caller's own line. */
static void unavailable(const char *reason, struct rrd_store_result *res) {
  set_outcome(res, RRD_STORE_UNAVAILABLE, false);
  add_message(res, "%s", reason[0] != '\0' ? reason : "no reason given");
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
  set_outcome(res, RRD_STORE_CONFLICT, report);
  add_message(res,
              "Another writer is updating %s: its last update is %lld, newer "
              "than %s (%lld). On a Proxmox VE node this is pmxcfs writing "
              "the same file; give pve_rrd a DataDir of its own. Nothing is "
              "written to this file until nobody else has updated it for "
              "%lu s; rows meanwhile are dropped and counted.",
              e->shown, (long long)other_last,
              ours_is_row ? "this row" : "the last row written here",
              (long long)ours, store->recheck_seconds);
  add_suppressed(res, suppressed);
  note_trouble(e, report);
}

static void conflict(const struct rrd_store *store, struct entry *e,
                     time_t other_last, time_t now,
                     struct rrd_store_result *res) {
  hold(store, e, other_last, e->last_update, false, now, res);
}

/* A file found ahead of the first row written to it: older rows may come
 * from a collector restarted with its clock set back, but rows that keep
 * falling behind come from someone else writing the file. */
static void found_ahead(const struct rrd_store *store, struct entry *e,
                        time_t t, time_t now, struct rrd_store_result *res) {
  hold(store, e, e->last_update, t, true, now, res);
}

/* A row for a file another writer updates, between examinations. */
static void still_held(struct entry *e, struct rrd_store_result *res) {
  set_outcome(res, RRD_STORE_CONFLICT, false);
  add_message(res,
              "Dropped a row for %s: another writer is updating it (last "
              "update %lld).",
              e->shown, (long long)e->other_last);
  note_trouble(e, false);
}

static void succeed(struct entry *e, time_t t, bool created,
                    struct rrd_store_result *res) {
  if (!e->troubled) {
    set_outcome(res, created ? RRD_STORE_CREATED : RRD_STORE_WRITTEN, false);
    if (created)
      add_message(res, "Created %s with layout %s and wrote the row for %lld.",
                  e->shown, e->layout->name, (long long)t);
    else
      add_message(res, "Wrote the row for %lld to %s.", (long long)t, e->shown);
    return;
  }
  /* Only a problem that was logged needs its end logged. */
  set_outcome(res, RRD_STORE_RECOVERED, e->trouble_reported);
  add_message(res,
              "%s is written again%s: the row for %lld was applied after %lu "
              "rows that could not be.",
              e->shown, created ? " (created anew)" : "", (long long)t,
              e->problem_rows);
  e->troubled = e->trouble_reported = false;
  e->problem_rows = 0;
}

/* ---- the file behind an entry ------------------------------------------ */

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

/* The layout's directory, made here for local files (rrdcached over a unix
 * socket resolves paths on this side too); a daemon over TCP makes its own
 * (rrdcached -R). */
static int make_layout_dir(const struct rrd_store *store, struct entry *e,
                           time_t t, time_t now, struct rrd_store_result *res) {
  if (!store->access->local)
    return 0;
  char dir[PATH_MAX];
  int n = snprintf(dir, sizeof(dir), "%s/%s", store->data_dir, e->layout->name);
  int r = n < 0 || (size_t)n >= sizeof(dir) ? -ENAMETOOLONG : make_dirs(dir);
  if (r < 0) {
    char shown[SHOWN_SIZE], text[128];
    shorten_path(dir, shown, sizeof(shown));
    /* named with the file: one line per file, not several alike */
    fail(e, now, res,
         "Could not create the directory %s for %s: %s; the row for %lld "
         "is dropped.",
         shown, e->name, strerror_r(-r, text, sizeof(text)), (long long)t);
  }
  return r;
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
  int r = make_layout_dir(store, e, t, now, res);
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
    unavailable(err, res);
  else if (r < 0)
    fail(e, now, res, "Could not create %s: %s; the row for %lld is dropped.",
         e->shown, err, (long long)t);
  if (r < 0)
    return r;
  opened(store, e, start, now);
  return 0;
}

static int load_last_update(const struct rrd_store *store, struct entry *e,
                            time_t now, struct rrd_store_result *res) {
  char err[ERR_SIZE] = "";
  time_t last;
  int r = store->access->last_update(store->access->ctx, e->path, &last, err,
                                     sizeof(err));
  if (r == -ENOTCONN) {
    unavailable(err, res);
    return r;
  }
  if (r != 0) {
    fail(e, now, res, "Could not read the last update time of %s: %s.",
         e->shown, err);
    return -EIO;
  }
  e->why[0] = '\0';
  /* Rows of ours are in the file and it has moved on past them since. */
  if (e->wrote && last > e->last_update) {
    conflict(store, e, last, now, res);
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
      fail(e, now, res,
           "Could not create %s: it appeared and vanished "
           "meanwhile; the row for %lld is dropped.",
           e->shown, (long long)t);
      return r;
    }
  }
  if (r == -ENOTCONN) {
    unavailable(why, res);
    return r;
  }
  if (r == -EPROTO || r == -EIO) {
    foreign(store, e, r, why, now, res);
    return r;
  }
  if (r != 0) {
    fail(e, now, res, "Could not look up %s: %s; the row for %lld is dropped.",
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
  int r = store->access->last_update(store->access->ctx, e->path, &last, err,
                                     sizeof(err));
  if (r == -ENOTCONN) {
    unavailable(err, res);
    return r;
  }
  e->next_check = now + (time_t)store->recheck_seconds;
  if (r == -ENOENT || r == -EIO) { /* gone or replaced: start afresh */
    e->state = ENTRY_UNCHECKED;
    e->wrote = false;
    return 0;
  }
  if (r != 0 || last != e->other_last || t <= last) {
    if (r == 0)
      e->other_last = e->last_update = last;
    still_held(e, res);
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
    unavailable(err, res);
    return r;
  }
  /* last == t: this very row is in already (a daemon applied it, then its
   * answer was lost); apply() sees that too. */
  if (r == -ESTALE && last > e->last_update && last != t) {
    conflict(store, e, last, now, res);
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
    unavailable(err, res);
    return;
  }
  /* Our own row, applied before a daemon's answer was lost. */
  if (r == -ESTALE && last == t)
    r = 0;
  if (r == -ESTALE && last > e->last_update) {
    conflict(store, e, last, now, res);
    return;
  }
  if (r != 0) {
    fail(e, now, res, "Could not write the row for %lld to %s: %s.",
         (long long)t, e->shown, err);
    /* The file may have been deleted, replaced, damaged or moved on by
     * another writer: the next row examines it again, creating it when
     * gone, or finding it FOREIGN. */
    e->state = ENTRY_UNCHECKED;
    return;
  }
  e->last_update = t;
  e->wrote = e->dirty = true;
  succeed(e, t, created, res);
}

static void write_entry(const struct rrd_store *store, struct entry *e,
                        time_t t, const char *row, time_t now,
                        struct rrd_store_result *res) {
  snprintf(res->path, sizeof(res->path), "%s", e->path);
  bool due = recheck_due(store, e, now);
  if (e->state == ENTRY_FOREIGN && !due) {
    still_foreign(e, res);
    return;
  }
  if (e->state == ENTRY_CONFLICT) {
    if (!due) {
      still_held(e, res);
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
    if (!e->wrote && t < e->last_update)
      found_ahead(store, e, t, now, res);
    else
      stale(e, t, now, res);
    return;
  }
  if (!opening && verify_due(store, e, now) &&
      verify(store, e, t, now, res) != 0)
    return;
  apply(store, e, t, row, now, created, res);
}

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

/* ---- the table --------------------------------------------------------- */

static size_t entry_hash(const struct rrd_layout *layout, const char *name) {
  uint64_t h = 14695981039346656037ULL; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 1099511628211ULL;
  return (size_t)(h ^ ((uintptr_t)layout * 0x9e3779b97f4a7c15ULL));
}

/* Doubles the table when it is full; a failed allocation only costs speed. */
static void grow(struct rrd_store *store) {
  size_t count = store->bucket_count * 2;
  struct entry **buckets = calloc(count, sizeof(*buckets));
  if (buckets == NULL)
    return;
  for (size_t i = 0; i < store->bucket_count; i++)
    for (struct entry *e = store->buckets[i], *next; e != NULL; e = next) {
      next = e->next;
      size_t b = entry_hash(e->layout, e->name) & (count - 1);
      e->next = buckets[b];
      buckets[b] = e;
    }
  free(store->buckets);
  store->buckets = buckets;
  store->bucket_count = count;
}

static struct entry *entry_new(const struct rrd_store *store,
                               const struct rrd_layout *layout,
                               const char *name) {
  struct entry *e = calloc(1, sizeof(*e));
  if (e == NULL)
    return NULL;
  if (pthread_mutex_init(&e->lock, NULL) != 0) {
    free(e);
    return NULL;
  }
  e->layout = layout;
  snprintf(e->name, sizeof(e->name), "%s", name);
  /* A path that does not fit stays NULL: every row then fails, logged
   * with back-off like any other failure. */
  char path[PATH_MAX];
  if (rrd_store_path(store, layout, name, path, sizeof(path)) == 0) {
    if ((e->path = strdup(path)) == NULL) {
      pthread_mutex_destroy(&e->lock);
      free(e);
      return NULL;
    }
    shorten_path(e->path, e->shown, sizeof(e->shown));
  }
  return e;
}

static struct entry *entry_find(struct rrd_store *store,
                                const struct rrd_layout *layout,
                                const char *name, size_t hash) {
  for (struct entry *e = store->buckets[hash & (store->bucket_count - 1)];
       e != NULL; e = e->next)
    if (e->layout == layout && strcmp(e->name, name) == 0)
      return e;
  return NULL;
}

static struct entry *entry_get(struct rrd_store *store,
                               const struct rrd_layout *layout,
                               const char *name) {
  size_t hash = entry_hash(layout, name);
  pthread_mutex_lock(&store->lock);
  struct entry *e = entry_find(store, layout, name, hash);
  if (e == NULL && (e = entry_new(store, layout, name)) != NULL) {
    size_t b = hash & (store->bucket_count - 1);
    e->next = store->buckets[b];
    store->buckets[b] = e;
    if (++store->entry_count > store->bucket_count)
      grow(store);
  }
  pthread_mutex_unlock(&store->lock);
  return e;
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
  struct rrd_store *store = calloc(1, sizeof(*store));
  if (store == NULL)
    return -ENOMEM;
  store->data_dir = strdup(options->data_dir);
  store->buckets = calloc(INITIAL_BUCKETS, sizeof(*store->buckets));
  if (store->data_dir == NULL || store->buckets == NULL ||
      pthread_mutex_init(&store->lock, NULL) != 0) {
    free(store->data_dir);
    free(store->buckets);
    free(store);
    return -ENOMEM;
  }
  size_t len = strlen(store->data_dir);
  while (len > 0 && store->data_dir[len - 1] == '/')
    store->data_dir[--len] = '\0';
  store->bucket_count = INITIAL_BUCKETS;
  store->recheck_seconds = options->recheck_seconds;
  store->access = access;
  *ret = store;
  return 0;
}

void rrd_store_free(struct rrd_store *store) {
  if (store == NULL)
    return;
  for (size_t i = 0; i < store->bucket_count; i++)
    for (struct entry *e = store->buckets[i], *next; e != NULL; e = next) {
      next = e->next;
      pthread_mutex_destroy(&e->lock);
      free(e->path);
      free(e);
    }
  pthread_mutex_destroy(&store->lock);
  free(store->buckets);
  free(store->data_dir);
  free(store);
}

static int invalid(struct rrd_store_result *res, const char *what) {
  set_outcome(res, RRD_STORE_FAILED, false);
  add_message(res, "Invalid row: %s; the row is dropped.", what);
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
  struct entry *e = entry_get(store, layout, name);
  if (e == NULL) {
    set_outcome(res, RRD_STORE_FAILED, true);
    add_message(res, "Out of memory: the row for %s/%s is dropped.",
                layout->name, name);
    return 0;
  }
  pthread_mutex_lock(&e->lock);
  if (e->path != NULL)
    write_entry(store, e, t, row, now, res);
  else
    fail(e, now, res,
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

/* Adds e's path to the list when it is dirty; -ENOMEM leaves it dirty, for
 * the next call. */
static int take_if_dirty(struct entry *e, char **paths, size_t *count) {
  pthread_mutex_lock(&e->lock);
  int r = 0;
  if (e->dirty && (paths[*count] = strdup(e->path)) == NULL)
    r = -ENOMEM;
  else if (e->dirty) {
    e->dirty = false;
    (*count)++;
  }
  pthread_mutex_unlock(&e->lock);
  return r;
}

int rrd_store_take_dirty(struct rrd_store *store, char ***ret, size_t *count) {
  /* Lock order table -> entry, as nowhere else holds an entry lock while
   * taking the table's.  (It waits for a row being written; the sink calls
   * it from the thread that writes them all.) */
  pthread_mutex_lock(&store->lock);
  char **paths = calloc(store->entry_count + 1, sizeof(*paths));
  size_t n = 0;
  int r = paths == NULL ? -ENOMEM : 0;
  for (size_t i = 0; r == 0 && i < store->bucket_count; i++)
    for (struct entry *e = store->buckets[i]; r == 0 && e != NULL; e = e->next)
      r = take_if_dirty(e, paths, &n);
  pthread_mutex_unlock(&store->lock);
  if (paths == NULL)
    return -ENOMEM;
  *ret = paths; /* short of memory: the files taken so far */
  *count = n;
  return 0;
}

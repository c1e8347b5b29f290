/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners kept on disk while pve_rrd runs (see rrd_owner_keeper.h).
 */
#include "rrd_owner_keeper.h"

#include "pvecg/monotonic.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_owner_disk.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE_SIZE 1024
#define WAITING (-ENOENT)
/* How long a lock held by another process is waited for: 2 s. */
#define LOCK_TRIES 20
#define LOCK_PAUSE_NS 100000000L

struct rrd_owner_keeper {
  struct rrd_owner_keeper_options o;
  char data_dir[PATH_MAX];
  /* The owners file's lock: held (>= 0), WAITING for the data directory
   * to be made by the first file, or another negative errno: the owners
   * are kept in memory only. */
  int lock_fd;
  pthread_t thread;
  pthread_mutex_t lock; /* guards stopping only */
  pthread_cond_t wake;
  bool stopping;
  unsigned long long saved; /* the owners' changes at the last save */
  bool save_failing;        /* said, until a save succeeds */
};

__attribute__((format(printf, 3, 4))) static void
say(struct rrd_owner_keeper *k, enum rrd_sink_level level, const char *fmt,
    ...) {
  char line[LINE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  if (k->o.log != NULL)
    k->o.log(k->o.log_ctx, level, line);
}

/* ---- saving ------------------------------------------------------------ */

/* Saves the owners if they changed since the last save; a failure is said
 * once, until a save succeeds again. */
static void save(struct rrd_owner_keeper *k) {
  if (rrd_owner_changes(k->o.owners) == k->saved)
    return;
  struct rrd_owner_record *records;
  size_t count;
  unsigned long long changes;
  char err[PATH_MAX + 128];
  if (rrd_owner_snapshot(k->o.owners, &records, &count, &changes) != 0)
    return; /* tried again at the next look */
  int r = rrd_owner_disk_save(k->data_dir, records, count, err, sizeof(err));
  free(records);
  if (r == 0) {
    k->saved = changes;
    if (k->save_failing)
      say(k, RRD_SINK_INFO, "The owners of guests' files are saved again.");
    k->save_failing = false;
  } else if (!k->save_failing) {
    k->save_failing = true;
    say(k, RRD_SINK_ERROR,
        "Cannot save the owners of guests' files (%s); they are kept in "
        "memory and saved once it works again.",
        err);
  }
}

/* ---- files gone -------------------------------------------------------- */

static bool file_gone(struct rrd_owner_keeper *k,
                      const struct rrd_owner_record *r) {
  char path[PATH_MAX];
  struct stat st;
  if (rrd_cluster_file_path(k->data_dir, r->cluster, r->layout, r->name, path,
                            sizeof(path)) != 0)
    return false;
  return stat(path, &st) != 0 && errno == ENOENT;
}

/* Forgets the guests whose file has gone and whom nobody reported for
 * quiet seconds (a new guest's file may not be written yet). */
static void drop_gone(struct rrd_owner_keeper *k, double quiet) {
  struct rrd_owner_record *records;
  size_t count;
  unsigned long long changes;
  if (rrd_owner_snapshot(k->o.owners, &records, &count, &changes) != 0)
    return;
  for (size_t i = 0; i < count; i++)
    if ((i == 0 || strcmp(records[i].name, records[i - 1].name) != 0 ||
         strcmp(records[i].cluster, records[i - 1].cluster) != 0) &&
        file_gone(k, &records[i]))
      rrd_owner_drop(k->o.owners, records[i].layout, records[i].cluster,
                     records[i].name, k->o.clock(), quiet);
  free(records);
}

/* ---- requests ---------------------------------------------------------- */

static int apply_request(const struct rrd_owner_record *r, void *ctx) {
  struct rrd_owner_keeper *k = ctx;
  char label[PATH_MAX];
  if (rrd_owner_file_label(r, label, sizeof(label)) != 0)
    return 0;
  int err = rrd_owner_settle(k->o.owners, r, k->o.clock());
  save(k); /* before the request goes: the command then reads it */
  if (err == 0 && r->kind == RRD_OWNER_RECORD_GIVE)
    say(k, RRD_SINK_INFO,
        "The file %s now belongs to %s, as pvecg check --owners asked.", label,
        r->host);
  else if (err == 0)
    say(k, RRD_SINK_INFO,
        "The collisions of the file %s are forgotten, as pvecg check "
        "--owners asked.",
        label);
  else if (err == -ENOENT)
    say(k, RRD_SINK_WARNING,
        "pvecg check --owners asked to forget the collisions of %s, which "
        "has none.",
        label);
  return 0;
}

static void take_requests(struct rrd_owner_keeper *k) {
  struct rrd_owner_file_problems p;
  rrd_owner_disk_take_requests(k->data_dir, apply_request, k, &p);
  if (p.first[0] != '\0')
    say(k, RRD_SINK_WARNING, "Ignored a request of pvecg check --owners: %s.",
        p.first);
}

/* ---- the thread -------------------------------------------------------- */

static bool wait_or_stop(struct rrd_owner_keeper *k, double seconds) {
  double at = monotonic_seconds() + seconds;
  struct timespec ts = {.tv_sec = (time_t)at};
  ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
  pthread_mutex_lock(&k->lock);
  while (!k->stopping &&
         pthread_cond_timedwait(&k->wake, &k->lock, &ts) != ETIMEDOUT)
    ;
  bool stop = k->stopping;
  pthread_mutex_unlock(&k->lock);
  return stop;
}

static void take_lock_now(struct rrd_owner_keeper *k);

static void *keeper_main(void *arg) {
  struct rrd_owner_keeper *k = arg;
  double next_requests = 0, next_gone = k->o.gone_every;
  for (double t = 0; !wait_or_stop(k, k->o.save_every); t += k->o.save_every) {
    if (k->lock_fd == WAITING)
      take_lock_now(k);
    if (k->lock_fd < 0)
      continue; /* nothing on disk to keep, or nothing allowed */
    if (t >= next_requests) {
      take_requests(k);
      next_requests = t + k->o.requests_every;
    }
    if (t >= next_gone) {
      drop_gone(k, k->o.gone_every);
      next_gone = t + k->o.gone_every;
    }
    save(k);
  }
  return NULL;
}

/* ---- start and stop ---------------------------------------------------- */

struct loading {
  struct rrd_owner_keeper *k;
  size_t owners, collisions, gone;
  struct rrd_owner_record first_gone; /* the first owner left out */
};

/* An owner whose rows the configuration now sends elsewhere (a host
 * moved to another <Cluster> block, or removed) will not report the file
 * again: it is left out, and the guest has no owner known. */
static bool owner_gone(const struct loading *l,
                       const struct rrd_owner_record *r) {
  return r->kind == RRD_OWNER_RECORD_OWNER && l->k->o.host_in_cluster != NULL &&
         !l->k->o.host_in_cluster(r->cluster, r->host);
}

static int restore_one(const struct rrd_owner_record *r, void *ctx) {
  struct loading *l = ctx;
  if (owner_gone(l, r)) {
    if (l->gone++ == 0)
      l->first_gone = *r;
    return 0;
  }
  if (rrd_owner_restore(l->k->o.owners, r, l->k->o.clock()) == 0)
    *(r->kind == RRD_OWNER_RECORD_OWNER ? &l->owners : &l->collisions) += 1;
  return 0;
}

/* Said once: the owners left out, the first named. */
static void say_gone(struct rrd_owner_keeper *k, const struct loading *l) {
  char label[PATH_MAX];
  if (l->gone == 0 ||
      rrd_owner_file_label(&l->first_gone, label, sizeof(label)) != 0)
    return;
  say(k, RRD_SINK_WARNING,
      "The owners file %s/" RRD_OWNER_FILE_NAME " names %zu owners whose "
      "rows the configuration no longer sends to their file (the first: %s "
      "of %s); those files go to the first host to report them that was not "
      "seen colliding.",
      k->data_dir, l->gone, l->first_gone.host, label);
}

/* Reads the owners back; a damaged file is said once, and what could be
 * read of it is kept: a collision known is better than none. */
static void load(struct rrd_owner_keeper *k) {
  struct loading l = {.k = k};
  struct rrd_owner_file_problems p;
  int r = rrd_owner_disk_read(k->data_dir, restore_one, &l, &p);
  if (r == -ENOENT)
    return;
  char skipped[64] = "";
  if (p.bad_lines > 0)
    snprintf(skipped, sizeof(skipped), " (%zu lines skipped)", p.bad_lines);
  if (r < 0 || p.truncated || p.bad_lines > 0)
    say(k, RRD_SINK_ERROR,
        "The owners file %s/" RRD_OWNER_FILE_NAME ": %s%s; %s guest it does "
        "not name is owned by the first host to report it that was not seen "
        "colliding.",
        k->data_dir, r < 0 && p.first[0] == '\0' ? strerror(-r) : p.first,
        skipped, r < 0 ? "every" : "a");
  else
    say(k, RRD_SINK_INFO,
        "Read back the owners of %zu guests' files and %zu hosts seen "
        "colliding from %s/" RRD_OWNER_FILE_NAME ".",
        l.owners, l.collisions, k->data_dir);
  say_gone(k, &l);
  /* Saved again only once something changes: a file of another version
   * is not overwritten just for having been read. */
  k->saved = rrd_owner_changes(k->o.owners);
  drop_gone(k, 0);
}

/* Waits are measured on the monotonic clock, immune to clock steps. */
static int init_sync(struct rrd_owner_keeper *k) {
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) != 0)
    return -ENOMEM;
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  int r = pthread_mutex_init(&k->lock, NULL) != 0 ||
                  pthread_cond_init(&k->wake, &attr) != 0
              ? -ENOMEM
              : 0;
  pthread_condattr_destroy(&attr);
  return r;
}

static void set_defaults(struct rrd_owner_keeper *k,
                         const struct rrd_owner_keeper_options *o) {
  k->o = *o;
  k->o.clock = o->clock != NULL ? o->clock : monotonic_seconds;
  k->o.save_every = o->save_every > 0 ? o->save_every : 1.0;
  k->o.requests_every = o->requests_every > 0 ? o->requests_every : 2.0;
  k->o.gone_every = o->gone_every > 0 ? o->gone_every : 300.0;
}

/* Takes the owners file's lock.  A data directory that is not there yet
 * (a fresh collector) is waited for rather than made: a collectd that
 * writes no file, refused hosts only, leaves nothing behind; the lock and
 * the owners follow its first file. */
static int take_lock(struct rrd_owner_keeper *k) {
  k->lock_fd = rrd_owner_disk_lock(k->data_dir);
  /* pvecg check --owners holds it for the moment of an edit: waited for */
  struct timespec pause = {.tv_nsec = LOCK_PAUSE_NS};
  for (int i = 0; i < LOCK_TRIES && k->lock_fd == -EWOULDBLOCK; i++) {
    nanosleep(&pause, NULL);
    k->lock_fd = rrd_owner_disk_lock(k->data_dir);
  }
  if (k->lock_fd == -EWOULDBLOCK)
    say(k, RRD_SINK_ERROR,
        "Another process holds %s/" RRD_OWNER_LOCK_NAME " (another collectd "
        "writing the same DataDir?): the owners of guests' files are kept in "
        "memory only.",
        k->data_dir);
  else if (k->lock_fd < 0 && k->lock_fd != WAITING)
    say(k, RRD_SINK_ERROR,
        "Cannot lock %s/" RRD_OWNER_LOCK_NAME " (%s): the owners of guests' "
        "files are kept in memory only.",
        k->data_dir, strerror(-k->lock_fd));
  return k->lock_fd < 0 && k->lock_fd != WAITING ? k->lock_fd : 0;
}

/* The data directory has been waited for: once it is there, the lock is
 * taken and whatever is on disk read back. */
static void take_lock_now(struct rrd_owner_keeper *k) {
  if (take_lock(k) == 0 && k->lock_fd >= 0)
    load(k);
}

int rrd_owner_keeper_start(const struct rrd_owner_keeper_options *o,
                           struct rrd_owner_keeper **ret) {
  struct rrd_owner_keeper *k = calloc(1, sizeof(*k));
  if (k == NULL)
    return -ENOMEM;
  set_defaults(k, o);
  snprintf(k->data_dir, sizeof(k->data_dir), "%s", o->data_dir);
  k->o.data_dir = k->data_dir;
  int r = take_lock(k);
  if (r == 0)
    r = init_sync(k);
  if (r == 0) {
    if (k->lock_fd >= 0)
      load(k);
    if (pthread_create(&k->thread, NULL, keeper_main, k) != 0)
      r = -EAGAIN;
  }
  if (r != 0) {
    if (k->lock_fd >= 0)
      close(k->lock_fd);
    free(k);
    return r;
  }
  *ret = k;
  return 0;
}

void rrd_owner_keeper_stop(struct rrd_owner_keeper *k) {
  if (k == NULL)
    return;
  pthread_mutex_lock(&k->lock);
  k->stopping = true;
  pthread_cond_signal(&k->wake);
  pthread_mutex_unlock(&k->lock);
  pthread_join(k->thread, NULL);
  if (k->lock_fd == WAITING)
    take_lock_now(k);
  if (k->lock_fd >= 0) {
    save(k);
    close(k->lock_fd);
  }
  pthread_mutex_destroy(&k->lock);
  pthread_cond_destroy(&k->wake);
  free(k);
}

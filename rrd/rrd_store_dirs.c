/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store's directories and their epochs (see rrd_store_dirs.h). */
#include "rrd_store_dirs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The coarse clock's tick and a margin: a directory stamped this close
 * to a look may change again within the same stamp. */
#define SETTLE_NS 1000000000LL

struct store_dir {
  struct store_dir *next;
  char *path;
  time_t looked_at; /* the rows' second of the last look */
  bool looked;
  bool present;
  dev_t dev;
  ino_t ino;
  struct timespec mtime, ctime;
  uint64_t epoch;
};

void store_dirs_init(struct store_dirs *dirs) {
  pthread_mutex_init(&dirs->lock, NULL);
  dirs->first = NULL;
}

void store_dirs_destroy(struct store_dirs *dirs) {
  for (struct store_dir *d = dirs->first, *next; d != NULL; d = next) {
    next = d->next;
    free(d->path);
    free(d);
  }
  dirs->first = NULL;
  pthread_mutex_destroy(&dirs->lock);
}

static struct store_dir *dir_new(const char *path, size_t len) {
  struct store_dir *d = calloc(1, sizeof(*d));
  if (d != NULL && (d->path = strndup(path, len)) == NULL) {
    free(d);
    d = NULL;
  }
  return d;
}

struct store_dir *store_dirs_of(struct store_dirs *dirs, const char *path) {
  const char *slash = strrchr(path, '/'), *dir = path;
  size_t len = slash == NULL ? 0 : (size_t)(slash - path);
  if (slash == NULL) /* a relative name alone: the current directory */
    dir = ".", len = 1;
  else if (slash == path)
    dir = "/", len = 1;
  pthread_mutex_lock(&dirs->lock);
  struct store_dir *d = dirs->first;
  while (d != NULL && (strncmp(d->path, dir, len) != 0 || d->path[len] != 0))
    d = d->next;
  if (d == NULL && (d = dir_new(dir, len)) != NULL) {
    d->next = dirs->first;
    dirs->first = d;
  }
  pthread_mutex_unlock(&dirs->lock);
  return d;
}

static long long ns_of(const struct timespec *t) {
  return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static bool same_time(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Stamped less than a second before the look, or after it. */
static bool unsettled(const struct timespec *stamp, long long look_ns) {
  return ns_of(stamp) > look_ns - SETTLE_NS;
}

/* A stat of the directory: the epoch moves unless it is there, as it was
 * at the last look, and settled. */
static void look(struct store_dir *d, time_t now) {
  struct timespec clock;
  clock_gettime(CLOCK_REALTIME, &clock);
  struct stat st;
  bool present = stat(d->path, &st) == 0;
  bool same = present && d->present && d->looked && st.st_dev == d->dev &&
              st.st_ino == d->ino && same_time(&st.st_mtim, &d->mtime) &&
              same_time(&st.st_ctim, &d->ctime);
  bool settled = present && !unsettled(&st.st_mtim, ns_of(&clock)) &&
                 !unsettled(&st.st_ctim, ns_of(&clock));
  if (!same || !settled)
    d->epoch++;
  d->present = present;
  d->dev = present ? st.st_dev : 0;
  d->ino = present ? st.st_ino : 0;
  d->mtime = present ? st.st_mtim : (struct timespec){0};
  d->ctime = present ? st.st_ctim : (struct timespec){0};
  d->looked_at = now;
  d->looked = true;
}

uint64_t store_dirs_epoch(struct store_dirs *dirs, struct store_dir *dir,
                          time_t now) {
  pthread_mutex_lock(&dirs->lock);
  if (!dir->looked || dir->looked_at != now)
    look(dir, now);
  uint64_t epoch = dir->present ? dir->epoch : 0;
  pthread_mutex_unlock(&dirs->lock);
  return epoch;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store's directories and their epochs (see rrd_store_dirs.h). */
#include "rrd_store_dirs.h"

#include "pvecg/dir_stamp.h"

#include <stdlib.h>
#include <string.h>

struct store_dir {
  struct store_dir *next;
  char *path;
  time_t looked_at; /* the rows' second of the last look */
  bool looked;
  struct dir_stamp stamp;
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

/* A stat of the directory: the epoch moves unless it is there, as it was
 * at the last look, and settled. */
static void look(struct store_dir *d, time_t now) {
  struct timespec clock;
  clock_gettime(CLOCK_REALTIME, &clock);
  struct dir_stamp st;
  dir_stamp_take(&st, d->path, -1);
  if (!d->looked || !dir_stamp_same(&st, &d->stamp) ||
      dir_stamp_recent(&st, &clock))
    d->epoch++;
  d->stamp = st;
  d->looked_at = now;
  d->looked = true;
}

uint64_t store_dirs_epoch(struct store_dirs *dirs, struct store_dir *dir,
                          time_t now) {
  pthread_mutex_lock(&dirs->lock);
  if (!dir->looked || dir->looked_at != now)
    look(dir, now);
  uint64_t epoch = dir->stamp.present ? dir->epoch : 0;
  pthread_mutex_unlock(&dirs->lock);
  return epoch;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directories a scan read, and whether they changed (export_dirs.h). */
#include "pvecg/export_dirs.h"

#include "pvecg/grow.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The coarse clock's tick, and a margin for it: a directory stamped this
 * close to the scan's beginning may change again within the same stamp. */
#define SETTLE_NS 1000000000LL

static long long ns_of(const struct timespec *t) {
  return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static bool same_time(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static void mark_of(const struct stat *st, struct export_dir_mark *m) {
  m->present = true;
  m->dev = (uint64_t)st->st_dev;
  m->ino = (uint64_t)st->st_ino;
  m->mtime = st->st_mtim;
  m->ctime = st->st_ctim;
}

void export_dirs_begin(struct export_dirs *dirs) {
  for (size_t i = 0; i < dirs->count; i++)
    free(dirs->mark[i].path);
  dirs->count = 0;
  dirs->settled = dirs->complete = true;
  clock_gettime(CLOCK_REALTIME, &dirs->began);
}

/* Changed less than a second before the scan began, or after it. */
static bool recent(const struct export_dirs *dirs, const struct timespec *t) {
  return ns_of(t) > ns_of(&dirs->began) - SETTLE_NS;
}

void export_dirs_note(struct export_dirs *dirs, const char *path, int fd) {
  struct export_dir_mark m = {0};
  struct stat st;
  if ((fd >= 0 ? fstat(fd, &st) : stat(path, &st)) == 0)
    mark_of(&st, &m);
  struct export_dir_mark *grown = grow_array(
      dirs->mark, dirs->count + 1, &dirs->capacity, sizeof(*grown), 8);
  if (grown != NULL)
    dirs->mark = grown;
  if (grown == NULL || (m.path = strdup(path)) == NULL) {
    dirs->complete = false;
    return;
  }
  dirs->mark[dirs->count++] = m;
  if (m.present && (recent(dirs, &m.mtime) || recent(dirs, &m.ctime)))
    dirs->settled = false;
}

static bool mark_holds(const struct export_dir_mark *m) {
  struct stat st;
  if (stat(m->path, &st) != 0)
    return !m->present;
  struct export_dir_mark now;
  mark_of(&st, &now);
  return m->present && now.dev == m->dev && now.ino == m->ino &&
         same_time(&now.mtime, &m->mtime) && same_time(&now.ctime, &m->ctime);
}

bool export_dirs_unchanged(const struct export_dirs *dirs) {
  if (!dirs->settled || !dirs->complete || dirs->count == 0)
    return false;
  for (size_t i = 0; i < dirs->count; i++)
    if (!mark_holds(&dirs->mark[i]))
      return false;
  return true;
}

void export_dirs_free(struct export_dirs *dirs) {
  for (size_t i = 0; i < dirs->count; i++)
    free(dirs->mark[i].path);
  free(dirs->mark);
  *dirs = (struct export_dirs){0};
}

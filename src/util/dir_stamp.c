/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A directory's stamps and whether they moved (see dir_stamp.h). */
#include "pvecg/dir_stamp.h"

#include <sys/stat.h>

/* The coarse clock's tick and a margin: a directory stamped this close
 * to a look may change again within the same stamp. */
#define SETTLE_NS 1000000000LL

static long long ns_of(const struct timespec *t) {
  return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static bool same_time(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

void dir_stamp_take(struct dir_stamp *s, const char *path, int fd) {
  struct stat st;
  *s = (struct dir_stamp){0};
  if ((fd >= 0 ? fstat(fd, &st) : stat(path, &st)) != 0)
    return;
  s->present = true;
  s->dev = (uint64_t)st.st_dev;
  s->ino = (uint64_t)st.st_ino;
  s->mtime = st.st_mtim;
  s->ctime = st.st_ctim;
}

bool dir_stamp_same(const struct dir_stamp *a, const struct dir_stamp *b) {
  return a->present && b->present && a->dev == b->dev && a->ino == b->ino &&
         same_time(&a->mtime, &b->mtime) && same_time(&a->ctime, &b->ctime);
}

bool dir_stamp_recent(const struct dir_stamp *s, const struct timespec *at) {
  long long since = ns_of(at) - SETTLE_NS;
  return s->present && (ns_of(&s->mtime) > since || ns_of(&s->ctime) > since);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners file on disk (see rrd_owner_file.h): its lock, read and
 * saved whole (temporary file, fsync, rename, fsync of the directory, as
 * the shipper saves its state), and the operator's word on one file.
 */
#include "pvecg/rrd_owner_file.h"

#include "pvecg/file_durable.h"
#include "pvecg/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_NAME RRD_OWNER_FILE_NAME ".lock"
/* Far beyond the owners of 100,000 guests with their collisions. */
#define OWNERS_MAX (64u * 1024 * 1024)

static int path_of(const char *dir, const char *name, char *buf) {
  int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);
  return n > 0 && n < PATH_MAX ? 0 : -ENAMETOOLONG;
}

void rrd_owner_file_id_of(const char *data_dir, struct rrd_owner_file_id *ret) {
  char path[PATH_MAX];
  struct stat st;
  memset(ret, 0, sizeof(*ret));
  if (path_of(data_dir, RRD_OWNER_FILE_NAME, path) == 0 &&
      stat(path, &st) == 0)
    *ret = (struct rrd_owner_file_id){st.st_ino, st.st_size, st.st_mtim};
}

bool rrd_owner_file_id_same(const struct rrd_owner_file_id *a,
                            const struct rrd_owner_file_id *b) {
  return a->ino == b->ino && a->size == b->size &&
         a->mtime.tv_sec == b->mtime.tv_sec &&
         a->mtime.tv_nsec == b->mtime.tv_nsec;
}

int rrd_owner_file_lock(const char *data_dir) {
  char path[PATH_MAX];
  int r = path_of(data_dir, LOCK_NAME, path);
  int fd = r < 0 ? r : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return r < 0 ? r : -errno;
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) {
      r = -errno;
      close(fd);
      return r;
    }
  return fd;
}

int rrd_owner_file_read(const char *data_dir, struct rrd_owner_records *ret) {
  char path[PATH_MAX], *text = NULL;
  size_t len = 0;
  int r = path_of(data_dir, RRD_OWNER_FILE_NAME, path);
  if (r == 0)
    r = file_read_whole(path, OWNERS_MAX, &text, &len);
  if (r == -EFBIG)
    return -EPROTO; /* too big, or not a regular file: not ours */
  if (r == 0)
    r = rrd_owner_file_parse(text, len, ret);
  if (r == 0 && ret->count > 1)
    qsort(ret->r, ret->count, sizeof(*ret->r), rrd_owner_file_order);
  free(text);
  return r;
}

struct records {
  const struct rrd_owner_record *r;
  size_t n;
};

static int format(FILE *out, const void *ctx) {
  const struct records *t = ctx;
  return rrd_owner_file_write(out, t->r, t->n);
}

int rrd_owner_file_save(const char *data_dir, struct rrd_owner_record *r,
                        size_t n, struct rrd_owner_file_id *id) {
  char path[PATH_MAX], tmp[PATH_MAX];
  struct records text = {r, n};
  if (n > 1)
    qsort(r, n, sizeof(*r), rrd_owner_file_order); /* the same owners, the same file */
  int err = path_of(data_dir, RRD_OWNER_FILE_NAME, path);
  if (err == 0)
    err = path_of(data_dir, "." RRD_OWNER_FILE_NAME ".tmp", tmp);
  if (err == 0)
    err = file_write_durably(data_dir, path, tmp, NULL, 0644, format, &text);
  if (err == 0)
    rrd_owner_file_id_of(data_dir, id);
  return err;
}

/* Gives the file q names to host (its mark goes) or forgets its marks:
 * the records of the file that go are dropped in place. */
static int settle(struct rrd_owner_records *t,
                  const struct rrd_owner_record *q, const char *host) {
  double interval = 10.0; /* collectd's default, until host reports */
  size_t kept = 0, marks = 0;
  for (size_t i = 0; i < t->count; i++) {
    struct rrd_owner_record *r = &t->r[i];
    bool owner = r->kind == RRD_OWNER_RECORD_OWNER;
    bool goes = rrd_owner_same_file(r, q) &&
                (host == NULL ? !owner : owner || strcmp(r->host, host) == 0);
    if (goes && owner)
      interval = r->interval;
    marks += goes && !owner;
    if (!goes)
      t->r[kept++] = *r;
  }
  t->count = kept;
  if (host == NULL)
    return marks > 0 ? 0 : -ENOENT;
  t->r[kept] = *q; /* room: at least as many as before */
  t->r[kept].kind = RRD_OWNER_RECORD_OWNER;
  t->r[kept].interval = interval;
  snprintf(t->r[kept].host, sizeof(t->r[kept].host), "%s", host);
  t->count++;
  return 0;
}

int rrd_owner_file_settle(const char *data_dir,
                          const struct rrd_owner_record *q, const char *host) {
  struct rrd_owner_records t = {0};
  struct rrd_owner_file_id id;
  int fd = rrd_owner_file_lock(data_dir);
  if (fd < 0)
    return fd;
  int r = rrd_owner_file_read(data_dir, &t);
  if (r == -ENOENT)
    r = 0; /* none yet: nothing to forget */
  struct rrd_owner_record *grown =
      r == 0 ? grow_array(t.r, t.count + 1, &t.size, sizeof(*t.r), 1) : NULL;
  if (r == 0 && grown == NULL)
    r = -ENOMEM;
  if (grown != NULL)
    t.r = grown;
  if (r == 0)
    r = settle(&t, q, host);
  if (r == 0)
    r = rrd_owner_file_save(data_dir, t.r, t.count, &id);
  close(fd);
  free(t.r);
  return r;
}

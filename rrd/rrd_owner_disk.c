/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners file, its lock and the operator's requests on disk (see
 * rrd_owner_disk.h).  Files are saved as src/shipping/ship_state_file.c
 * saves the shipper's state: temporary file, fsync, rename, fsync of the
 * directory.
 */
#include "pvecg/rrd_owner_disk.h"

#include "pvecg/file_durable.h"

#include "pvecg/dir_names.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Far beyond the owners of 100,000 guests with their collisions. */
#define OWNERS_MAX (64u * 1024 * 1024)

static int path_in(const char *dir, const char *name, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s/%s", dir, name);
  return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static int read_path(const char *path, rrd_owner_record_fn *each, void *ctx,
                     struct rrd_owner_file_problems *problems) {
  char *text = NULL;
  size_t len = 0;
  memset(problems, 0, sizeof(*problems));
  int r = file_read_whole(path, OWNERS_MAX, &text, &len);
  if (r == -EFBIG || r == -EIO) {
    snprintf(problems->first, sizeof(problems->first), "%s",
             r == -EFBIG ? "not an owners file (too big, or not a regular file)"
                         : "changed while read");
    return -EPROTO;
  }
  if (r < 0)
    return r;
  r = rrd_owner_file_parse(text, len, each, ctx, problems);
  free(text);
  return r;
}

int rrd_owner_disk_read(const char *data_dir, rrd_owner_record_fn *each,
                        void *ctx, struct rrd_owner_file_problems *problems) {
  char path[PATH_MAX];
  int r = path_in(data_dir, RRD_OWNER_FILE_NAME, path, sizeof(path));
  return r < 0 ? r : read_path(path, each, ctx, problems);
}

/* The records to write, for file_write_durably(). */
struct records {
  const struct rrd_owner_record *record;
  size_t count;
};

static int format(FILE *out, const void *ctx) {
  const struct records *r = ctx;
  return rrd_owner_file_write(out, r->record, r->count);
}

/* Writes tmp, renames it to name, syncs the directory. */
static int save_as(const char *dir, const char *name, const char *tmp_name,
                   const struct rrd_owner_record *records, size_t count,
                   char *path, size_t path_size) {
  char tmp[PATH_MAX];
  int r = path_in(dir, name, path, path_size);
  if (r == 0)
    r = path_in(dir, tmp_name, tmp, sizeof(tmp));
  struct records text = {records, count};
  if (r == 0)
    r = file_write_durably(dir, path, tmp, NULL, 0644, format, &text);
  return r;
}

int rrd_owner_disk_save(const char *data_dir,
                        const struct rrd_owner_record *records, size_t count,
                        char *err, size_t err_size) {
  char path[PATH_MAX];
  int r = save_as(data_dir, RRD_OWNER_FILE_NAME, "." RRD_OWNER_FILE_NAME ".tmp",
                  records, count, path, sizeof(path));
  if (r < 0)
    snprintf(err, err_size, "saving %s/%s: %s", data_dir, RRD_OWNER_FILE_NAME,
             strerror(-r));
  return r;
}

int rrd_owner_disk_lock(const char *data_dir) {
  char path[PATH_MAX];
  int r = path_in(data_dir, RRD_OWNER_LOCK_NAME, path, sizeof(path));
  if (r < 0)
    return r;
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    r = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
    close(fd);
    return r;
  }
  return fd;
}

int rrd_owner_disk_request(const char *data_dir,
                           const struct rrd_owner_record *records, size_t count,
                           char *path, size_t path_size) {
  char name[64], tmp[80];
  snprintf(name, sizeof(name), RRD_OWNER_REQUEST_PREFIX "%ld", (long)getpid());
  /* a dot file until whole: the writer takes only names with the prefix */
  snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
  return save_as(data_dir, name, tmp, records, count, path, path_size);
}

static bool is_request(const char *name) {
  return strncmp(name, RRD_OWNER_REQUEST_PREFIX,
                 strlen(RRD_OWNER_REQUEST_PREFIX)) == 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int rrd_owner_disk_take_requests(const char *data_dir,
                                 rrd_owner_record_fn *each, void *ctx,
                                 struct rrd_owner_file_problems *problems) {
  struct dir_names names;
  dir_names_read(data_dir, DIR_ENTRY_FILE, is_request, 64, &names);
  if (names.count > 1)
    qsort(names.name, names.count, sizeof(*names.name), by_name);
  memset(problems, 0, sizeof(*problems));
  for (size_t i = 0; i < names.count; i++) {
    char path[PATH_MAX];
    struct rrd_owner_file_problems p;
    if (path_in(data_dir, names.name[i], path, sizeof(path)) != 0)
      continue;
    if (read_path(path, each, ctx, &p) != 0 && problems->first[0] == '\0')
      *problems = p;
    unlink(path);
  }
  int r = (int)names.count;
  dir_names_free(&names);
  return r;
}

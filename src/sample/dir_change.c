/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Detects changes of a cgroup directory's children from its cgroup.stat
 * (see dir_change.h for why not mtime).
 */
#include "dir_change.h"

#include "pvecg/file_read.h"

#include "pvecg/flat_keyed.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#define NO_TOKEN UINT64_MAX

void dir_change_init(struct dir_change *dc) {
  dc->fd = -1;
  dc->known = false;
  dc->count = 0;
}

void dir_change_close(struct dir_change *dc) {
  if (dc->fd >= 0)
    close(dc->fd);
  dir_change_init(dc);
}

void dir_change_forget(struct dir_change *dc) { dc->known = false; }

static int open_stat(struct dir_change *dc, const char *dir) {
  char path[PATH_MAX];
  int n = snprintf(path, sizeof(path), "%s/cgroup.stat", dir);
  if (n < 0 || (size_t)n >= sizeof(path))
    return -ENAMETOOLONG;
  /* O_NONBLOCK: a FIFO must not make open() wait for a writer. */
  dc->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  return dc->fd < 0 ? -errno : 0;
}

static int read_count(const struct dir_change *dc, uint64_t *ret) {
  char buf[512];
  size_t n = 0;
  int err = file_pread_all(dc->fd, buf, sizeof(buf), &n);
  if (err < 0)
    return err;
  static const char *const keys[] = {"nr_descendants"};
  uint64_t found = 0;
  err = flat_keyed_parse(buf, n, keys, 1, ret, &found);
  if (err < 0)
    return err;
  return found == 1 ? 0 : -ENOMSG;
}

bool dir_change_check(struct dir_change *dc, const char *dir, uint64_t *token) {
  uint64_t count;
  *token = NO_TOKEN;
  /* The file is (re)opened only when needed: a directory made later, or
   * one that was removed and re-created, gets a fresh descriptor. */
  if (dc->fd < 0 && open_stat(dc, dir) < 0)
    return true;
  if (read_count(dc, &count) < 0) {
    dir_change_close(dc);
    return true;
  }
  *token = count;
  return !dc->known || count != dc->count;
}

void dir_change_listed(struct dir_change *dc, uint64_t token) {
  dc->known = token != NO_TOKEN;
  dc->count = token;
}

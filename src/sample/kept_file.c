/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kept-open kernel files (see kept_file.h), read by file_pread_grow.
 */
#include "kept_file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int kept_file_open(struct kept_file *f, int dirfd, const char *path) {
  if (f->fd >= 0)
    return 0;
  /* O_NONBLOCK: a FIFO in the file's place must not make open() wait for
   * a writer (no effect on kernfs, procfs or regular files). */
  f->fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  return f->fd < 0 ? -errno : 0;
}

int kept_file_read(struct kept_file *f, struct read_buffer *buf, size_t *len) {
  int r;

  if (f->fd < 0)
    return -EBADF;
  r = file_pread_grow(f->fd, buf, READ_BUFFER_MAX, len);
  /* -ENOMEM is ours, not the file's: keep the descriptor. */
  if (r < 0 && r != -ENOMEM)
    kept_file_close(f);
  return r;
}

void kept_file_close(struct kept_file *f) {
  if (f->fd >= 0)
    close(f->fd);
  f->fd = -1;
}

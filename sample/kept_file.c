/*
 * Kept-open kernel files (see kept_file.h).  The buffer grows only when a
 * read fills it, so after the first run every read is one pread into
 * memory that is already there.
 */
#include "kept_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define READ_BUFFER_MIN 4096

void read_buffer_free(struct read_buffer *buf) {
  free(buf->data);
  buf->data = NULL;
  buf->size = 0;
}

static int read_buffer_grow(struct read_buffer *buf) {
  size_t size = buf->size ? buf->size * 2 : READ_BUFFER_MIN;
  char *data;

  if (size > READ_BUFFER_MAX)
    return -EFBIG;
  data = realloc(buf->data, size);
  if (!data)
    return -ENOMEM;
  buf->data = data;
  buf->size = size;
  return 0;
}

int kept_file_open(struct kept_file *f, int dirfd, const char *path) {
  if (f->fd >= 0)
    return 0;
  /* O_NONBLOCK: a FIFO in the file's place must not make open() wait for
   * a writer (no effect on kernfs, procfs or regular files). */
  f->fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  return f->fd < 0 ? -errno : 0;
}

static ssize_t pread_retrying(int fd, char *buf, size_t size) {
  ssize_t n;

  do
    n = pread(fd, buf, size, 0);
  while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : n;
}

/* One read from offset 0; a read that fills the buffer may have missed the
 * rest of the file, so the buffer grows and the file is read again. */
static int read_whole(int fd, struct read_buffer *buf, size_t *len) {
  for (;;) {
    ssize_t n;
    int r;

    if (buf->size == 0 && (r = read_buffer_grow(buf)) < 0)
      return r;
    n = pread_retrying(fd, buf->data, buf->size);
    if (n < 0)
      return (int)n;
    if ((size_t)n < buf->size) {
      *len = (size_t)n;
      return 0;
    }
    r = read_buffer_grow(buf);
    if (r < 0)
      return r;
  }
}

int kept_file_read(struct kept_file *f, struct read_buffer *buf, size_t *len) {
  int r;

  if (f->fd < 0)
    return -EBADF;
  r = read_whole(f->fd, buf, len);
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

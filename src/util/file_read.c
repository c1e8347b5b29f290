/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading files whole from offset 0 (see file_read.h). */
#include "pvecg/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BUFFER_MIN 4096

void read_buffer_free(struct read_buffer *buf) {
  free(buf->data);
  buf->data = NULL;
  buf->size = 0;
}

static ssize_t pread_retrying(int fd, char *buf, size_t size) {
  ssize_t n;

  do
    n = pread(fd, buf, size, 0);
  while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : n;
}

int file_pread_all(int fd, char *buf, size_t size, size_t *len) {
  ssize_t n = pread_retrying(fd, buf, size);

  if (n < 0)
    return (int)n;
  if ((size_t)n >= size)
    return -EFBIG;
  *len = (size_t)n;
  return 0;
}

/* Doubles the buffer, the last step only up to max: a file fits when it
 * is shorter than max (a read that fills the buffer is cut short). */
static int read_buffer_grow(struct read_buffer *buf, size_t max) {
  size_t size = buf->size ? buf->size * 2 : READ_BUFFER_MIN;
  char *data;

  if (buf->size >= max)
    return -EFBIG;
  if (size > max)
    size = max;
  data = realloc(buf->data, size);
  if (!data)
    return -ENOMEM;
  buf->data = data;
  buf->size = size;
  return 0;
}

/* The buffer grows only when a read fills it, so once it has grown to the
 * file every read is one pread into memory that is already there. */
int file_pread_grow(int fd, struct read_buffer *buf, size_t max, size_t *len) {
  for (;;) {
    int r;

    if (buf->size == 0 && (r = read_buffer_grow(buf, max)) < 0)
      return r;
    /* a buffer grown for a larger max still reads at most max */
    r = file_pread_all(fd, buf->data, buf->size < max ? buf->size : max, len);
    if (r != -EFBIG)
      return r;
    r = read_buffer_grow(buf, max);
    if (r < 0)
      return r;
  }
}

int file_read_regular(int dirfd, const char *path, char *buf, size_t size,
                      size_t *len) {
  int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  int r;

  if (fd < 0)
    return -errno;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    r = -ESPIPE;
  else
    r = file_pread_all(fd, buf, size, len);
  close(fd);
  return r;
}

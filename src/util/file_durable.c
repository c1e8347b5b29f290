/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Our own state files, read whole and written durably (see
 * file_durable.h).
 */
#include "pvecg/file_durable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads fd to its end into buf[0..size + 1): exactly size bytes, or the
 * file changed while it was read (a read may return less than asked on
 * FUSE or NFS, or after a signal, without the file being done). */
static int read_exactly(int fd, char *buf, size_t size) {
  size_t got = 0;
  for (;;) {
    ssize_t n = read(fd, buf + got, size + 1 - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -errno;
    if (n == 0)
      return got == size ? 0 : -EIO;
    got += (size_t)n;
    if (got > size)
      return -EIO; /* it grew */
  }
}

static void dispose(char *buf, size_t size, bool secret) {
  if (buf != NULL && secret)
    explicit_bzero(buf, size);
  free(buf);
}

int file_read_whole_as(const char *path, const struct file_whole *how,
                       char **ret, size_t *len, mode_t *mode) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return -errno;
  struct stat st;
  char *buf = NULL;
  int r = fstat(fd, &st) == 0 ? 0 : -errno;
  if (r == 0 && (!S_ISREG(st.st_mode) || (size_t)st.st_size > how->max))
    r = -EFBIG;
  if (r == 0 && (st.st_mode & how->forbidden) != 0)
    r = -EPERM;
  if (mode != NULL && r != -EFBIG)
    *mode = st.st_mode;
  size_t size = r == 0 ? (size_t)st.st_size : 0;
  if (r == 0 && (buf = malloc(size + 1)) == NULL)
    r = -ENOMEM;
  if (r == 0)
    r = read_exactly(fd, buf, size);
  close(fd);
  if (r < 0) {
    dispose(buf, size + 1, how->secret);
    return r;
  }
  buf[size] = '\0';
  *ret = buf;
  *len = size;
  return 0;
}

int file_read_whole(const char *path, size_t max, char **ret, size_t *len) {
  const struct file_whole how = {.max = max};
  return file_read_whole_as(path, &how, ret, len, NULL);
}

static int sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  int r = fsync(fd) == 0 ? 0 : -errno;
  close(fd);
  return r;
}

/* The text into path, on disk before this returns. */
static int write_synced(const char *path, mode_t mode, file_text_fn *text,
                        const void *ctx) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0)
    return -errno;
  FILE *f = fdopen(fd, "w");
  if (f == NULL) {
    close(fd);
    return -ENOMEM;
  }
  int r = text(f, ctx);
  if (fflush(f) != 0 || ferror(f))
    r = r < 0 ? r : -EIO;
  if (r == 0 && fsync(fd) != 0)
    r = -errno;
  if (fclose(f) != 0 && r == 0)
    r = -EIO;
  return r;
}

int file_write_durably(const char *dir, const char *path, const char *tmp,
                       const char *keep, mode_t mode, file_text_fn *text,
                       const void *ctx) {
  int r = write_synced(tmp, mode, text, ctx);
  if (r == 0 && keep != NULL && unlink(keep) != 0 && errno != ENOENT)
    r = -errno;
  if (r == 0 && keep != NULL && link(path, keep) != 0 && errno != ENOENT)
    r = -errno;
  if (r == 0 && rename(tmp, path) != 0)
    r = -errno;
  if (r == 0)
    r = sync_dir(dir);
  else
    unlink(tmp);
  return r;
}

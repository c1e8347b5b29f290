/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Our own state files, read whole and written durably (see
 * file_durable.h).
 */
#include "pvecg/file_durable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int file_read_whole(const char *path, size_t max, char **ret, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat st;
  char *buf = NULL;
  int r = fstat(fd, &st) == 0 ? 0 : -errno;
  if (r == 0 && (!S_ISREG(st.st_mode) || (size_t)st.st_size > max))
    r = -EFBIG;
  if (r == 0 && (buf = malloc((size_t)st.st_size + 1)) == NULL)
    r = -ENOMEM;
  size_t got = 0;
  while (r == 0 && got < (size_t)st.st_size) {
    ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      r = n < 0 ? -errno : -EIO; /* shorter than it said: changed under us */
    else
      got += (size_t)n;
  }
  close(fd);
  if (r < 0) {
    free(buf);
    return r;
  }
  buf[got] = '\0';
  *ret = buf;
  *len = got;
  return 0;
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

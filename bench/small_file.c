/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whole-file reads and single-write writes of small kernel files (see
 * small_file.h).
 */
#include "small_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long small_file_read(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  size_t len = 0;
  long err = 0;
  for (;;) {
    if (len + 1 >= size) {
      err = -EFBIG;
      break;
    }
    ssize_t n = read(fd, buf + len, size - 1 - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      err = -errno;
      break;
    }
    if (n == 0)
      break;
    len += (size_t)n;
  }
  close(fd);
  if (err < 0)
    return err;
  buf[len] = '\0';
  return (long)len;
}

int small_file_read_ulong(const char *path, unsigned long *ret) {
  char buf[64];
  long n = small_file_read(path, buf, sizeof(buf));
  if (n < 0)
    return (int)n;
  char *end;
  errno = 0;
  unsigned long v = strtoul(buf, &end, 10);
  if (errno || end == buf || (*end != '\n' && *end != '\0'))
    return -EBADMSG;
  *ret = v;
  return 0;
}

static int write_all(int fd, const char *text) {
  size_t len = strlen(text);
  ssize_t n;
  do
    n = write(fd, text, len);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -errno;
  return (size_t)n == len ? 0 : -EIO;
}

int small_file_write(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  int err = write_all(fd, text);
  if (close(fd) < 0 && err == 0)
    err = -errno;
  return err;
}

int small_file_create(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  int err = write_all(fd, text);
  if (close(fd) < 0 && err == 0)
    err = -errno;
  return err;
}

/*
 * Finds the cgroup mounts of this host by reading /proc/self/mountinfo
 * (the parsing lives in mountinfo.c, so it can be tested and fuzzed on
 * buffers).
 */
#include "cgroup_roots.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* mountinfo of a busy host can be long; read it whole, growing the buffer. */
static int read_whole_file(const char *path, char **ret, size_t *ret_len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  size_t cap = 16384, len = 0;
  char *buf = malloc(cap);
  int err = buf ? 0 : -ENOMEM;
  while (err == 0) {
    if (len == cap) {
      char *bigger = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;
      if (!bigger) {
        err = -ENOMEM;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      err = -errno;
    else if (n == 0)
      break;
    else
      len += (size_t)n;
  }
  close(fd);
  if (err) {
    free(buf);
    return err;
  }
  *ret = buf;
  *ret_len = len;
  return 0;
}

int cgroup_roots_detect(const char *path, struct cgroup_mounts *ret) {
  char *buf = NULL;
  size_t len = 0;
  int err = read_whole_file(path, &buf, &len);
  if (err)
    return err;
  err = mountinfo_parse(buf, len, ret);
  free(buf);
  return err;
}

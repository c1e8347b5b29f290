/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finds the cgroup mounts of this host by reading /proc/self/mountinfo
 * (the parsing lives in mountinfo.c, so it can be tested and fuzzed on
 * buffers).
 */
#include "pvecg/cgroup_roots.h"

#include "pvecg/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* mountinfo of a busy host can be long: read it whole, growing the buffer
 * up to this.  (Opened without O_NONBLOCK: a fixed procfs path, read once
 * at init.) */
#define MOUNTINFO_MAX (64u << 20)

int cgroup_roots_detect(const char *path, struct cgroup_mounts *ret) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct read_buffer buf = {0};
  size_t len = 0;
  int err = file_pread_grow(fd, &buf, MOUNTINFO_MAX, &len);
  close(fd);
  if (err == 0)
    err = mountinfo_parse(buf.data, len, ret);
  read_buffer_free(&buf);
  return err;
}

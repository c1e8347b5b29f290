/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A VM's ksm_stat, kept open (see guest_ksm.h). */
#include "guest_ksm.h"

#include "guest_settings.h"

#include "pvecg/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

int guest_ksm_open(const char *proc_root, int pid, uint64_t start) {
  char path[PATH_MAX];
  int n = snprintf(path, sizeof(path), "%s/%d/ksm_stat", proc_root, pid);
  if (n < 0 || (size_t)n >= sizeof(path))
    return -ENAMETOOLONG;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  int err = fd < 0 ? -errno : 0;
  /* Checked after the open: a process that was still the one found then
   * was the one whose file was opened. */
  uint64_t now_start;
  if (guest_pid_start(proc_root, pid, &now_start) < 0 || now_start != start)
    err = -ESRCH;
  if (err < 0) {
    if (fd >= 0)
      close(fd);
    return err;
  }
  return fd;
}

int guest_ksm_read(int fd, char *buf, size_t size, size_t *len) {
  int err = file_pread_all(fd, buf, size, len);
  if (err == 0 && *len == 0)
    err = -ESRCH; /* some kernels answer an exited task's file with EOF */
  return err;
}

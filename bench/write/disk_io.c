/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bytes written by a process and by a device (see disk_io.h).
 */
/* syncfs(2) is a GNU extension: _GNU_SOURCE comes from the build. */
#include "disk_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int disk_io_process_bytes(pid_t pid, uint64_t *ret) {
  char path[64], line[128];
  if (pid > 0)
    snprintf(path, sizeof(path), "/proc/%ld/io", (long)pid);
  else
    snprintf(path, sizeof(path), "/proc/self/io");
  FILE *f = fopen(path, "re");
  if (f == NULL)
    return -errno;
  int r = -EPROTO;
  while (r != 0 && fgets(line, sizeof(line), f) != NULL)
    if (sscanf(line, "write_bytes: %" SCNu64, ret) == 1)
      r = 0;
  fclose(f);
  return r;
}

int disk_io_device_bytes(const char *dir, uint64_t *ret) {
  struct stat st;
  if (stat(dir, &st) != 0)
    return -errno;
  FILE *f = fopen("/proc/diskstats", "re");
  if (f == NULL)
    return -errno;
  char line[512];
  unsigned maj, min;
  uint64_t f4, f5, f6, f7, f8, f9, sectors;
  int r = -ENOENT;
  /* major minor name reads merged sectors ms writes merged sectors ... */
  while (r != 0 && fgets(line, sizeof(line), f) != NULL)
    if (sscanf(line,
               " %u %u %*s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
               " %" SCNu64 " %" SCNu64 " %" SCNu64,
               &maj, &min, &f4, &f5, &f6, &f7, &f8, &f9, &sectors) == 9 &&
        maj == major(st.st_dev) && min == minor(st.st_dev)) {
      *ret = sectors * 512; /* diskstats counts 512-byte sectors always */
      r = 0;
    }
  fclose(f);
  return r;
}

int disk_io_write_back(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  int r = syncfs(fd) == 0 ? 0 : -errno;
  close(fd);
  return r;
}

int disk_io_drop_cache(void) {
  FILE *f = fopen("/proc/sys/vm/drop_caches", "we");
  if (f == NULL)
    return -errno;
  int r = fputs("1\n", f) >= 0 ? 0 : -EIO;
  return fclose(f) == 0 ? r : -errno;
}

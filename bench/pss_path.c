/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The smaps_rollup PSS path, measured as a reader and used by the KSM mode
 * for RSS and PSS (see pss_path.h).  It does what the Perl code did: read
 * whole files by path, match lines, no kept descriptors.
 */
#include "pss_path.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* smaps_rollup is ~1 KiB; cgroup.procs of a QEMU guest holds a few pids. */
#define PSS_BUF_SIZE 8192

static long read_path(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  size_t len = 0;
  long err = 0;
  while (len + 1 < size) {
    ssize_t n = read(fd, buf + len, size - 1 - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      err = n < 0 ? -errno : 0;
      break;
    }
    len += (size_t)n;
  }
  close(fd);
  if (err < 0)
    return err;
  buf[len] = '\0';
  return (long)len;
}

/* "<key>   <n> kB" at the start of a line, in bytes. */
static bool match_kb_line(const char *line, const char *key, uint64_t *ret) {
  size_t klen = strlen(key);
  if (strncmp(line, key, klen) != 0)
    return false;
  char *end;
  unsigned long long kb = strtoull(line + klen, &end, 10);
  if (end == line + klen)
    return false;
  *ret = (uint64_t)kb * 1024;
  return true;
}

int pss_path_process(pid_t pid, struct smaps_rollup *ret) {
  char path[64], buf[PSS_BUF_SIZE];
  snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
  long n = read_path(path, buf, sizeof(buf));
  if (n < 0)
    return (int)n;
  struct smaps_rollup r = {0, 0};
  bool have_rss = false, have_pss = false;
  for (char *line = buf; line && *line; line = strchr(line, '\n')) {
    if (*line == '\n')
      line++;
    uint64_t v;
    if (!have_rss && match_kb_line(line, "Rss:", &v)) {
      r.rss = v;
      have_rss = true;
    } else if (!have_pss && match_kb_line(line, "Pss:", &v)) {
      r.pss = v;
      have_pss = true;
    }
  }
  if (!have_pss)
    return -EBADMSG;
  *ret = r;
  return 0;
}

int pss_path_cgroup(const char *cgroup_dir, uint64_t *ret, size_t *procs) {
  char path[PATH_MAX], buf[PSS_BUF_SIZE];
  snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_dir);
  long n = read_path(path, buf, sizeof(buf));
  if (n < 0)
    return (int)n;
  uint64_t total = 0;
  size_t count = 0;
  char *p = buf;
  while (*p) {
    char *end;
    long pid = strtol(p, &end, 10);
    if (end == p)
      break;
    p = *end ? end + 1 : end;
    struct smaps_rollup r;
    /* A process that exited since the listing is simply not counted. */
    if (pss_path_process((pid_t)pid, &r) == 0) {
      total += r.pss;
      count++;
    }
  }
  *ret = total;
  *procs = count;
  return 0;
}

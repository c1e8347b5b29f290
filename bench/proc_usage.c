/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Descriptor count, resident memory and CPU time of a process, from /proc
 * (see proc_usage.h).
 */
#include "proc_usage.h"

#include "small_file.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void proc_path(pid_t pid, const char *what, char *buf, size_t size) {
  if (pid == 0)
    snprintf(buf, size, "/proc/self/%s", what);
  else
    snprintf(buf, size, "/proc/%d/%s", (int)pid, what);
}

int proc_fd_count(pid_t pid, size_t *ret) {
  char path[64];
  proc_path(pid, "fd", path, sizeof(path));
  DIR *dir = opendir(path);
  if (!dir)
    return -errno;
  size_t count = 0;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL)
    if (de->d_name[0] != '.')
      count++;
  closedir(dir);
  /* Our own listing holds one descriptor while it counts. */
  *ret = pid == 0 && count > 0 ? count - 1 : count;
  return 0;
}

int proc_rss_bytes(pid_t pid, uint64_t *ret) {
  char path[64], buf[256];
  proc_path(pid, "statm", path, sizeof(path));
  long n = small_file_read(path, buf, sizeof(buf));
  if (n < 0)
    return (int)n;
  unsigned long long size, resident;
  if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
    return -EBADMSG;
  *ret = (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
  return 0;
}

/* utime and stime are fields 14 and 15; the command name in field 2 may
 * contain spaces and parentheses, so count from the last ')'. */
static int stat_ticks(pid_t pid, uint64_t *ret) {
  char path[64], buf[2048];
  proc_path(pid, "stat", path, sizeof(path));
  long n = small_file_read(path, buf, sizeof(buf));
  if (n < 0)
    return n == -ENOENT ? -ESRCH : (int)n;
  char *p = strrchr(buf, ')');
  if (!p)
    return -EBADMSG;
  unsigned long long utime, stime;
  /* After ')': state(3) ppid pgrp session tty tpgid flags minflt cminflt
   * majflt cmajflt(13) utime(14) stime(15). */
  if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
             &utime, &stime) != 2)
    return -EBADMSG;
  *ret = (uint64_t)(utime + stime);
  return 0;
}

static enum proc_thread_role thread_role(const char *task_dir) {
  char file[PATH_MAX + 8], comm[32];
  snprintf(file, sizeof(file), "%s/comm", task_dir);
  if (small_file_read(file, comm, sizeof(comm)) <= 0)
    return PROC_THREAD_OTHER;
  return strncmp(comm, "reader#", 7) == 0   ? PROC_THREAD_READER
         : strncmp(comm, "writer#", 7) == 0 ? PROC_THREAD_WRITER
                                            : PROC_THREAD_OTHER;
}

static void schedstat_sum(pid_t pid, struct proc_cpu *ret) {
  char path[64];
  ret->runtime_ns = ret->timeslices = 0;
  memset(ret->role_ns, 0, sizeof(ret->role_ns));
  memset(ret->role_slices, 0, sizeof(ret->role_slices));
  proc_path(pid, "task", path, sizeof(path));
  DIR *dir = opendir(path);
  if (!dir)
    return;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    if (de->d_name[0] == '.')
      continue;
    char task[PATH_MAX], file[PATH_MAX + 16], buf[128];
    snprintf(task, sizeof(task), "%s/%s", path, de->d_name);
    snprintf(file, sizeof(file), "%s/schedstat", task);
    unsigned long long ns, wait, slices;
    if (small_file_read(file, buf, sizeof(buf)) > 0 &&
        sscanf(buf, "%llu %llu %llu", &ns, &wait, &slices) == 3) {
      ret->runtime_ns += (uint64_t)ns;
      ret->timeslices += (uint64_t)slices;
      enum proc_thread_role role = thread_role(task);
      ret->role_ns[role] += (uint64_t)ns;
      ret->role_slices[role] += (uint64_t)slices;
    }
  }
  closedir(dir);
}

int proc_cpu_read(pid_t pid, struct proc_cpu *ret) {
  uint64_t ticks;
  int err = stat_ticks(pid, &ticks);
  if (err < 0)
    return err;
  ret->ticks = ticks;
  schedstat_sum(pid, ret);
  return 0;
}

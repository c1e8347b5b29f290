/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process and its direct children, found by their parent pid in
 * /proc/<pid>/stat (kernels without CONFIG_PROC_CHILDREN have no
 * /proc/<pid>/task/<tid>/children).
 */
#include "proc_family.h"

#include "proc_usage.h"
#include "small_file.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pid_t parent_of(const char *pid_name) {
  char path[sizeof("/proc//stat") + 256], buf[512]; /* d_name: 256 bytes */
  snprintf(path, sizeof(path), "/proc/%s/stat", pid_name);
  if (small_file_read(path, buf, sizeof(buf)) <= 0)
    return 0;
  /* The name in parentheses may hold spaces: the fields follow the last
   * ')'. */
  const char *p = strrchr(buf, ')');
  int ppid = 0;
  if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
    return 0;
  return (pid_t)ppid;
}

uint64_t proc_family_runtime_ns(pid_t pid) {
  struct proc_cpu c;
  uint64_t sum = proc_cpu_read(pid, &c) == 0 ? c.runtime_ns : 0;
  DIR *dir = opendir("/proc");
  if (!dir)
    return sum;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    if (!isdigit((unsigned char)de->d_name[0]) || parent_of(de->d_name) != pid)
      continue;
    if (proc_cpu_read((pid_t)atoi(de->d_name), &c) == 0)
      sum += c.runtime_ns;
  }
  closedir(dir);
  return sum;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Making and removing the benchmark's temporary directories (see
 * temp_dir.h).
 */
#include "temp_dir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

int temp_dir_create(const char *prefix, char *buf, size_t size) {
  int n = snprintf(buf, size, "/tmp/%s.XXXXXX", prefix);
  if (n < 0 || (size_t)n >= size)
    return -ENAMETOOLONG;
  return mkdtemp(buf) ? 0 : -errno;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int temp_dir_remove(const char *path) {
  return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}

size_t temp_dir_entries(const char *path) {
  DIR *dir = opendir(path);
  if (!dir)
    return 0;
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL)
    n += de->d_name[0] != '.';
  closedir(dir);
  return n;
}

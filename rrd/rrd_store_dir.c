/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The layouts' directories below the data directory, made when a file is
 * created in one (mkdir -p, mode 0750), so a fresh DataDir needs no
 * preparation.  Used by rrd_store_file.c.
 */
#include "rrd_store_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* One level of make_dirs(): an existing directory is fine. */
static int make_dir(const char *path) {
  if (mkdir(path, 0750) == 0)
    return 0;
  int r = -errno;
  struct stat st;
  if (stat(path, &st) != 0)
    return r == -EEXIST ? -errno : r;
  return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* mkdir -p with mode 0750 (pmxcfs's directories under its umask 027). */
static int make_dirs(const char *path) {
  char buf[PATH_MAX];
  int n = snprintf(buf, sizeof(buf), "%s", path);
  if (n < 0 || (size_t)n >= sizeof(buf))
    return -ENAMETOOLONG;
  for (char *p = buf + 1; *p != '\0'; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    int r = make_dir(buf);
    *p = '/';
    if (r < 0)
      return r;
  }
  return make_dir(buf);
}

/* The layout's directory, made here for local files (rrdcached over a unix
 * socket resolves paths on this side too); a daemon over TCP makes its own
 * (rrdcached -R). */
int store_make_layout_dir(const struct rrd_store *store, struct entry *e,
                          time_t t, time_t now, struct rrd_store_result *res) {
  if (!store->access->local)
    return 0;
  char dir[PATH_MAX];
  int n = snprintf(dir, sizeof(dir), "%s/%s", store->data_dir, e->layout->name);
  int r = n < 0 || (size_t)n >= sizeof(dir) ? -ENAMETOOLONG : make_dirs(dir);
  if (r < 0) {
    char shown[SHOWN_SIZE], text[128];
    store_shorten_path(dir, shown, sizeof(shown));
    /* named with the file: one line per file, not several alike */
    store_fail(e, now, res,
               "Could not create the directory %s for %s: %s; the row for %lld "
               "is dropped.",
               shown, e->name, strerror_r(-r, text, sizeof(text)),
               (long long)t);
  }
  return r;
}

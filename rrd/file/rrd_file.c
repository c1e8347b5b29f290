/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RRD files of a layout through librrd: create, check, update, last update
 * (see rrd_file.h).
 *
 * Everything librrd is told is derived from the layout table, so a file
 * made here and the check of a file found here can never disagree.  librrd
 * keeps its error text per thread; every call clears it first so the text
 * reported belongs to that call.
 */
#include "pvecg/rrd_file.h"
#include "pvecg/rrd_words.h"

#include "rrd_text.h"

#include <rrd.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

void rrd_file_prepare_librrd(void) {
  (void)rrd_set_to_DNAN();
  (void)rrd_set_to_DINF();
}

/* ---- creation ---------------------------------------------------------- */

/* "no reason given; N bytes are free ..." for the directory of path: the
 * likely cause when librrd cannot say. */
static void free_space_text(const char *path, char *buf, size_t size) {
  const char *slash = strrchr(path, '/');
  char dir[PATH_MAX];
  snprintf(dir, sizeof(dir), "%.*s", slash != NULL ? (int)(slash - path) : 1,
           slash != NULL ? path : ".");
  struct statvfs fs;
  if (statvfs(dir, &fs) == 0)
    snprintf(buf, size,
             "no reason given; %llu bytes are free on its file system",
             (unsigned long long)fs.f_bavail * fs.f_frsize);
  else
    snprintf(buf, size, "unknown librrd error");
}

static int create_with_librrd(const struct rrd_layout *layout, const char *path,
                              time_t start, char *err, size_t err_size) {
  struct rrd_words_definitions defs;
  if (rrd_words_definitions(layout, &defs) != 0) {
    rrd_text_set(err, err_size, "layout %s cannot be expressed", layout->name);
    return -EIO;
  }
  rrd_clear_error();
  if (rrd_create_r2(path, layout->step, start, 1 /* no_overwrite */, NULL, NULL,
                    defs.argc, defs.argv) != 0) {
    /* librrd 1.7.2 gives no reason when writing the new file fails (a full
     * disk), and its errno is not the write's by then. */
    char text[128];
    free_space_text(path, text, sizeof(text));
    rrd_text_set(err, err_size, "librrd: %s", rrd_text_librrd_error(text));
    return -EIO;
  }
  /* librrd 1.7.2 writes a mkstemp file (0600) and chmods it to 0644 before
   * renaming it, whatever the umask: PVE's mode, so no chmod here.
   * test_rrd_file pins this under umask 077. */
  return 0;
}

/* "<dir>/.<base>.XXXXXX" next to path, so the result can be linked in. */
static int private_dir_template(const char *path, char *buf, size_t size) {
  const char *slash = strrchr(path, '/');
  int n = slash == NULL ? snprintf(buf, size, "./.%s.XXXXXX", path)
                        : snprintf(buf, size, "%.*s/.%s.XXXXXX",
                                   (int)(slash - path), path, slash + 1);
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The file is made under a private name and linked into place: librrd's
 * own no_overwrite is a stat() followed by rename(), which replaces a file
 * another writer (pmxcfs) creates in between; link() cannot. */
static int create_privately(const struct rrd_layout *layout, const char *path,
                            const char *dir, time_t start, char *err,
                            size_t err_size) {
  const char *base = strrchr(path, '/');
  base = base == NULL ? path : base + 1;
  char tmp[PATH_MAX];
  int n = snprintf(tmp, sizeof(tmp), "%s/%s", dir, base);
  if (n < 0 || (size_t)n >= sizeof(tmp)) {
    rrd_text_set(err, err_size, "path too long");
    return -EIO;
  }
  int r = create_with_librrd(layout, tmp, start, err, err_size);
  if (r == 0 && link(tmp, path) != 0) {
    r = errno == EEXIST ? -EEXIST : -EIO;
    char text[128];
    rrd_text_set(err, err_size, "cannot link %s to %s: %s", tmp, path,
                 strerror_r(errno, text, sizeof(text)));
  }
  unlink(tmp);
  return r;
}

int rrd_file_create(const struct rrd_layout *layout, const char *path,
                    time_t start, char *err, size_t err_size) {
  if (layout == NULL || path == NULL) {
    rrd_text_set(err, err_size, "no layout or path");
    return -EIO;
  }
  struct stat st;
  if (lstat(path, &st) == 0) { /* cheap answer for the common case */
    rrd_text_set(err, err_size, "%s exists", path);
    return -EEXIST;
  }
  char dir[PATH_MAX];
  if (private_dir_template(path, dir, sizeof(dir)) != 0) {
    rrd_text_set(err, err_size, "path too long");
    return -EIO;
  }
  if (mkdtemp(dir) == NULL) {
    char text[128];
    rrd_text_set(err, err_size, "cannot create a directory next to %s: %s",
                 path, strerror_r(errno, text, sizeof(text)));
    return -EIO;
  }
  int r = create_privately(layout, path, dir, start, err, err_size);
  rmdir(dir);
  return r;
}

/* ---- check ------------------------------------------------------------- */

int rrd_file_check(const struct rrd_layout *layout, const char *path, char *why,
                   size_t why_size) {
  if (layout == NULL || path == NULL) {
    rrd_text_set(why, why_size, "no layout or path");
    return -EIO;
  }
  struct stat st;
  /* lstat: a symlink in the data directory is not followed, as librrd
   * would, to a file somewhere else */
  if (lstat(path, &st) != 0) {
    /* ENOTDIR: a path component is a file, so this file cannot exist */
    if (errno == ENOENT || errno == ENOTDIR)
      return -ENOENT;
    /* EACCES, ELOOP, ENAMETOOLONG...: nothing is known about the file */
    int r = -errno;
    char text[128];
    rrd_text_set(why, why_size, "%s", strerror_r(-r, text, sizeof(text)));
    return r;
  }
  if (!S_ISREG(st.st_mode)) {
    rrd_text_set(why, why_size, "%s",
                 S_ISLNK(st.st_mode) ? "a symbolic link, not followed"
                                     : "not a regular file");
    return -EIO;
  }
  rrd_clear_error();
  rrd_info_t *info = rrd_info_r(path);
  if (info == NULL) {
    rrd_text_set(why, why_size, "librrd: %s",
                 rrd_text_librrd_error("unknown librrd error"));
    return -EIO;
  }
  int r = rrd_words_check_info(layout, info, why, why_size);
  rrd_info_free(info);
  return r;
}

/* ---- update ------------------------------------------------------------ */

int rrd_file_update(const char *path, const char *row, char *err,
                    size_t err_size) {
  if (path == NULL || row == NULL) {
    rrd_text_set(err, err_size, "no path or row");
    return -EIO;
  }
  const char *argv[1] = {row};
  rrd_clear_error();
  if (rrd_update_r(path, NULL, 1, argv) != 0) {
    rrd_text_set(err, err_size, "librrd: %s",
                 rrd_text_librrd_error("unknown librrd error"));
    return -EIO;
  }
  return 0;
}

int rrd_file_last_update(const char *path, time_t *ret, char *err,
                         size_t err_size) {
  if (path == NULL || ret == NULL) {
    rrd_text_set(err, err_size, "no path");
    return -EIO;
  }
  /* rrd_last_r reads the header's time alone; rrd_lastupdate_r would also
   * format every column's last value, for nothing here (a pass of pvecg
   * ship asks this of every file). */
  rrd_clear_error();
  time_t last = rrd_last_r(path);
  if (last == (time_t)-1) {
    rrd_text_set(err, err_size, "librrd: %s",
                 rrd_text_librrd_error("unknown librrd error"));
    return -EIO;
  }
  *ret = last;
  return 0;
}

/* ---- the store's access ------------------------------------------------ */

static int librrd_check(void *ctx, const struct rrd_layout *layout,
                        const char *path, char *why, size_t why_size) {
  (void)ctx;
  return rrd_file_check(layout, path, why, why_size);
}

static int librrd_create(void *ctx, const struct rrd_layout *layout,
                         const char *path, time_t start, char *err,
                         size_t err_size) {
  (void)ctx;
  return rrd_file_create(layout, path, start, err, err_size);
}

static int librrd_update(void *ctx, const char *path, const char *row,
                         time_t *file_last, char *err, size_t err_size) {
  (void)ctx;
  int r = rrd_file_update(path, row, err, err_size);
  if (r != 0 && err != NULL && rrd_words_refusal(err, file_last) == 0)
    return -ESTALE;
  return r;
}

static int librrd_last_update(void *ctx, const char *path, time_t *ret,
                              char *err, size_t err_size) {
  (void)ctx;
  return rrd_file_last_update(path, ret, err, err_size);
}

const struct rrd_access rrd_access_librrd = {
    .ctx = NULL,
    .local = true,
    .check = librrd_check,
    .create = librrd_create,
    .update = librrd_update,
    .last_update = librrd_last_update,
};

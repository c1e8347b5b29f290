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

time_t rrd_file_start_time(time_t now) {
  struct tm tm;
  if (localtime_r(&now, &tm) == NULL)
    return now;
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1; /* midnight may be on the other side of a DST change */
  time_t midnight = mktime(&tm);
  return midnight == (time_t)-1 ? now : midnight;
}

/* ---- creation ---------------------------------------------------------- */

int rrd_file_definitions(const struct rrd_layout *layout,
                         struct rrd_file_definitions *defs) {
  if (layout->ds_count > RRD_LAYOUT_DS_MAX ||
      layout->rra_count > RRD_FILE_RRA_MAX)
    return -EINVAL;
  int argc = 0;
  for (size_t i = 0; i < layout->ds_count; i++, argc++) {
    int n = snprintf(defs->text[argc], RRD_FILE_DEF_SIZE, "DS:%s:%s:%lu:0:U",
                     layout->ds[i].name, rrd_ds_type_name(layout->ds[i].type),
                     layout->heartbeat);
    if (n < 0 || n >= RRD_FILE_DEF_SIZE)
      return -EINVAL;
    defs->argv[argc] = defs->text[argc];
  }
  for (size_t i = 0; i < layout->rra_count; i++, argc++) {
    const struct rrd_rra_def *rra = &layout->rra[i];
    /* %.17g: the file holds exactly the xff the check compares against */
    int n =
        snprintf(defs->text[argc], RRD_FILE_DEF_SIZE, "RRA:%s:%.17g:%lu:%lu",
                 rrd_cf_name(rra->cf), layout->xff, rra->steps, rra->rows);
    if (n < 0 || n >= RRD_FILE_DEF_SIZE)
      return -EINVAL;
    defs->argv[argc] = defs->text[argc];
  }
  defs->argc = argc;
  return 0;
}

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
  struct rrd_file_definitions defs;
  if (rrd_file_definitions(layout, &defs) != 0) {
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

static const rrd_info_t *info_find(const rrd_info_t *info, const char *key,
                                   rrd_info_type_t type) {
  for (; info != NULL; info = info->next)
    if (info->type == type && strcmp(info->key, key) == 0)
      return info;
  return NULL;
}

__attribute__((format(printf, 3, 4))) static const rrd_info_t *
info_findf(const rrd_info_t *info, rrd_info_type_t type, const char *fmt, ...) {
  char key[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(key, sizeof(key), fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof(key))
    return NULL;
  return info_find(info, key, type);
}

/* The name in "ds[<name>].index", copied into out (at most size-1 bytes). */
static int ds_key_name(const char *key, char *out, size_t size) {
  if (strncmp(key, "ds[", 3) != 0)
    return -EINVAL;
  const char *end = strstr(key + 3, "].index");
  if (end == NULL || strcmp(end, "].index") != 0)
    return -EINVAL;
  snprintf(out, size, "%.*s", (int)(end - (key + 3)), key + 3);
  return 0;
}

/* Name of the file's DS at position pos; -ENOENT when there is none. */
static int file_ds_at(const rrd_info_t *info, unsigned long pos, char *out,
                      size_t size) {
  for (; info != NULL; info = info->next)
    if (info->type == RD_I_CNT && info->value.u_cnt == pos &&
        ds_key_name(info->key, out, size) == 0)
      return 0;
  return -ENOENT;
}

static unsigned long file_ds_count(const rrd_info_t *info) {
  unsigned long count = 0;
  char name[64];
  for (; info != NULL; info = info->next)
    if (info->type == RD_I_CNT &&
        ds_key_name(info->key, name, sizeof(name)) == 0)
      count++;
  return count;
}

static unsigned long file_rra_count(const rrd_info_t *info) {
  unsigned long count = 0;
  while (info_findf(info, RD_I_STR, "rra[%lu].cf", count) != NULL)
    count++;
  return count;
}

/* Name and type of the DS at position i; the index must be i. */
static int check_ds_identity(const rrd_info_t *info,
                             const struct rrd_layout *layout, size_t i,
                             char *why, size_t why_size) {
  const struct rrd_ds_def *ds = &layout->ds[i];
  const char *want_type = rrd_ds_type_name(ds->type);
  const rrd_info_t *index =
      info_findf(info, RD_I_CNT, "ds[%s].index", ds->name);
  const rrd_info_t *type = info_findf(info, RD_I_STR, "ds[%s].type", ds->name);
  if (index != NULL && index->value.u_cnt == i && type != NULL &&
      strcmp(type->value.u_str, want_type) == 0)
    return 0;
  char name[64];
  if (file_ds_at(info, i, name, sizeof(name)) != 0) {
    rrd_text_set(why, why_size, "ds[%zu] is missing, expected '%s' (%s)", i,
                 ds->name, want_type);
    return -EPROTO;
  }
  type = info_findf(info, RD_I_STR, "ds[%s].type", name);
  rrd_text_set(why, why_size, "ds[%zu] is '%s' (%s), expected '%s' (%s)", i,
               name, type != NULL ? type->value.u_str : "no type", ds->name,
               want_type);
  return -EPROTO;
}

/* A DS limit as rrdtool writes it in a definition: "U" for unknown. */
static const char *limit_text(const rrd_info_t *v, char *buf, size_t size) {
  if (v == NULL)
    return "nothing";
  if (isnan(v->value.u_val))
    return "U";
  snprintf(buf, size, "%g", v->value.u_val);
  return buf;
}

/* Heartbeat, min 0 and max unknown of the DS at position i. */
static int check_ds_limits(const rrd_info_t *info,
                           const struct rrd_layout *layout, size_t i, char *why,
                           size_t why_size) {
  const char *name = layout->ds[i].name;
  const rrd_info_t *hb =
      info_findf(info, RD_I_CNT, "ds[%s].minimal_heartbeat", name);
  const rrd_info_t *min = info_findf(info, RD_I_VAL, "ds[%s].min", name);
  const rrd_info_t *max = info_findf(info, RD_I_VAL, "ds[%s].max", name);
  char text[32];
  if (hb == NULL) {
    rrd_text_set(why, why_size, "ds[%zu] '%s' has no heartbeat, expected %lu",
                 i, name, layout->heartbeat);
    return -EPROTO;
  }
  if (hb->value.u_cnt != layout->heartbeat) {
    rrd_text_set(why, why_size, "ds[%zu] '%s' has heartbeat %lu, expected %lu",
                 i, name, hb->value.u_cnt, layout->heartbeat);
    return -EPROTO;
  }
  if (min == NULL || min->value.u_val != 0) {
    rrd_text_set(why, why_size, "ds[%zu] '%s' has min %s, expected 0", i, name,
                 limit_text(min, text, sizeof(text)));
    return -EPROTO;
  }
  if (max == NULL || !isnan(max->value.u_val)) {
    rrd_text_set(why, why_size, "ds[%zu] '%s' has max %s, expected U", i, name,
                 limit_text(max, text, sizeof(text)));
    return -EPROTO;
  }
  return 0;
}

static int check_all_ds(const rrd_info_t *info, const struct rrd_layout *layout,
                        char *why, size_t why_size) {
  for (size_t i = 0; i < layout->ds_count; i++) {
    int r = check_ds_identity(info, layout, i, why, why_size);
    if (r == 0)
      r = check_ds_limits(info, layout, i, why, why_size);
    if (r != 0)
      return r;
  }
  unsigned long count = file_ds_count(info);
  if (count > layout->ds_count) {
    char name[64] = "?";
    file_ds_at(info, layout->ds_count, name, sizeof(name));
    rrd_text_set(
        why, why_size,
        "the file has %lu data sources, expected %zu (ds[%zu] is '%s')", count,
        layout->ds_count, layout->ds_count, name);
    return -EPROTO;
  }
  return 0;
}

static int check_rra(const rrd_info_t *info, const struct rrd_layout *layout,
                     size_t i, char *why, size_t why_size) {
  const struct rrd_rra_def *want = &layout->rra[i];
  const char *want_cf = rrd_cf_name(want->cf);
  const rrd_info_t *cf = info_findf(info, RD_I_STR, "rra[%zu].cf", i);
  const rrd_info_t *steps =
      info_findf(info, RD_I_CNT, "rra[%zu].pdp_per_row", i);
  const rrd_info_t *rows = info_findf(info, RD_I_CNT, "rra[%zu].rows", i);
  const rrd_info_t *xff = info_findf(info, RD_I_VAL, "rra[%zu].xff", i);
  if (cf == NULL) {
    rrd_text_set(why, why_size, "rra[%zu] is missing, expected %s %lu:%lu", i,
                 want_cf, want->steps, want->rows);
    return -EPROTO;
  }
  unsigned long have_steps = steps != NULL ? steps->value.u_cnt : 0;
  unsigned long have_rows = rows != NULL ? rows->value.u_cnt : 0;
  if (strcmp(cf->value.u_str, want_cf) != 0 || have_steps != want->steps ||
      have_rows != want->rows) {
    rrd_text_set(why, why_size, "rra[%zu] is %s %lu:%lu, expected %s %lu:%lu",
                 i, cf->value.u_str, have_steps, have_rows, want_cf,
                 want->steps, want->rows);
    return -EPROTO;
  }
  if (xff == NULL || xff->value.u_val != layout->xff) {
    rrd_text_set(why, why_size, "rra[%zu] has xff %g, expected %g", i,
                 xff != NULL ? xff->value.u_val : NAN, layout->xff);
    return -EPROTO;
  }
  return 0;
}

int rrd_file_check_info(const struct rrd_layout *layout, const rrd_info_t *info,
                        char *why, size_t why_size) {
  const rrd_info_t *step = info_find(info, "step", RD_I_CNT);
  if (step == NULL || step->value.u_cnt != layout->step) {
    rrd_text_set(why, why_size, "step is %ld s, expected %lu s",
                 step != NULL ? (long)step->value.u_cnt : -1L, layout->step);
    return -EPROTO;
  }
  int r = check_all_ds(info, layout, why, why_size);
  for (size_t i = 0; r == 0 && i < layout->rra_count; i++)
    r = check_rra(info, layout, i, why, why_size);
  if (r != 0)
    return r;
  unsigned long count = file_rra_count(info);
  if (count > layout->rra_count) {
    rrd_text_set(why, why_size, "the file has %lu archives, expected %zu",
                 count, layout->rra_count);
    return -EPROTO;
  }
  return 0;
}

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
  int r = rrd_file_check_info(layout, info, why, why_size);
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

static void free_strings(char **list, unsigned long count) {
  if (list == NULL)
    return;
  for (unsigned long i = 0; i < count; i++)
    free(list[i]);
  free(list);
}

int rrd_file_last_update(const char *path, time_t *ret, char *err,
                         size_t err_size) {
  if (path == NULL || ret == NULL) {
    rrd_text_set(err, err_size, "no path");
    return -EIO;
  }
  time_t last = 0;
  unsigned long count = 0;
  char **names = NULL, **values = NULL;
  rrd_clear_error();
  if (rrd_lastupdate_r(path, &last, &count, &names, &values) != 0) {
    rrd_text_set(err, err_size, "librrd: %s",
                 rrd_text_librrd_error("unknown librrd error"));
    return -EIO;
  }
  free_strings(names, count);
  free_strings(values, count);
  *ret = last;
  return 0;
}

/* ---- refusals and the store's access ----------------------------------- */

int rrd_file_parse_refusal(const char *err, time_t *ret) {
  static const char marker[] = "when last update time is ";
  const char *p = err != NULL ? strstr(err, "illegal attempt to update") : NULL;
  p = p != NULL ? strstr(p, marker) : NULL;
  if (p == NULL)
    return -ENOENT;
  /* librrd prints whole seconds, rrdcached "%f": both read as a double */
  char *end;
  double y = strtod(p + sizeof(marker) - 1, &end);
  if (end == p + sizeof(marker) - 1 || !(y >= 0 && y < 1e15))
    return -ENOENT;
  *ret = (time_t)y;
  return 0;
}

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
  if (r != 0 && err != NULL && rrd_file_parse_refusal(err, file_last) == 0)
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners file (see rrd_owner.h): its text, a strict parser, and the
 * file on disk, saved as the shipper saves its state.
 */
#include "pvecg/rrd_owner.h"

#include "pvecg/file_durable.h"
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define OWNERS_MAX (64u * 1024 * 1024) /* far beyond 100,000 guests' */

static const char *const kinds[] = {"owner", "collision"};

bool rrd_owner_host_fits(const char *host) {
  size_t n = 0;
  for (; host[n] != '\0'; n++)
    if ((unsigned char)host[n] < ' ' || host[n] == 0x7f)
      return false; /* it would end the line */
  return n > 0 && n < RRD_OWNER_HOST_SIZE;
}

struct text {
  FILE *f;
  size_t lines;
};

/* A name with a space would split the line: such a record is left out. */
static int write_line(const struct rrd_owner_record *r, void *ctx) {
  struct text *t = ctx;
  if (!rrd_owner_host_fits(r->host) || strchr(r->cluster, ' ') ||
      strchr(r->name, ' '))
    return 0;
  t->lines++;
  fprintf(t->f, "%s %s %s %s %.17g %s\n", kinds[r->collision], r->layout->name,
          r->cluster[0] ? r->cluster : ".", r->name,
          r->collision ? (double)r->since : r->interval, r->host);
  return 0;
}

int rrd_owner_file_text(struct rrd_owner *o, char **ret, size_t *len) {
  struct text t = {open_memstream(ret, len), 0};
  if (t.f == NULL)
    return -ENOMEM;
  fprintf(t.f, RRD_OWNER_FILE_NAME " %d\n", RRD_OWNER_FILE_VERSION);
  int err = rrd_owner_each(o, write_line, &t);
  fprintf(t.f, "end %zu\n", t.lines);
  err = ferror(t.f) && err == 0 ? -ENOMEM : err;
  fclose(t.f);
  if (err != 0)
    free(*ret);
  return err;
}

bool rrd_owner_file_named(struct rrd_owner_record *r, const char *layout,
                          const char *cluster, const char *name) {
  *r = (struct rrd_owner_record){.cluster = cluster, .name = name};
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (rrd_layouts[i]->kind == RRD_LAYOUT_GUEST &&
        strcmp(rrd_layouts[i]->name, layout) == 0)
      r->layout = rrd_layouts[i];
  return r->layout != NULL && rrd_file_name_problem(name) == NULL &&
         (!cluster[0] || rrd_cluster_name_problem(cluster) == NULL);
}

/* A whole decimal number (whole) or any, and nothing else. */
static bool number(const char *s, bool whole, double *ret) {
  char *end;
  errno = 0;
  *ret = whole ? (double)strtoll(s, &end, 10) : strtod(s, &end);
  return strspn(s, whole ? "-0123456789" : "-.e+0123456789") == strlen(s) &&
         *s && *end == '\0' && errno == 0 && *ret == *ret;
}

/* The line's record, pointing into it: five fields, each ended by one
 * space (an empty one is no name nor number), then the host. */
static bool record_of(char *line, struct rrd_owner_record *r) {
  char *f[5];
  double v;
  for (int i = 0; i < 5; i++) {
    f[i] = line;
    if ((line = strchr(line, ' ')) == NULL)
      return false;
    *line++ = '\0';
  }
  bool owner = strcmp(f[0], kinds[0]) == 0;
  if ((!owner && strcmp(f[0], kinds[1]) != 0) || strcmp(f[2], "") == 0 ||
      !rrd_owner_file_named(r, f[1], strcmp(f[2], ".") ? f[2] : "", f[3]) ||
      !number(f[4], !owner, &v))
    return false;
  r->host = line;
  r->collision = !owner;
  r->interval = owner ? v : 0;
  r->since = owner ? 0 : (long long)v;
  return rrd_owner_host_fits(line) &&
         (owner ? v > 0 && v <= 86400 : v >= 0 && v <= 1e15);
}

int rrd_owner_file_parse(const char *text, size_t len, struct rrd_owner *o,
                         double now, struct rrd_owner_read *ret) {
  char header[32], *copy, *line, *nl;
  struct rrd_owner_record r;
  double count;
  bool ended = false;
  int err = 0, n = snprintf(header, sizeof(header), RRD_OWNER_FILE_NAME " %d\n",
                            RRD_OWNER_FILE_VERSION);
  *ret = (struct rrd_owner_read){0};
  if (len < (size_t)n || memcmp(text, header, (size_t)n) != 0)
    return -EPROTO;
  if ((copy = strndup(text, len)) == NULL)
    return -ENOMEM;
  for (line = copy + n; err == 0 && (nl = strchr(line, '\n')); line = nl + 1) {
    *nl = '\0';
    if (!ended && strncmp(line, "end ", 4) == 0) {
      ended = true;
      ret->cut |= !number(line + 4, true, &count) ||
                  count != (double)(ret->owners + ret->marks);
    } else if (ended || !record_of(line, &r)) {
      ret->bad_lines++;
    } else {
      ret->marks += r.collision;
      ret->owners += !r.collision;
      err = rrd_owner_put(o, &r, now);
    }
  }
  ret->cut |= !ended || memchr(text, '\0', len) != NULL;
  free(copy);
  return err;
}

const char *rrd_owner_file_problem(int r, const struct rrd_owner_read *t,
                                   char *buf, size_t size) {
  if (r == -EPROTO)
    snprintf(buf, size,
             "not a version %d owners file (its first line is not "
             "\"" RRD_OWNER_FILE_NAME " %d\")",
             RRD_OWNER_FILE_VERSION, RRD_OWNER_FILE_VERSION);
  else if (r < 0 && r != -ENOENT)
    snprintf(buf, size, "unreadable (%s)", strerror(-r));
  else if (r == 0 && (t->cut || t->bad_lines > 0))
    snprintf(buf, size, "%s (%zu lines skipped)",
             t->cut ? "cut short" : "damaged", t->bad_lines);
  else
    return "";
  return buf;
}

/* ---- on disk ----------------------------------------------------------- */

static int path_of(const char *dir, const char *name, char *buf) {
  int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);
  return n > 0 && n < PATH_MAX ? 0 : -ENAMETOOLONG;
}

int rrd_owner_file_lock(const char *data_dir) {
  char path[PATH_MAX];
  int r = path_of(data_dir, RRD_OWNER_FILE_NAME ".lock", path), fd = -1;
  if (r == 0 && (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
    r = -errno;
  while (r == 0 && flock(fd, LOCK_EX) != 0)
    r = errno == EINTR ? 0 : -errno;
  if (r != 0 && fd >= 0)
    close(fd);
  return r != 0 ? r : fd;
}

int rrd_owner_file_load(const char *data_dir, struct rrd_owner *o, double now,
                        struct rrd_owner_read *ret) {
  char path[PATH_MAX], *text = NULL;
  size_t len = 0;
  int r = path_of(data_dir, RRD_OWNER_FILE_NAME, path);
  *ret = (struct rrd_owner_read){0};
  if (r == 0)
    r = file_read_whole(path, OWNERS_MAX, &text, &len);
  if (r == 0)
    r = rrd_owner_file_parse(text, len, o, now, ret);
  free(text);
  return r == -EFBIG ? -EPROTO : r; /* too big, or not a regular file */
}

/* Made by fprintf of C strings: no NUL inside it. */
static int put_text(FILE *out, const void *text) {
  return fputs(text, out) < 0 ? -EIO : 0;
}

int rrd_owner_file_save(const char *data_dir, struct rrd_owner *o) {
  char path[PATH_MAX], tmp[PATH_MAX], *text = NULL;
  size_t len = 0;
  int err = path_of(data_dir, RRD_OWNER_FILE_NAME, path);
  if (err == 0)
    err = path_of(data_dir, "." RRD_OWNER_FILE_NAME ".tmp", tmp);
  if (err == 0) /* formatted under the owners' mutex, written outside it */
    err = rrd_owner_file_text(o, &text, &len);
  if (err == 0)
    err = file_write_durably(data_dir, path, tmp, NULL, 0644, put_text, text);
  free(text);
  return err;
}

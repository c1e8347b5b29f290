/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners file (see rrd_owner_file.h): its text, a strict parser
 * (buffer in, records out), and the file on disk, saved as the shipper
 * saves its state: temporary file, fsync, rename, fsync of the directory.
 */
#include "pvecg/rrd_owner_file.h"

#include "pvecg/file_durable.h"
#include "pvecg/grow.h"
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define FIELDS 6
#define OWNERS_MAX (64u * 1024 * 1024) /* far beyond 100,000 guests' */

static const char *const kinds[] = {"owner", "collision"};

static bool needs_escape(unsigned char c) {
  return c <= ' ' || c == 0x7f || c == '%';
}

/* A name as one field, at p; returns the end. */
static char *put_escaped(char *p, const char *s) {
  for (const unsigned char *c = (const unsigned char *)s; *c; c++)
    p += needs_escape(*c) ? sprintf(p, "%%%02X", *c) : sprintf(p, "%c", *c);
  return p;
}

size_t rrd_owner_file_line(const struct rrd_owner_record *r,
                           char buf[RRD_OWNER_LINE_SIZE]) {
  char *p = buf + sprintf(buf, "%s %s ", kinds[r->kind], r->layout->name);
  p = put_escaped(p, r->cluster[0] ? r->cluster : ".");
  *p++ = ' ';
  p = put_escaped(p, r->name);
  *p++ = ' ';
  p = put_escaped(p, r->host);
  if (r->kind == RRD_OWNER_RECORD_OWNER)
    p += sprintf(p, " %.17g\n", r->interval);
  else
    p += sprintf(p, " %lld\n", r->since);
  return (size_t)(p - buf);
}

int rrd_owner_file_write(FILE *f, const struct rrd_owner_record *r, size_t n) {
  char line[RRD_OWNER_LINE_SIZE];
  fprintf(f, RRD_OWNER_FILE_NAME " %d\n", RRD_OWNER_FILE_VERSION);
  for (size_t i = 0; i < n; i++)
    fwrite(line, 1, rrd_owner_file_line(&r[i], line), f);
  fprintf(f, "end %zu\n", n);
  return ferror(f) ? -EIO : 0;
}

bool rrd_owner_same_file(const struct rrd_owner_record *a,
                         const struct rrd_owner_record *b) {
  return a->layout == b->layout && strcmp(a->cluster, b->cluster) == 0 &&
         strcmp(a->name, b->name) == 0;
}

int rrd_owner_file_order(const void *pa, const void *pb) {
  const struct rrd_owner_record *a = pa, *b = pb;
  int c = strcmp(a->cluster, b->cluster);
  c = c ? c : strcmp(a->layout->name, b->layout->name);
  c = c ? c : strcmp(a->name, b->name);
  c = c ? c : (int)a->kind - (int)b->kind;
  c = c ? c : (a->since > b->since) - (a->since < b->since);
  return c ? c : strcmp(a->host, b->host);
}

/* ---- parsing ----------------------------------------------------------- */

static int hex(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* A field unescaped into buf; false when empty, too long, or escaped
 * otherwise than the writer escapes. */
static bool unescape(const char *s, char *buf, size_t size) {
  size_t n = 0;
  for (; *s && n + 1 < size; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '%') {
      int hi = hex(s[1]), lo = hi < 0 ? -1 : hex(s[2]);
      c = (unsigned char)(16 * hi + lo);
      if (lo < 0 || c == '\0' || !needs_escape(c))
        return false;
      s += 2;
    }
    buf[n++] = (char)c;
  }
  buf[n] = '\0';
  return n > 0 && *s == '\0';
}

/* A whole decimal number (whole) or any, and nothing else. */
static bool number(const char *s, bool whole, double *ret) {
  char *end;
  errno = 0;
  *ret = whole ? (double)strtoll(s, &end, 10) : strtod(s, &end);
  return strspn(s, whole ? "-0123456789" : "-.e+0123456789") == strlen(s) &&
         *s && *end == '\0' && errno == 0 && *ret == *ret;
}

static bool record_of(char **f, struct rrd_owner_record *r) {
  double v;
  memset(r, 0, sizeof(*r));
  bool owner = strcmp(f[0], kinds[0]) == 0;
  r->kind = owner ? RRD_OWNER_RECORD_OWNER : RRD_OWNER_RECORD_COLLISION;
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (rrd_layouts[i]->kind == RRD_LAYOUT_GUEST &&
        strcmp(rrd_layouts[i]->name, f[1]) == 0)
      r->layout = rrd_layouts[i];
  if ((!owner && strcmp(f[0], kinds[1]) != 0) || r->layout == NULL ||
      (strcmp(f[2], ".") != 0 &&
       (!unescape(f[2], r->cluster, sizeof(r->cluster)) ||
        rrd_cluster_name_problem(r->cluster) != NULL)) ||
      !unescape(f[3], r->name, sizeof(r->name)) ||
      rrd_file_name_problem(r->name) != NULL ||
      !unescape(f[4], r->host, sizeof(r->host)) || !number(f[5], !owner, &v))
    return false;
  r->interval = owner ? v : 0;
  r->since = owner ? 0 : (long long)v;
  return owner ? v > 0 && v <= 86400 : v >= 0 && v <= 1e15;
}

/* One line (changed in place): a record taken, the end line, or a bad
 * line counted.  Fields are split at each space: empty ones are no
 * names nor numbers. */
static int one_line(char *line, bool *ended, struct rrd_owner_records *ret) {
  char *f[FIELDS + 1], *p = line;
  int n = 0;
  do {
    f[n++] = p;
    if ((p = strchr(p, ' ')) != NULL)
      *p++ = '\0';
  } while (p != NULL && n <= FIELDS);
  double count;
  struct rrd_owner_record r;
  if (!*ended && n == 2 && strcmp(f[0], "end") == 0) {
    *ended = true;
    ret->cut |= !number(f[1], true, &count) || count != (double)ret->count;
  } else if (*ended || n != FIELDS || !record_of(f, &r)) {
    ret->bad_lines++;
  } else {
    struct rrd_owner_record *grown =
        grow_array(ret->r, ret->count + 1, &ret->size, sizeof(r), 16);
    if (grown == NULL)
      return -ENOMEM;
    ret->r = grown;
    ret->r[ret->count++] = r;
  }
  return 0;
}

int rrd_owner_file_parse(const char *text, size_t len,
                         struct rrd_owner_records *ret) {
  char header[32];
  int n = snprintf(header, sizeof(header), RRD_OWNER_FILE_NAME " %d\n",
                   RRD_OWNER_FILE_VERSION);
  if (len < (size_t)n || memcmp(text, header, (size_t)n) != 0)
    return -EPROTO;
  char *copy = malloc(len + 1), *line, *nl;
  if (copy == NULL)
    return -ENOMEM;
  memcpy(copy, text, len);
  copy[len] = '\0';
  bool ended = false;
  int r = 0;
  for (line = copy + n; r == 0 && (nl = strchr(line, '\n')) != NULL;
       line = nl + 1) {
    *nl = '\0';
    r = one_line(line, &ended, ret);
  }
  ret->cut |= !ended || memchr(text, '\0', len) != NULL;
  free(copy);
  return r;
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

bool rrd_owner_file_changed(const char *data_dir, struct stat *last) {
  char path[PATH_MAX];
  struct stat st;
  if (path_of(data_dir, RRD_OWNER_FILE_NAME, path) != 0 || stat(path, &st) != 0)
    memset(&st, 0, sizeof(st));
  bool changed = st.st_ino != last->st_ino || st.st_size != last->st_size ||
                 st.st_mtim.tv_sec != last->st_mtim.tv_sec ||
                 st.st_mtim.tv_nsec != last->st_mtim.tv_nsec;
  *last = st;
  return changed;
}

int rrd_owner_file_read(const char *data_dir, struct rrd_owner_records *ret) {
  char path[PATH_MAX], *text = NULL;
  size_t len = 0;
  int r = path_of(data_dir, RRD_OWNER_FILE_NAME, path);
  if (r == 0)
    r = file_read_whole(path, OWNERS_MAX, &text, &len);
  if (r == 0)
    r = rrd_owner_file_parse(text, len, ret);
  if (r == 0 && ret->count > 1)
    qsort(ret->r, ret->count, sizeof(*ret->r), rrd_owner_file_order);
  free(text);
  return r == -EFBIG ? -EPROTO : r; /* too big, or not a regular file */
}

struct records {
  const struct rrd_owner_record *r;
  size_t n;
};

static int format(FILE *out, const void *ctx) {
  const struct records *t = ctx;
  return rrd_owner_file_write(out, t->r, t->n);
}

int rrd_owner_file_save(const char *data_dir, struct rrd_owner_record *r,
                        size_t n) {
  char path[PATH_MAX], tmp[PATH_MAX];
  struct records text = {r, n};
  if (n > 1) /* the same owners, the same file */
    qsort(r, n, sizeof(*r), rrd_owner_file_order);
  int err = path_of(data_dir, RRD_OWNER_FILE_NAME, path);
  if (err == 0)
    err = path_of(data_dir, "." RRD_OWNER_FILE_NAME ".tmp", tmp);
  return err != 0 ? err
                  : file_write_durably(data_dir, path, tmp, NULL, 0644, format,
                                       &text);
}

struct lines {
  rrd_owner_lines_fn *next;
  void *ctx;
  char *buf;
  size_t size;
};

static int write_lines(FILE *out, const void *ctx) {
  const struct lines *t = ctx;
  size_t records = 0;
  long len;
  fprintf(out, RRD_OWNER_FILE_NAME " %d\n", RRD_OWNER_FILE_VERSION);
  while ((len = t->next(t->ctx, t->buf, t->size, &records)) > 0)
    fwrite(t->buf, 1, (size_t)len, out);
  fprintf(out, "end %zu\n", records);
  return len < 0 ? (int)len : ferror(out) ? -EIO : 0;
}

int rrd_owner_file_save_lines(const char *data_dir, rrd_owner_lines_fn *next,
                              void *ctx, char *buf, size_t size) {
  char path[PATH_MAX], tmp[PATH_MAX];
  struct lines text = {next, ctx, buf, size};
  int err = path_of(data_dir, RRD_OWNER_FILE_NAME, path);
  if (err == 0)
    err = path_of(data_dir, "." RRD_OWNER_FILE_NAME ".tmp", tmp);
  return err != 0 ? err
                  : file_write_durably(data_dir, path, tmp, NULL, 0644,
                                       write_lines, &text);
}

/* The records of file q that go: its owner and host's mark (give), or
 * its marks (forget); the new owner takes the old one's interval. */
static int edit_records(struct rrd_owner_records *t,
                        const struct rrd_owner_record *q, const char *host) {
  struct rrd_owner_record given = *q;
  size_t kept = 0, forgot = 0;
  given.interval = 10.0; /* collectd's default, until host reports */
  for (size_t i = 0; i < t->count; i++) {
    bool owner = t->r[i].kind == RRD_OWNER_RECORD_OWNER;
    bool goes = rrd_owner_same_file(&t->r[i], q) &&
                (host ? owner || strcmp(t->r[i].host, host) == 0 : !owner);
    given.interval = goes && owner ? t->r[i].interval : given.interval;
    forgot += goes && !owner;
    if (!goes)
      t->r[kept++] = t->r[i];
  }
  t->count = kept;
  given.kind = RRD_OWNER_RECORD_OWNER;
  snprintf(given.host, sizeof(given.host), "%s", host ? host : "");
  if (host != NULL) /* room: at least one record went, or one was added */
    t->r[t->count++] = given;
  return host != NULL || forgot > 0 ? 0 : -ENOENT;
}

int rrd_owner_file_settle(const char *data_dir,
                          const struct rrd_owner_record *q, const char *host) {
  struct rrd_owner_records t = {0};
  int fd = rrd_owner_file_lock(data_dir);
  if (fd < 0)
    return fd;
  int r = rrd_owner_file_read(data_dir, &t);
  r = r == -ENOENT ? 0 : r; /* none yet: nothing to forget */
  struct rrd_owner_record *grown =
      r == 0 ? grow_array(t.r, t.count + 1, &t.size, sizeof(*t.r), 1) : NULL;
  r = r == 0 && grown == NULL ? -ENOMEM : r;
  if (r == 0) {
    t.r = grown;
    r = edit_records(&t, q, host);
  }
  if (r == 0)
    r = rrd_owner_file_save(data_dir, t.r, t.count);
  close(fd);
  free(t.r);
  return r;
}

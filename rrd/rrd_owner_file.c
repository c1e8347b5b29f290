/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners file's text (see rrd_owner_file.h): its strict parser, its
 * writer, and the names `pvecg check --owners` gives files.
 */
#include "pvecg/rrd_owner_file.h"

#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "pvecg-owners"
#define FIELDS_MAX 7
/* The longest line: five escaped fields (each byte three) and numbers. */
#define LINE_MAX_LEN                                                           \
  (3 * (3 * RRD_OWNER_HOST_SIZE + 2 * RRD_STORE_NAME_MAX) + 64)
#define INTERVAL_MAX 86400.0

static const char *const kind_words[] = {"owner", "collision", "give",
                                         "forget"};

/* ---- escaping ---------------------------------------------------------- */

static bool needs_escape(unsigned char c) {
  return c <= 0x20 || c == 0x7f || c == '%';
}

static int put_escaped(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((needs_escape(*p) ? fprintf(f, "%%%02X", *p) : fputc(*p, f)) < 0)
      return -EIO;
  return 0;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* field (len bytes) unescaped into buf; -EINVAL for a bad or needless
 * escape, an empty field, or one that does not fit. */
static int unescape(const char *field, size_t len, char *buf, size_t size) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)field[i];
    if (c == '%') {
      int hi = i + 2 < len ? hex_digit(field[i + 1]) : -1;
      int lo = hi >= 0 ? hex_digit(field[i + 2]) : -1;
      if (lo < 0 || !needs_escape((unsigned char)(hi * 16 + lo)))
        return -EINVAL;
      c = (unsigned char)(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0' || n + 1 >= size)
      return -EINVAL;
    buf[n++] = (char)c;
  }
  buf[n] = '\0';
  return n > 0 ? 0 : -EINVAL;
}

/* ---- writing ----------------------------------------------------------- */

static int write_record(FILE *f, const struct rrd_owner_record *r) {
  if (fprintf(f, "%s %s ", kind_words[r->kind], r->layout->name) < 0)
    return -EIO;
  int err = r->cluster[0] != '\0' ? put_escaped(f, r->cluster)
                                  : (fputc('.', f) < 0 ? -EIO : 0);
  if (err == 0 && (fputc(' ', f) < 0 || put_escaped(f, r->name) != 0))
    err = -EIO;
  if (err == 0 && r->kind != RRD_OWNER_RECORD_FORGET &&
      (fputc(' ', f) < 0 || put_escaped(f, r->host) != 0))
    err = -EIO;
  if (err == 0 && r->kind == RRD_OWNER_RECORD_OWNER &&
      fprintf(f, " %.17g", r->interval) < 0)
    err = -EIO;
  if (err == 0 && r->kind == RRD_OWNER_RECORD_COLLISION &&
      fprintf(f, " %lld", r->since) < 0)
    err = -EIO;
  return err == 0 && fputc('\n', f) >= 0 ? 0 : -EIO;
}

int rrd_owner_file_write(FILE *f, const struct rrd_owner_record *records,
                         size_t count) {
  if (fprintf(f, HEADER " %d\n", RRD_OWNER_FILE_VERSION) < 0)
    return -EIO;
  for (size_t i = 0; i < count; i++)
    if (write_record(f, &records[i]) != 0)
      return -EIO;
  return fprintf(f, "end %zu\n", count) < 0 ? -EIO : 0;
}

/* ---- parsing ----------------------------------------------------------- */

struct field {
  const char *at;
  size_t len;
};

/* The line's fields, separated by single spaces; -1 for more than
 * FIELDS_MAX or an empty one. */
static int split(const char *line, size_t len, struct field *fields) {
  int n = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && line[i] != ' ')
      continue;
    if (i == start || n == FIELDS_MAX)
      return -1;
    fields[n++] = (struct field){line + start, i - start};
    start = i + 1;
  }
  return n;
}

static bool field_is(const struct field *f, const char *word) {
  return f->len == strlen(word) && memcmp(f->at, word, f->len) == 0;
}

/* A decimal number of the field: a whole one (*whole) or any. */
static int number(const struct field *f, bool whole, double *ret) {
  char buf[64];
  if (f->len == 0 || f->len >= sizeof(buf))
    return -EINVAL;
  memcpy(buf, f->at, f->len);
  buf[f->len] = '\0';
  for (size_t i = 0; i < f->len; i++)
    if (!strchr(whole ? "0123456789-" : "0123456789-.e+", buf[i]))
      return -EINVAL;
  char *end;
  errno = 0;
  double v = whole ? (double)strtoll(buf, &end, 10) : strtod(buf, &end);
  if (*end != '\0' || errno != 0 || v != v)
    return -EINVAL;
  *ret = v;
  return 0;
}

static int record_kind(const struct field *f, enum rrd_owner_record_kind *ret) {
  for (size_t i = 0; i < sizeof(kind_words) / sizeof(*kind_words); i++)
    if (field_is(f, kind_words[i])) {
      *ret = (enum rrd_owner_record_kind)i;
      return 0;
    }
  return -EINVAL;
}

static const struct rrd_layout *guest_layout(const struct field *f) {
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (rrd_layouts[i]->kind == RRD_LAYOUT_GUEST &&
        field_is(f, rrd_layouts[i]->name))
      return rrd_layouts[i];
  return NULL;
}

/* The fields every record has: kind, layout, cluster, name. */
static int record_key(const struct field *fl, struct rrd_owner_record *r) {
  if (record_kind(&fl[0], &r->kind) != 0 ||
      (r->layout = guest_layout(&fl[1])) == NULL)
    return -EINVAL;
  if (field_is(&fl[2], "."))
    r->cluster[0] = '\0';
  else if (unescape(fl[2].at, fl[2].len, r->cluster, sizeof(r->cluster)) != 0 ||
           rrd_cluster_name_problem(r->cluster) != NULL)
    return -EINVAL;
  if (unescape(fl[3].at, fl[3].len, r->name, sizeof(r->name)) != 0 ||
      rrd_file_name_problem(r->name) != NULL)
    return -EINVAL;
  return 0;
}

static const int field_count[] = {6, 6, 5, 4}; /* by kind */

static int record_of(const struct field *fl, int n,
                     struct rrd_owner_record *r) {
  memset(r, 0, sizeof(*r));
  if (n < 4 || record_key(fl, r) != 0 || n != field_count[r->kind])
    return -EINVAL;
  if (r->kind != RRD_OWNER_RECORD_FORGET &&
      unescape(fl[4].at, fl[4].len, r->host, sizeof(r->host)) != 0)
    return -EINVAL;
  double v = 0;
  if (r->kind == RRD_OWNER_RECORD_OWNER) {
    if (number(&fl[5], false, &v) != 0 || !(v > 0 && v <= INTERVAL_MAX))
      return -EINVAL;
    r->interval = v;
  } else if (r->kind == RRD_OWNER_RECORD_COLLISION) {
    if (number(&fl[5], true, &v) != 0 || v < 0 || v > 1e15)
      return -EINVAL;
    r->since = (long long)v;
  }
  return 0;
}

__attribute__((format(printf, 2, 3))) static void
problem(struct rrd_owner_file_problems *p, const char *fmt, ...) {
  if (p->first[0] != '\0')
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->first, sizeof(p->first), fmt, ap);
  va_end(ap);
}

static bool header_ok(const char *line, size_t len) {
  char want[32];
  int n = snprintf(want, sizeof(want), HEADER " %d", RRD_OWNER_FILE_VERSION);
  return len == (size_t)n && memcmp(line, want, len) == 0;
}

struct parse_state {
  size_t records, line_no;
  bool ended;
  struct rrd_owner_file_problems *problems;
};

/* The end line: the count of the records before it.  It ends the file
 * even when it counts others: records were lost before it. */
static bool end_line(const struct field *fl, int n, struct parse_state *st) {
  double count;
  if (n != 2 || !field_is(&fl[0], "end"))
    return false;
  st->ended = true;
  if (number(&fl[1], true, &count) != 0 || count != (double)st->records) {
    st->problems->truncated = true;
    problem(st->problems, "line %zu: the end line counts other records",
            st->line_no);
  }
  return true;
}

static int one_line(const char *line, size_t len, struct parse_state *st,
                    rrd_owner_record_fn *each, void *ctx) {
  struct field fl[FIELDS_MAX];
  struct rrd_owner_record r;
  int n = len <= LINE_MAX_LEN ? split(line, len, fl) : -1;
  if (st->ended) {
    st->problems->bad_lines++;
    problem(st->problems, "line %zu: a line after the end line", st->line_no);
    return 0;
  }
  if (n > 0 && end_line(fl, n, st))
    return 0;
  if (n < 0 || record_of(fl, n, &r) != 0) {
    st->problems->bad_lines++;
    problem(st->problems, "line %zu: not a record", st->line_no);
    return 0;
  }
  st->records++;
  return each(&r, ctx);
}

int rrd_owner_file_parse(const char *text, size_t len,
                         rrd_owner_record_fn *each, void *ctx,
                         struct rrd_owner_file_problems *problems) {
  memset(problems, 0, sizeof(*problems));
  const char *nl = memchr(text, '\n', len);
  if (nl == NULL || !header_ok(text, (size_t)(nl - text))) {
    problem(problems,
            "not a version %d owners file (its first line is not "
            "\"" HEADER " %d\")",
            RRD_OWNER_FILE_VERSION, RRD_OWNER_FILE_VERSION);
    return -EPROTO;
  }
  struct parse_state st = {.line_no = 1, .problems = problems};
  for (size_t at = (size_t)(nl - text) + 1; at < len;) {
    st.line_no++;
    nl = memchr(text + at, '\n', len - at);
    if (nl == NULL)
      break; /* a line cut short is no record */
    int r = one_line(text + at, (size_t)(nl - (text + at)), &st, each, ctx);
    if (r != 0)
      return r;
    at = (size_t)(nl - text) + 1;
  }
  if (!st.ended) {
    problems->truncated = true;
    problem(problems, "cut short (no end line counting its %zu records)",
            st.records);
  }
  return 0;
}

/* ---- labels ------------------------------------------------------------ */

int rrd_owner_file_label(const struct rrd_owner_record *r, char *buf,
                         size_t size) {
  return rrd_cluster_file_path(NULL, r->cluster, r->layout, r->name, buf, size);
}

/* label without data_dir and the slashes after it, when it begins so */
static const char *below(const char *data_dir, const char *label) {
  size_t n = data_dir != NULL ? strlen(data_dir) : 0;
  while (n > 1 && data_dir[n - 1] == '/')
    n--;
  if (n == 0 || strncmp(label, data_dir, n) != 0 || label[n] != '/')
    return label;
  label += n;
  while (*label == '/')
    label++;
  return label;
}

int rrd_owner_file_unlabel(const char *data_dir, const char *label,
                           struct rrd_owner_record *ret) {
  label = below(data_dir, label);
  char copy[3 * RRD_STORE_NAME_MAX + 8];
  if (snprintf(copy, sizeof(copy), "%s", label) >= (int)sizeof(copy))
    return -EINVAL;
  char *name = strrchr(copy, '/');
  if (name == NULL)
    return -EINVAL;
  *name++ = '\0';
  char *layout = strrchr(copy, '/');
  const char *cluster = "";
  if (layout != NULL) {
    *layout++ = '\0';
    cluster = copy;
  } else {
    layout = copy;
  }
  struct field lf = {layout, strlen(layout)};
  memset(ret, 0, sizeof(*ret));
  if ((ret->layout = guest_layout(&lf)) == NULL ||
      rrd_file_name_problem(name) != NULL ||
      (cluster[0] != '\0' && rrd_cluster_name_problem(cluster) != NULL))
    return -EINVAL;
  /* both checked to fit RRD_STORE_NAME_MAX above */
  memcpy(ret->cluster, cluster, strlen(cluster) + 1);
  memcpy(ret->name, name, strlen(name) + 1);
  return 0;
}

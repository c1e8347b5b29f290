/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners file's text (see rrd_owner_file.h): a strict parser, pure
 * (buffer in, records out), and its writer.
 */
#include "pvecg/rrd_owner_file.h"

#include "pvecg/grow.h"
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FIELDS 6
#define LINE_MAX_LEN 2048

static const char *const kinds[] = {"owner", "collision"};

static bool needs_escape(unsigned char c) {
  return c <= ' ' || c == 0x7f || c == '%';
}

/* A name as one field; a stream's errors stay set, checked at the end. */
static void put_escaped(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    fprintf(f, needs_escape(*p) ? "%%%02X" : "%c", *p);
}

int rrd_owner_file_write(FILE *f, const struct rrd_owner_record *r, size_t n) {
  fprintf(f, RRD_OWNER_FILE_NAME " %d\n", RRD_OWNER_FILE_VERSION);
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "%s %s ", kinds[r[i].kind], r[i].layout->name);
    put_escaped(f, r[i].cluster[0] ? r[i].cluster : ".");
    fputc(' ', f);
    put_escaped(f, r[i].name);
    fputc(' ', f);
    put_escaped(f, r[i].host);
    if (r[i].kind == RRD_OWNER_RECORD_OWNER)
      fprintf(f, " %.17g\n", r[i].interval);
    else
      fprintf(f, " %lld\n", r[i].since);
  }
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
  return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                                : -1;
}

/* A field unescaped into buf; false when empty, too long, or escaped
 * otherwise than the writer escapes. */
static bool unescape(const char *s, char *buf, size_t size) {
  size_t n = 0;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '%') {
      int hi = hex(s[1]), lo = hi >= 0 ? hex(s[2]) : -1;
      c = (unsigned char)(hi * 16 + lo);
      if (lo < 0 || c == '\0' || !needs_escape(c))
        return false;
      s += 2;
    }
    if (n + 1 >= size)
      return false;
    buf[n++] = (char)c;
  }
  buf[n] = '\0';
  return n > 0;
}

/* A whole decimal number (whole) or any, and nothing else. */
static bool number(const char *s, bool whole, double *ret) {
  char *end;
  errno = 0;
  *ret = whole ? (double)strtoll(s, &end, 10) : strtod(s, &end);
  return strspn(s, whole ? "-0123456789" : "-.e+0123456789") == strlen(s) &&
         *s && *end == '\0' && errno == 0 && *ret == *ret;
}

static const struct rrd_layout *guest_layout(const char *name) {
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (rrd_layouts[i]->kind == RRD_LAYOUT_GUEST &&
        strcmp(rrd_layouts[i]->name, name) == 0)
      return rrd_layouts[i];
  return NULL;
}

static bool record_of(char **f, struct rrd_owner_record *r) {
  double v;
  memset(r, 0, sizeof(*r));
  r->kind = strcmp(f[0], kinds[0]) == 0 ? RRD_OWNER_RECORD_OWNER
                                        : RRD_OWNER_RECORD_COLLISION;
  if ((strcmp(f[0], kinds[0]) != 0 && strcmp(f[0], kinds[1]) != 0) ||
      (r->layout = guest_layout(f[1])) == NULL)
    return false;
  if (strcmp(f[2], ".") != 0 &&
      (!unescape(f[2], r->cluster, sizeof(r->cluster)) ||
       rrd_cluster_name_problem(r->cluster) != NULL))
    return false;
  if (!unescape(f[3], r->name, sizeof(r->name)) ||
      rrd_file_name_problem(r->name) != NULL ||
      !unescape(f[4], r->host, sizeof(r->host)))
    return false;
  bool owner = r->kind == RRD_OWNER_RECORD_OWNER;
  if (!number(f[5], !owner, &v) ||
      (owner ? !(v > 0 && v <= 86400) : (v < 0 || v > 1e15)))
    return false;
  if (owner)
    r->interval = v;
  else
    r->since = (long long)v;
  return true;
}

/* Splits line (changed in place) at each space: the field count, or -1
 * for more than FIELDS.  Empty fields are no names nor numbers. */
static int split(char *line, char **f) {
  int n = 0;
  for (char *p = line; n < FIELDS; p++) {
    f[n++] = p;
    if ((p = strchr(p, ' ')) == NULL)
      return n;
    *p = '\0';
  }
  return -1;
}

/* One line: a record taken, the end line, or a bad line counted. */
static int one_line(char *line, bool *ended, struct rrd_owner_records *ret) {
  char *f[FIELDS];
  struct rrd_owner_record r;
  double count;
  int n = *ended || strlen(line) > LINE_MAX_LEN ? -1 : split(line, f);
  if (n == 2 && strcmp(f[0], "end") == 0) {
    *ended = true;
    ret->cut |= !number(f[1], true, &count) || count != (double)ret->count;
  } else if (n != FIELDS || !record_of(f, &r)) {
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
  char header[32], *copy = malloc(len + 1);
  int r = 0, n = snprintf(header, sizeof(header), RRD_OWNER_FILE_NAME " %d\n",
                          RRD_OWNER_FILE_VERSION);
  if (copy == NULL)
    return -ENOMEM;
  memcpy(copy, text, len);
  copy[len] = '\0';
  bool ended = false;
  if (len < (size_t)n || memcmp(text, header, (size_t)n) != 0)
    r = -EPROTO;
  char *line = r == 0 ? copy + n : copy, *nl;
  while (r == 0 && (nl = memchr(line, '\n', len - (size_t)(line - copy)))) {
    *nl = '\0';
    r = strlen(line) == (size_t)(nl - line) ? one_line(line, &ended, ret)
                                             : (ret->bad_lines++, 0);
    line = nl + 1;
  }
  ret->cut |= r == 0 && !ended;
  free(copy);
  return r;
}

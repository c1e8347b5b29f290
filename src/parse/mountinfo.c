/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for /proc/self/mountinfo that finds where the cgroup hierarchies
 * are mounted, instead of assuming /sys/fs/cgroup: PVE hosts differ
 * (unified vs. hybrid) and containers or test setups mount them elsewhere.
 *
 * Line form (proc(5)), fields separated by single spaces:
 *   id parent major:minor root mountpoint options [optional...] - fstype
 *   source superoptions
 * A line that does not have this form is skipped rather than guessed at.
 */
#include "pvecg/mountinfo.h"

#include <stdbool.h>
#include <string.h>

#include "pvecg/decimal.h"

#define MOUNTINFO_HEAD_FIELDS 6
#define MOUNTINFO_MOUNT_POINT 4
/* The kernel writes ' ', '\t', '\n' and '\\' in paths as "\ooo". */
#define MOUNTINFO_ESCAPE_LEN 4

struct span {
  const char *p;
  size_t len;
};

struct field_cursor {
  const char *p, *eol;
  bool done;
};

struct mountinfo_entry {
  struct span mount_point, fstype, super_options;
};

static bool span_is(struct span s, const char *word) {
  return s.len == strlen(word) && memcmp(s.p, word, s.len) == 0;
}

/* Fields are split at every single space, so "a  b" has an empty field. */
static bool field_next(struct field_cursor *c, struct span *f) {
  const char *space;

  if (c->done)
    return false;
  space = memchr(c->p, ' ', (size_t)(c->eol - c->p));
  f->p = c->p;
  f->len = (size_t)((space ? space : c->eol) - c->p);
  if (space)
    c->p = space + 1;
  else
    c->done = true;
  return true;
}

static bool span_is_number(struct span s) {
  const char *p = s.p;
  uint64_t v;

  return decimal_parse_u64(&p, s.p + s.len, &v) == 0 && p == s.p + s.len;
}

static bool span_is_device(struct span s) {
  const char *colon = memchr(s.p, ':', s.len);
  struct span major, minor;

  if (!colon)
    return false;
  major = (struct span){s.p, (size_t)(colon - s.p)};
  minor = (struct span){colon + 1, s.len - major.len - 1};
  return span_is_number(major) && span_is_number(minor);
}

/* id, parent, major:minor, root, mount point, options. */
static bool mountinfo_split_head(struct field_cursor *c, struct span *mp) {
  struct span f[MOUNTINFO_HEAD_FIELDS];

  for (size_t i = 0; i < MOUNTINFO_HEAD_FIELDS; i++)
    if (!field_next(c, &f[i]) || f[i].len == 0)
      return false;
  if (!span_is_number(f[0]) || !span_is_number(f[1]) || !span_is_device(f[2]))
    return false;
  *mp = f[MOUNTINFO_MOUNT_POINT];
  return mp->p[0] == '/';
}

/* Optional fields up to "-", then exactly fstype, source, superoptions.  The
 * source may be empty (mount -t cgroup2 "" /x is accepted by the kernel). */
static bool mountinfo_split_tail(struct field_cursor *c,
                                 struct mountinfo_entry *e) {
  struct span f, source;

  do {
    if (!field_next(c, &f) || f.len == 0)
      return false;
  } while (!span_is(f, "-"));
  if (!field_next(c, &e->fstype) || !field_next(c, &source) ||
      !field_next(c, &e->super_options) || field_next(c, &f))
    return false;
  return e->fstype.len > 0 && e->super_options.len > 0;
}

static bool has_option(struct span options, const char *option) {
  const char *p = options.p, *end = options.p + options.len, *comma;

  for (;;) {
    comma = memchr(p, ',', (size_t)(end - p));
    if (span_is((struct span){p, (size_t)((comma ? comma : end) - p)}, option))
      return true;
    if (!comma)
      return false;
    p = comma + 1;
  }
}

static bool is_octal(char c, char max) { return c >= '0' && c <= max; }

/* Decodes the "\ooo" at s (len bytes available) into *c. */
static bool decode_escape(const char *s, size_t len, char *c) {
  if (len < MOUNTINFO_ESCAPE_LEN || !is_octal(s[1], '3') ||
      !is_octal(s[2], '7') || !is_octal(s[3], '7'))
    return false;
  *c = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
  return true;
}

/* A NUL (raw or "\000") would silently shorten the path, so it is refused,
 * as is a path that does not fit PATH_MAX with its terminator. */
static bool decode_path(struct span s, char dst[PATH_MAX]) {
  size_t i = 0, n = 0;
  char c;

  while (i < s.len) {
    c = s.p[i];
    if (c != '\\')
      i++;
    else if (decode_escape(s.p + i, s.len - i, &c))
      i += MOUNTINFO_ESCAPE_LEN;
    else
      return false;
    if (c == '\0' || n + 1 >= PATH_MAX)
      return false;
    dst[n++] = c;
  }
  dst[n] = '\0';
  return true;
}

/* First match wins: a later mount of the same kind does not replace it. */
static void mountinfo_take(struct span mount_point, char target[PATH_MAX]) {
  char path[PATH_MAX];

  if (target[0] == '\0' && decode_path(mount_point, path))
    memcpy(target, path, strlen(path) + 1);
}

static void mountinfo_parse_line(const char *p, const char *eol,
                                 struct cgroup_mounts *mounts) {
  struct field_cursor c = {.p = p, .eol = eol};
  struct mountinfo_entry e;

  if (!mountinfo_split_head(&c, &e.mount_point) ||
      !mountinfo_split_tail(&c, &e))
    return;
  if (span_is(e.fstype, "cgroup2"))
    mountinfo_take(e.mount_point, mounts->unified);
  else if (span_is(e.fstype, "cgroup") && has_option(e.super_options, "memory"))
    mountinfo_take(e.mount_point, mounts->memory_v1);
}

int mountinfo_parse(const char *buf, size_t len, struct cgroup_mounts *ret) {
  const char *p = buf, *end = buf + len, *nl, *eol;

  memset(ret, 0, sizeof(*ret));
  while (p < end) {
    nl = memchr(p, '\n', (size_t)(end - p));
    eol = nl ? nl : end;
    mountinfo_parse_line(p, eol, ret);
    p = nl ? nl + 1 : end;
  }
  return 0;
}

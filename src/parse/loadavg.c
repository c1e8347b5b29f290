/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for /proc/loadavg (see loadavg.h).  The file is one line in a
 * fixed format, so the parser walks it field by field and refuses anything
 * else, rather than picking the first number out of whatever is there.
 */
#include "pvecg/loadavg.h"

#include <errno.h>

#include "pvecg/decimal.h"

static int errno_of(int r) { return r == -ERANGE ? r : -EBADMSG; }

/* The character c at *p, stepped over. */
static int expect(const char **p, const char *end, char c) {
  if (*p == end || **p != c)
    return -EBADMSG;
  (*p)++;
  return 0;
}

static int parse_averages(const char **p, const char *end, struct loadavg *la) {
  double *slots[] = {&la->avg1, &la->avg5, &la->avg15};
  int r;

  for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
    r = decimal_parse_fixed(p, end, slots[i]);
    if (r < 0)
      return errno_of(r);
    r = expect(p, end, ' ');
    if (r < 0)
      return r;
  }
  return 0;
}

/* "running/threads last_pid" */
static int parse_counts(const char **p, const char *end, struct loadavg *la) {
  int r = decimal_parse_u64(p, end, &la->running);

  if (r < 0)
    return errno_of(r);
  r = expect(p, end, '/');
  if (r < 0)
    return r;
  r = decimal_parse_u64(p, end, &la->threads);
  if (r < 0)
    return errno_of(r);
  r = expect(p, end, ' ');
  if (r < 0)
    return r;
  r = decimal_parse_u64(p, end, &la->last_pid);
  return r < 0 ? errno_of(r) : 0;
}

int loadavg_parse(const char *buf, size_t len, struct loadavg *ret) {
  const char *p = buf, *end = buf + len;
  struct loadavg la;
  int r = parse_averages(&p, end, &la);

  if (r == 0)
    r = parse_counts(&p, end, &la);
  if (r < 0)
    return r;
  if (p < end && *p == '\n')
    p++;
  if (p != end)
    return -EBADMSG;
  *ret = la;
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for io.stat, cpu.max and memory.max (see cgroup_stats.h), in the
 * strict style of the other kernel-file parsers: exact forms only, every
 * required field once.
 */
#include "pvecg/cgroup_stats.h"

#include "pvecg/decimal.h"

#include <errno.h>
#include <string.h>

/* "MAJ:MIN" at the start of an io.stat line. */
static int skip_device(const char **p, const char *eol) {
  uint64_t n;
  if (decimal_parse_u64(p, eol, &n) < 0 || *p == eol || **p != ':')
    return -EBADMSG;
  (*p)++;
  if (decimal_parse_u64(p, eol, &n) < 0)
    return -EBADMSG;
  return 0;
}

/* The " key=value" fields of one line; rbytes/wbytes each exactly once. */
static int io_line(const char *p, const char *eol, struct io_totals *line) {
  unsigned seen = 0;
  if (skip_device(&p, eol) < 0)
    return -EBADMSG;
  while (p < eol) {
    if (*p++ != ' ')
      return -EBADMSG;
    const char *eq = memchr(p, '=', (size_t)(eol - p));
    if (!eq || eq == p)
      return -EBADMSG;
    unsigned bit = 0;
    uint64_t *slot = NULL;
    if (eq - p == 6 && memcmp(p, "rbytes", 6) == 0)
      bit = 1, slot = &line->rbytes;
    else if (eq - p == 6 && memcmp(p, "wbytes", 6) == 0)
      bit = 2, slot = &line->wbytes;
    if (seen & bit)
      return -EBADMSG;
    seen |= bit;
    p = eq + 1;
    uint64_t v;
    int r = decimal_parse_u64(&p, eol, &v);
    if (r < 0)
      return r == -ERANGE ? r : -EBADMSG;
    if (slot)
      *slot = v;
  }
  return seen == 3 ? 0 : -EBADMSG;
}

int io_stat_parse(const char *buf, size_t len, struct io_totals *ret) {
  struct io_totals sum = {0, 0};
  const char *p = buf, *end = buf + len;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    eol = eol ? eol : end;
    struct io_totals line;
    int r = io_line(p, eol, &line);
    if (r < 0)
      return r;
    if (sum.rbytes + line.rbytes < sum.rbytes ||
        sum.wbytes + line.wbytes < sum.wbytes)
      return -ERANGE;
    sum.rbytes += line.rbytes;
    sum.wbytes += line.wbytes;
    p = eol + (eol < end);
  }
  *ret = sum;
  return 0;
}

/* buf without one trailing newline. */
static const char *content_end(const char *buf, size_t len) {
  return len > 0 && buf[len - 1] == '\n' ? buf + len - 1 : buf + len;
}

static bool is_max(const char *p, const char *end) {
  return end - p >= 3 && memcmp(p, "max", 3) == 0;
}

int cpu_max_parse(const char *buf, size_t len, unsigned *cpus) {
  const char *p = buf, *end = content_end(buf, len);
  uint64_t quota = 0, period;
  bool unlimited = is_max(p, end);
  if (unlimited)
    p += 3;
  else if (decimal_parse_u64(&p, end, &quota) < 0)
    return -EBADMSG;
  if (p == end || *p++ != ' ' || decimal_parse_u64(&p, end, &period) < 0 ||
      p != end || period == 0)
    return -EBADMSG;
  uint64_t n = unlimited ? 0 : (quota + period - 1) / period;
  if (n > 1u << 20)
    return -EBADMSG;
  *cpus = (unsigned)n;
  return 0;
}

int memory_max_parse(const char *buf, size_t len, uint64_t *bytes) {
  const char *end = content_end(buf, len);
  if (is_max(buf, end) && end - buf == 3) {
    *bytes = 0;
    return 0;
  }
  uint64_t v;
  const char *p = buf;
  if (decimal_parse_u64(&p, end, &v) < 0 || p != end)
    return -EBADMSG;
  *bytes = v;
  return 0;
}

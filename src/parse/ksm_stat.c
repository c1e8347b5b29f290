/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsers for /proc/<pid>/ksm_stat and pid files (see ksm_stat.h). */
#include "pvecg/ksm_stat.h"

#include "pvecg/decimal.h"
#include "pvecg/flat_keyed.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* "-"? digits, the whole of [p, end), within int64. */
static int parse_i64(const char *p, const char *end, int64_t *ret) {
  bool negative = p < end && *p == '-';
  p += negative;
  uint64_t v;
  int r = decimal_parse_u64(&p, end, &v);
  if (r < 0 || p != end)
    return r == -ERANGE ? r : -EBADMSG;
  if (v > (uint64_t)INT64_MAX + negative)
    return -ERANGE;
  *ret = negative ? (int64_t)(0 - v) : (int64_t)v;
  return 0;
}

/* The value of the line "ksm_process_profit <int>"; flat_keyed.h only
 * knows unsigned values. */
static int find_profit(const char *buf, size_t len, int64_t *ret) {
  static const char key[] = "ksm_process_profit ";
  const char *p = buf, *end = buf + len;
  bool found = false;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    eol = eol ? eol : end;
    if ((size_t)(eol - p) >= sizeof(key) - 1 &&
        memcmp(p, key, sizeof(key) - 1) == 0) {
      if (found || parse_i64(p + sizeof(key) - 1, eol, ret) < 0)
        return -EBADMSG;
      found = true;
    }
    p = eol + (eol < end);
  }
  return found ? 0 : -EBADMSG;
}

int ksm_stat_parse(const char *buf, size_t len, struct ksm_stat *ret) {
  static const char *const keys[] = {"ksm_merging_pages"};
  uint64_t pages, found = 0;
  int64_t profit;
  int r = flat_keyed_parse(buf, len, keys, 1, &pages, &found);
  if (r < 0)
    return r;
  if (found != 1 || find_profit(buf, len, &profit) < 0)
    return -EBADMSG;
  ret->merging_pages = pages;
  ret->profit = profit;
  return 0;
}

int pid_file_parse(const char *buf, size_t len, int *ret) {
  uint64_t pid;
  if (decimal_parse_u64_file(buf, len, &pid) < 0 || pid == 0 || pid > INT32_MAX)
    return -EBADMSG;
  *ret = (int)pid;
  return 0;
}

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

/* The value of the line "ksm_process_profit <int>", if there is one
 * (*found); flat_keyed.h only knows unsigned values. */
static int find_profit(const char *buf, size_t len, int64_t *ret, bool *found) {
  static const char key[] = "ksm_process_profit ";
  const char *p = buf, *end = buf + len;
  *found = false;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    eol = eol ? eol : end;
    if ((size_t)(eol - p) >= sizeof(key) - 1 &&
        memcmp(p, key, sizeof(key) - 1) == 0) {
      if (*found || parse_i64(p + sizeof(key) - 1, eol, ret) < 0)
        return -EBADMSG;
      *found = true;
    }
    p = eol + (eol < end);
  }
  return 0;
}

int ksm_stat_parse(const char *buf, size_t len, struct ksm_stat *ret) {
  static const char *const keys[] = {"ksm_merging_pages", "ksm_zero_pages"};
  uint64_t values[2], found = 0;
  struct ksm_stat k = {0};
  int r = flat_keyed_parse(buf, len, keys, 2, values, &found);
  if (r < 0)
    return r;
  if (!(found & 1) || find_profit(buf, len, &k.profit, &k.has_profit) < 0)
    return -EBADMSG;
  k.merging_pages = values[0];
  k.has_zero_pages = (found & 2) != 0;
  k.zero_pages = k.has_zero_pages ? values[1] : 0;
  *ret = k;
  return 0;
}

/* The start time is field 22; fields from the third on follow the last
 * ')' (the command name's end), one space apart. */
#define START_FIELD_AFTER_NAME 19

int pid_stat_start_parse(const char *buf, size_t len, uint64_t *ret) {
  const char *end = buf + len, *p = NULL;
  for (const char *q = buf; q < end; q++)
    if (*q == ')')
      p = q;
  if (p == NULL || end - p < 2 || p[1] != ' ')
    return -EBADMSG;
  p += 2;
  for (int field = 0; field < START_FIELD_AFTER_NAME; field++) {
    p = memchr(p, ' ', (size_t)(end - p));
    if (p == NULL)
      return -EBADMSG;
    p++;
  }
  uint64_t v;
  if (decimal_parse_u64(&p, end, &v) < 0 || (p < end && *p != ' '))
    return -EBADMSG;
  *ret = v;
  return 0;
}

int signed_file_parse(const char *buf, size_t len, int64_t *ret) {
  if (len > 0 && buf[len - 1] == '\n')
    len--;
  int64_t v;
  int r = parse_i64(buf, buf + len, &v);
  if (r < 0)
    return r;
  *ret = v;
  return 0;
}

int pid_file_parse(const char *buf, size_t len, int *ret) {
  uint64_t pid;
  if (decimal_parse_u64_file(buf, len, &pid) < 0 || pid == 0 || pid > INT32_MAX)
    return -EBADMSG;
  *ret = (int)pid;
  return 0;
}

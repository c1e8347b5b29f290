/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for export_time_parse (src/exporting/export_range.c), the times
 * of `pvecg export --since/--until`.  The first byte picks the clock reading
 * ("now", never negative), the rest is the text.  Checks, beyond memory
 * safety and signed overflow (UBSan): the result agrees with an oracle
 * that reads the text with 128-bit arithmetic, and a refusal is -EINVAL
 * with *ret untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pvecg/export_range.h"
#include "fuzz_check.h"

#define SENTINEL ((time_t)0x5a5a5a5a5a5a5a5a)

/* Saturates at a value above INT64_MAX, so overflow stays visible. */
static bool digits_value(const char *s, size_t n, __int128 *ret) {
  __int128 v = 0;

  if (n == 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    v = v * 10 + (s[i] - '0');
    if (v > (__int128)INT64_MAX)
      v = (__int128)INT64_MAX + 1;
  }
  *ret = v;
  return true;
}

static __int128 unit_seconds(char unit) {
  const char *units = "smhdw";
  static const long seconds[] = {1, 60, 3600, 86400, 604800};
  const char *p = unit != '\0' ? strchr(units, unit) : NULL;

  return p != NULL ? seconds[p - units] : 0;
}

/* The oracle: true and the time, or false for a refusal. */
static bool oracle(const char *s, time_t now, time_t *ret) {
  size_t n = strlen(s);
  __int128 v, unit;

  if (strcmp(s, "now") == 0) {
    *ret = now;
    return true;
  }
  if (s[0] != '-') {
    if (!digits_value(s, n, &v) || v > INT64_MAX)
      return false;
    *ret = (time_t)v;
    return true;
  }
  if (n < 3 || (unit = unit_seconds(s[n - 1])) == 0 ||
      !digits_value(s + 1, n - 2, &v) || v * unit > INT64_MAX)
    return false;
  *ret = (time_t)((__int128)now - v * unit);
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const time_t clocks[] = {1764730800, 0, 1, INT32_MAX, INT64_MAX};
  time_t now, got = SENTINEL, want = SENTINEL;
  char *s;
  bool ok;
  int r;

  if (size == 0)
    return 0;
  now = clocks[data[0] % (sizeof(clocks) / sizeof(clocks[0]))];
  s = malloc(size);
  FUZZ_CHECK(s != NULL);
  memcpy(s, data + 1, size - 1);
  s[size - 1] = '\0';
  FUZZ_CHECK(export_time_parse(NULL, now, &got) == -EINVAL && got == SENTINEL);
  ok = oracle(s, now, &want);
  r = export_time_parse(s, now, &got);
  if (ok)
    FUZZ_CHECK(r == 0 && got == want);
  else
    FUZZ_CHECK(r == -EINVAL && got == SENTINEL);
  free(s);
  return 0;
}

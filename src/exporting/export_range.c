/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The archive and row selection of `pvecg export` (see export_range.h):
 * plain arithmetic over the layout's archive table, so it can be checked
 * exactly without any file.
 */
#include "pvecg/export_range.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* Largest multiple of step <= t, for negative t too. */
static time_t floor_to(time_t t, time_t step) {
  time_t q = t / step;
  if (t % step != 0 && t < 0)
    q--;
  return q * step;
}

/* Smallest multiple of step >= t. */
static time_t ceil_to(time_t t, time_t step) {
  time_t f = floor_to(t, step);
  return f == t ? t : f + step;
}

/* The CF's archives' indexes, finest first (the table need not be
 * ordered).  Returns how many, or -E2BIG. */
static int archives_by_resolution(const struct rrd_layout *layout,
                                  enum rrd_cf cf,
                                  size_t order[EXPORT_FETCH_MAX]) {
  size_t n = 0;
  for (size_t i = 0; i < layout->rra_count; i++) {
    if (layout->rra[i].cf != cf)
      continue;
    if (n == EXPORT_FETCH_MAX)
      return -E2BIG;
    size_t j = n++;
    for (; j > 0 && layout->rra[order[j - 1]].steps > layout->rra[i].steps; j--)
      order[j] = order[j - 1];
    order[j] = i;
  }
  return (int)n;
}

/*
 * The rows one archive contributes: those ending at multiples of reso in
 * [since, min(until, older_than)] that the archive still holds.  Returns
 * whether there are any; *older_than moves to the start of the oldest.
 */
static bool archive_fetch(const struct rrd_rra_def *rra, unsigned long step,
                          time_t last_update, time_t since, time_t until,
                          time_t *older_than, struct export_fetch *ret) {
  time_t reso = (time_t)(rra->steps * step);
  time_t newest = floor_to(last_update, reso);
  time_t oldest = newest - (time_t)(rra->rows - 1) * reso;
  time_t hi = until < *older_than ? until : *older_than;
  hi = floor_to(hi < newest ? hi : newest, reso);
  time_t lo = ceil_to(since > oldest ? since : oldest, reso);
  if (lo > hi)
    return false;
  *ret = (struct export_fetch){
      .resolution = (unsigned long)reso, .start = lo - reso, .end = hi};
  *older_than = lo - reso;
  return true;
}

int export_range_plan(const struct rrd_layout *layout, enum rrd_cf cf,
                      time_t last_update, time_t since, time_t until,
                      bool finest_only, struct export_plan *ret) {
  if (since > until)
    return -EINVAL;
  size_t order[EXPORT_FETCH_MAX];
  int n = archives_by_resolution(layout, cf, order);
  if (n < 0)
    return n;
  if (finest_only && n > 1)
    n = 1;
  /* Collected newest first, returned oldest first. */
  struct export_fetch found[EXPORT_FETCH_MAX];
  size_t count = 0;
  time_t older_than = until;
  for (int i = 0; i < n; i++) {
    const struct rrd_rra_def *rra = &layout->rra[order[i]];
    if (rra->steps == 0 || rra->rows == 0)
      continue;
    if (archive_fetch(rra, layout->step, last_update, since, until, &older_than,
                      &found[count]))
      count++;
  }
  struct export_plan plan = {.count = count};
  for (size_t i = 0; i < count; i++)
    plan.fetch[i] = found[count - 1 - i];
  *ret = plan;
  return 0;
}

size_t export_fetch_rows(const struct export_fetch *fetch) {
  if (fetch->resolution == 0 || fetch->end <= fetch->start)
    return 0;
  return (size_t)(fetch->end - fetch->start) / fetch->resolution;
}

/* Digits only, no sign, no overflow of time_t (64-bit on Debian). */
static int parse_count(const char *s, size_t len, int64_t limit, int64_t *ret) {
  if (len == 0)
    return -EINVAL;
  int64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -EINVAL;
    int d = s[i] - '0';
    if (v > (limit - d) / 10)
      return -EINVAL;
    v = v * 10 + d;
  }
  *ret = v;
  return 0;
}

static int64_t unit_seconds(char unit) {
  switch (unit) {
  case 's':
    return 1;
  case 'm':
    return 60;
  case 'h':
    return 3600;
  case 'd':
    return 86400;
  case 'w':
    return 604800;
  }
  return 0;
}

int export_time_parse(const char *text, time_t now, time_t *ret) {
  if (text == NULL)
    return -EINVAL;
  size_t len = strlen(text);
  if (strcmp(text, "now") == 0) {
    *ret = now;
    return 0;
  }
  int64_t v;
  if (text[0] != '-') {
    if (parse_count(text, len, INT64_MAX, &v) < 0)
      return -EINVAL;
    *ret = (time_t)v;
    return 0;
  }
  int64_t unit = len > 2 ? unit_seconds(text[len - 1]) : 0;
  if (unit == 0 || parse_count(text + 1, len - 2, INT64_MAX / unit, &v) < 0)
    return -EINVAL;
  *ret = now - (time_t)(v * unit);
  return 0;
}

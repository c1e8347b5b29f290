/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for view_args_set (src/reading/view_source.c), which takes the
 * option values shared by `pvecg rrddata`, `check` and `graph`.  The first byte
 * picks the option (one of the eight, or one that is not shared), the rest
 * is the value.  Checks, beyond memory safety, against an oracle that
 * changes a copy of the arguments as the option's documentation says:
 * --timeframe takes the timeframe words, --cf "AVERAGE" or "MAX", --now
 * digits up to INT64_MAX / 2; the names are kept as given.  A bad value is
 * -EINVAL, an unknown option -ENOENT, and neither changes any argument but
 * has_timeframe (which records that --timeframe was given at all).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "pvecg/view_source.h"

#define OPT_COUNT 8
#define OPT_NOT_SHARED 'x'

static bool same_args(const struct view_args *a, const struct view_args *b) {
  return a->vmid == b->vmid && a->node == b->node && a->file == b->file &&
         a->data_dir == b->data_dir && a->daemon == b->daemon &&
         a->has_timeframe == b->has_timeframe && a->timeframe == b->timeframe &&
         a->cf == b->cf && a->now == b->now;
}

/* Digits only, no more than INT64_MAX / 2. */
static bool oracle_now(const char *s, time_t *ret) {
  size_t n = strlen(s);
  __int128 v = 0;

  if (n == 0 || strspn(s, "0123456789") != n)
    return false;
  for (size_t i = 0; i < n && v <= INT64_MAX; i++)
    v = v * 10 + (s[i] - '0');
  if (v > INT64_MAX / 2)
    return false;
  *ret = (time_t)v;
  return true;
}

static bool oracle_timeframe(const char *s, enum rrddata_timeframe *ret) {
  static const char *const words[] = {"hour",  "day",  "week",
                                      "month", "year", "decade"};
  static const enum rrddata_timeframe values[] = {RRDDATA_HOUR, RRDDATA_DAY,
                                                  RRDDATA_WEEK, RRDDATA_MONTH,
                                                  RRDDATA_YEAR, RRDDATA_DECADE};

  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if (strcmp(s, words[i]) == 0) {
      *ret = values[i];
      return true;
    }
  return false;
}

/* The oracle: the return value, with *want changed as the option says. */
static int oracle(int opt, const char *value, struct view_args *want) {
  switch (opt) {
  case VIEW_OPT_TIMEFRAME:
    want->has_timeframe = true;
    return oracle_timeframe(value, &want->timeframe) ? 0 : -EINVAL;
  case VIEW_OPT_CF:
    if (strcmp(value, "AVERAGE") != 0 && strcmp(value, "MAX") != 0)
      return -EINVAL;
    want->cf = value[0] == 'A' ? RRD_CF_AVERAGE : RRD_CF_MAX;
    return 0;
  case VIEW_OPT_NOW:
    return oracle_now(value, &want->now) ? 0 : -EINVAL;
  case VIEW_OPT_VMID:
    want->vmid = value;
    return 0;
  case VIEW_OPT_NODE:
    want->node = value;
    return 0;
  case VIEW_OPT_FILE:
    want->file = value;
    return 0;
  case VIEW_OPT_DATA_DIR:
    want->data_dir = value;
    return 0;
  case VIEW_OPT_DAEMON:
    want->daemon = value;
    return 0;
  }
  return -ENOENT;
}

/* view_args_set explains a bad value on stderr: keep that out of the log. */
static int set_quietly(struct view_args *args, int opt, const char *value) {
  static int null_fd = -1;
  int saved, r;

  if (null_fd < 0)
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  FUZZ_CHECK(null_fd >= 0);
  saved = dup(STDERR_FILENO);
  FUZZ_CHECK(saved >= 0 && dup2(null_fd, STDERR_FILENO) >= 0);
  r = view_args_set(args, opt, value, "pvecg rrddata");
  FUZZ_CHECK(dup2(saved, STDERR_FILENO) >= 0);
  close(saved);
  return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct view_args args, want;
  char *value;
  int opt, r;

  if (size == 0)
    return 0;
  opt = data[0] & 0x80 ? OPT_NOT_SHARED
                       : VIEW_OPT_TIMEFRAME + data[0] % OPT_COUNT;
  value = malloc(size);
  FUZZ_CHECK(value != NULL);
  memcpy(value, data + 1, size - 1);
  value[size - 1] = '\0';
  view_args_init(&args);
  want = args;
  r = set_quietly(&args, opt, value);
  FUZZ_CHECK(r == oracle(opt, value, &want));
  FUZZ_CHECK(same_args(&args, &want));
  free(value);
  return 0;
}

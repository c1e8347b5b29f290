/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/ksm_stat.c (ksm_stat and pid files on the same
 * input, and the start time of a /proc/<pid>/stat and a signed file).
 * Invariants: only documented errors, outputs untouched on error,
 * deterministic results, pids positive.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/ksm_stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  struct ksm_stat a = {.merging_pages = 7, .profit = 7}, b = {0};
  int r = ksm_stat_parse(buf, size, &a);
  FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ERANGE);
  if (r == 0) {
    FUZZ_CHECK(ksm_stat_parse(buf, size, &b) == 0);
    FUZZ_CHECK(a.merging_pages == b.merging_pages && a.profit == b.profit &&
               a.zero_pages == b.zero_pages && a.has_profit == b.has_profit &&
               a.has_zero_pages == b.has_zero_pages);
    FUZZ_CHECK(a.has_profit || a.profit == 0);
    FUZZ_CHECK(a.has_zero_pages || a.zero_pages == 0);
  } else {
    FUZZ_CHECK(a.merging_pages == 7 && a.profit == 7 && !a.has_profit);
  }
  uint64_t start = 7;
  r = pid_stat_start_parse(buf, size, &start);
  FUZZ_CHECK(r == 0 || (r == -EBADMSG && start == 7));
  int64_t v = 7;
  r = signed_file_parse(buf, size, &v);
  FUZZ_CHECK(r == 0 || ((r == -EBADMSG || r == -ERANGE) && v == 7));
  int pid = -5;
  r = pid_file_parse(buf, size, &pid);
  FUZZ_CHECK(r == 0 || r == -EBADMSG);
  FUZZ_CHECK(r == 0 ? pid > 0 : pid == -5);
  return 0;
}

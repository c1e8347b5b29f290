/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/ksm_stat.c (ksm_stat and pid files on the same
 * input).  Invariants: only documented errors, outputs untouched on error,
 * deterministic results, pids positive.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/ksm_stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  struct ksm_stat a = {7, 7}, b = {0, 0};
  int r = ksm_stat_parse(buf, size, &a);
  FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ERANGE);
  if (r == 0) {
    FUZZ_CHECK(ksm_stat_parse(buf, size, &b) == 0);
    FUZZ_CHECK(a.merging_pages == b.merging_pages && a.profit == b.profit);
  } else {
    FUZZ_CHECK(a.merging_pages == 7 && a.profit == 7);
  }
  int pid = -5;
  r = pid_file_parse(buf, size, &pid);
  FUZZ_CHECK(r == 0 || r == -EBADMSG);
  FUZZ_CHECK(r == 0 ? pid > 0 : pid == -5);
  return 0;
}

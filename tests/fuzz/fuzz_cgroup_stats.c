/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/cgroup_stats.c (io.stat, cpu.max, memory.max on the
 * same input).  Invariants: only the documented error codes, outputs
 * untouched on error, io.stat totals at least those of its first line
 * alone (sums never wrap), and deterministic results.
 */
#include <errno.h>
#include <string.h>

#include "pvecg/cgroup_stats.h"
#include "fuzz_check.h"

static void check_io(const char *buf, size_t size) {
  struct io_totals t = {7, 7}, first = {7, 7};
  int r = io_stat_parse(buf, size, &t);
  FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ERANGE);
  if (r != 0) {
    FUZZ_CHECK(t.rbytes == 7 && t.wbytes == 7);
    return;
  }
  const char *nl = memchr(buf, '\n', size);
  if (nl && io_stat_parse(buf, (size_t)(nl - buf), &first) == 0)
    FUZZ_CHECK(t.rbytes >= first.rbytes && t.wbytes >= first.wbytes);
}

static void check_limits(const char *buf, size_t size) {
  unsigned cpus = 9, cpus2 = 0;
  int r = cpu_max_parse(buf, size, &cpus);
  FUZZ_CHECK(r == 0 || r == -EBADMSG);
  FUZZ_CHECK(r == 0 || cpus == 9);
  if (r == 0) {
    FUZZ_CHECK(cpu_max_parse(buf, size, &cpus2) == 0 && cpus2 == cpus);
    FUZZ_CHECK(cpus <= 1u << 20);
  }
  uint64_t bytes = 9;
  r = memory_max_parse(buf, size, &bytes);
  FUZZ_CHECK(r == 0 || r == -EBADMSG);
  FUZZ_CHECK(r == 0 || bytes == 9);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check_io((const char *)data, size);
  check_limits((const char *)data, size);
  return 0;
}

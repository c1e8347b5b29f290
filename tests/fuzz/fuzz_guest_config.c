/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/guest_config.c: both guest types on the same input.
 * Invariants: the result is deterministic, *ret is untouched on error, CPU
 * counts and memory stay within PVE's ranges, a balloon minimum only for
 * QEMU, in whole MiB within the same range, and the name is printable and
 * NUL-terminated.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/guest_config.h"

static void check_one(enum guest_type type, const char *buf, size_t size) {
  struct guest_config a, b;
  memset(&a, 0x5a, sizeof(a));
  struct guest_config before = a;
  int r = guest_config_parse(type, buf, size, &a);
  FUZZ_CHECK(r == 0 || r == -EBADMSG);
  if (r != 0) {
    FUZZ_CHECK(memcmp(&a, &before, sizeof(a)) == 0);
    return;
  }
  FUZZ_CHECK(guest_config_parse(type, buf, size, &b) == 0);
  FUZZ_CHECK(a.has_cpus == b.has_cpus && a.cpus == b.cpus &&
             a.memory == b.memory && strcmp(a.name, b.name) == 0);
  FUZZ_CHECK(!a.has_cpus || (a.cpus >= 1 && a.cpus <= 4096u * 4096u));
  FUZZ_CHECK(a.has_cpus || type == GUEST_LXC);
  FUZZ_CHECK(a.memory >= (UINT64_C(1) << 20) && a.memory % (1u << 20) == 0);
  FUZZ_CHECK(a.has_balloon_min == b.has_balloon_min &&
             a.balloon_min == b.balloon_min);
  FUZZ_CHECK(!a.has_balloon_min || type == GUEST_QEMU);
  FUZZ_CHECK(!a.has_balloon_min || (a.balloon_min % (1u << 20) == 0 &&
                                    a.balloon_min <= (UINT64_C(1) << 52)));
  size_t n = strnlen(a.name, sizeof(a.name));
  FUZZ_CHECK(n < sizeof(a.name));
  for (size_t i = 0; i < n; i++)
    FUZZ_CHECK((unsigned char)a.name[i] >= 0x20 && a.name[i] != 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check_one(GUEST_QEMU, (const char *)data, size);
  check_one(GUEST_LXC, (const char *)data, size);
  return 0;
}

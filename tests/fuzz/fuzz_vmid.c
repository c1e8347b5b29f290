/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/vmid.c: each of the three entry points accepts
 * exactly the canonical VMID texts (3 to 9 digits without a leading zero,
 * which is 100..999999999) and returns their value; everything else is
 * -EINVAL with the output untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/vmid.h"

#define SENTINEL 0xa5a5a5a5u
#define SCOPE_SUFFIX ".scope"

/* The oracle: a different way to tell a VMID, with strtoul for the value. */
static bool canonical_vmid(const char *s, size_t n, uint32_t *v) {
  char text[VMID_STRING_SIZE];

  if (n < 3 || n > VMID_STRING_SIZE - 1 || s[0] == '0')
    return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return false;
  memcpy(text, s, n);
  text[n] = '\0';
  *v = (uint32_t)strtoul(text, NULL, 10);
  return true;
}

static void check_result(int r, uint32_t v, bool want_ok, uint32_t want) {
  if (want_ok) {
    FUZZ_CHECK(r == 0 && v == want);
    FUZZ_CHECK(v >= VMID_MIN && v <= VMID_MAX);
  } else {
    FUZZ_CHECK(r == -EINVAL && v == SENTINEL);
  }
}

static void check_parse(const char *buf, size_t len) {
  uint32_t v = SENTINEL, want = 0;
  bool ok = canonical_vmid(buf, len, &want);

  check_result(vmid_parse(buf, len, &v), v, ok, want);
}

/* s is NUL-terminated; the string functions see it up to its first NUL. */
static void check_strings(const char *s) {
  size_t n = strlen(s), suffix = strlen(SCOPE_SUFFIX);
  uint32_t v = SENTINEL, want = 0;
  bool ok = canonical_vmid(s, n, &want);

  check_result(vmid_parse_string(s, &v), v, ok, want);
  ok = n > suffix && strcmp(s + n - suffix, SCOPE_SUFFIX) == 0 &&
       canonical_vmid(s, n - suffix, &want);
  v = SENTINEL;
  check_result(vmid_parse_scope_name(s, &v), v, ok, want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);

  FUZZ_CHECK(s != NULL);
  memcpy(s, data, size);
  s[size] = '\0';
  check_parse((const char *)data, size);
  check_strings(s);
  free(s);
  return 0;
}

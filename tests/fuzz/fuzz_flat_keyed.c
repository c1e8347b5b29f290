/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/flat_keyed.c, checked against a line-by-line oracle
 * written independently here: the same result code, mask and values for a
 * set of keys that are prefixes of one another ("fil", "file",
 * "file_mapped", ...), for the whole set and for each key alone, and the
 * outputs untouched on error.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pvecg/flat_keyed.h"
#include "fuzz_check.h"

#define NKEYS 8
#define SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)

static const char *const keys[NKEYS] = {
    "file", "file_mapped", "fil", "anon", "cache", "total_cache", "a", "b",
};

struct result {
  int r;
  uint64_t found;
  uint64_t values[NKEYS];
};

static size_t key_index(const char *const *k, size_t nkeys, const char *p,
                        size_t n) {
  for (size_t i = 0; i < nkeys; i++)
    if (strlen(k[i]) == n && memcmp(k[i], p, n) == 0)
      return i;
  return nkeys;
}

/* The contract applied to one line [p, eol). */
static int oracle_line(const char *const *k, size_t nkeys, const char *p,
                       const char *eol, struct result *res) {
  const char *space = memchr(p, ' ', (size_t)(eol - p));
  size_t i = key_index(k, nkeys, p, (size_t)((space ? space : eol) - p));
  size_t run;

  if (i == nkeys)
    return 0;
  if (!space || (res->found >> i & 1))
    return -EBADMSG;
  run = fuzz_digit_run(space + 1, eol);
  /* Overflow is reported before what follows the digits is looked at. */
  if (run > 0 && !fuzz_digits_fit_u64(space + 1, run))
    return -ERANGE;
  if (run == 0 || space + 1 + run != eol)
    return -EBADMSG;
  res->values[i] = fuzz_digits_value(space + 1, run);
  res->found |= UINT64_C(1) << i;
  return 0;
}

static struct result oracle(const char *buf, size_t len, const char *const *k,
                            size_t nkeys) {
  struct result res = {.r = 0, .found = 0};
  const char *p = buf, *end = buf + len;

  for (size_t i = 0; i < NKEYS; i++)
    res.values[i] = SENTINEL;
  while (p < end && res.r == 0) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));

    res.r = oracle_line(k, nkeys, p, nl ? nl : end, &res);
    p = nl ? nl + 1 : end;
  }
  return res;
}

static void check(const char *buf, size_t len, const char *const *k,
                  size_t nkeys) {
  struct result want = oracle(buf, len, k, nkeys), got;

  got.found = SENTINEL;
  for (size_t i = 0; i < NKEYS; i++)
    got.values[i] = SENTINEL;
  got.r = flat_keyed_parse(buf, len, k, nkeys, got.values, &got.found);
  FUZZ_CHECK(got.r == want.r);
  if (got.r < 0) {
    FUZZ_CHECK(got.found == SENTINEL);
    want.found = SENTINEL;
    for (size_t i = 0; i < NKEYS; i++)
      want.values[i] = SENTINEL;
  }
  FUZZ_CHECK(got.found == want.found);
  FUZZ_CHECK(memcmp(got.values, want.values, sizeof(got.values)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  uint64_t v, found;

  check(buf, size, keys, NKEYS);
  for (size_t i = 0; i < NKEYS; i++)
    check(buf, size, &keys[i], 1);
  check(buf, size, keys, 0);
  FUZZ_CHECK(flat_keyed_parse(buf, size, keys, FLAT_KEYED_MAX_KEYS + 1, &v,
                              &found) == -EINVAL);
  return 0;
}

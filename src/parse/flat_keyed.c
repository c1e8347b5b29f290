/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lookup of named counters in flat-keyed cgroup files ("key value" lines).
 *
 * memory.stat is read for every guest at every interval, so lines whose key
 * is not wanted are skipped after a byte or two of each wanted key and their
 * values are never looked at; the values of wanted keys are parsed strictly.
 */
#include "pvecg/flat_keyed.h"

#include <errno.h>
#include <string.h>

#include "pvecg/decimal.h"

#define FLAT_KEYED_NOT_WANTED FLAT_KEYED_MAX_KEYS

struct flat_keyed_query {
  const char *const *keys;
  size_t key_lens[FLAT_KEYED_MAX_KEYS];
  size_t nkeys;
};

/* The wanted key that is the line's key, the text up to its first space
 * (or the whole line): the line starts with it and a space or the end of
 * the line follows, so "file" matches neither "file_mapped" nor "fil".
 * Asked of the line's start, not of a key found first, so that most lines
 * are passed over after a byte or two. */
static size_t flat_keyed_lookup(const struct flat_keyed_query *q, const char *p,
                                const char *eol) {
  size_t left = (size_t)(eol - p);
  for (size_t i = 0; i < q->nkeys; i++) {
    size_t len = q->key_lens[i];
    if (len <= left && (len == left || p[len] == ' ') &&
        memcmp(q->keys[i], p, len) == 0)
      return i;
  }
  return FLAT_KEYED_NOT_WANTED;
}

/* One line [p, eol), without its '\n'. */
static int flat_keyed_parse_line(const struct flat_keyed_query *q,
                                 const char *p, const char *eol,
                                 uint64_t *values, uint64_t *seen) {
  size_t i = flat_keyed_lookup(q, p, eol);
  int r;

  if (i == FLAT_KEYED_NOT_WANTED)
    return 0;
  p += q->key_lens[i];
  if (p == eol || (*seen & (UINT64_C(1) << i)))
    return -EBADMSG;
  p++;
  r = decimal_parse_u64(&p, eol, &values[i]);
  if (r < 0)
    return r == -ERANGE ? -ERANGE : -EBADMSG;
  if (p != eol)
    return -EBADMSG;
  *seen |= UINT64_C(1) << i;
  return 0;
}

static void flat_keyed_store(size_t nkeys, const uint64_t *parsed,
                             uint64_t seen, uint64_t *values) {
  for (size_t i = 0; i < nkeys; i++)
    if (seen & (UINT64_C(1) << i))
      values[i] = parsed[i];
}

int flat_keyed_parse(const char *buf, size_t len, const char *const *keys,
                     size_t nkeys, uint64_t *values, uint64_t *found) {
  struct flat_keyed_query q = {.keys = keys, .nkeys = nkeys};
  uint64_t parsed[FLAT_KEYED_MAX_KEYS], seen = 0;
  const char *p = buf, *end = buf + len, *nl, *eol;
  int r;

  if (nkeys > FLAT_KEYED_MAX_KEYS)
    return -EINVAL;
  for (size_t i = 0; i < nkeys; i++)
    q.key_lens[i] = strlen(keys[i]);
  while (p < end) {
    nl = memchr(p, '\n', (size_t)(end - p));
    eol = nl ? nl : end;
    r = flat_keyed_parse_line(&q, p, eol, parsed, &seen);
    if (r < 0)
      return r;
    p = nl ? nl + 1 : end;
  }
  flat_keyed_store(nkeys, parsed, seen, values);
  *found = seen;
  return 0;
}

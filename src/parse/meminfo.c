/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for /proc/meminfo (see meminfo.h).
 *
 * Like flat_keyed.c, but for the "Key: value kB" form: a wanted key is
 * found by one comparison per line and only its value is parsed, so the
 * fifty-odd other lines cost a memchr each.
 */
#include "pvecg/meminfo.h"

#include <errno.h>
#include <string.h>

#include "pvecg/decimal.h"

enum meminfo_key {
  KEY_MEM_TOTAL,
  KEY_MEM_AVAILABLE,
  KEY_SWAP_TOTAL,
  KEY_SWAP_FREE,
  KEY_COUNT,
  KEY_NONE = KEY_COUNT,
};

#define ALL_KEYS ((1u << KEY_COUNT) - 1)
#define UNIT " kB"
#define KIB_SHIFT 10

static const char *const key_names[KEY_COUNT] = {
    [KEY_MEM_TOTAL] = "MemTotal",
    [KEY_MEM_AVAILABLE] = "MemAvailable",
    [KEY_SWAP_TOTAL] = "SwapTotal",
    [KEY_SWAP_FREE] = "SwapFree",
};

static enum meminfo_key key_lookup(const char *key, size_t len) {
  for (unsigned k = 0; k < KEY_COUNT; k++)
    if (strlen(key_names[k]) == len && memcmp(key_names[k], key, len) == 0)
      return (enum meminfo_key)k;
  return KEY_NONE;
}

/* The value after "Key:" at p: spaces, digits, " kB", end of line. */
static int parse_kib(const char *p, const char *eol, uint64_t *bytes) {
  size_t unit_len = strlen(UNIT);
  uint64_t kib;
  int r;

  if (p == eol || *p != ' ')
    return -EBADMSG;
  while (p < eol && *p == ' ')
    p++;
  r = decimal_parse_u64(&p, eol, &kib);
  if (r < 0)
    return r == -ERANGE ? r : -EBADMSG;
  if ((size_t)(eol - p) != unit_len || memcmp(p, UNIT, unit_len) != 0)
    return -EBADMSG;
  if (kib > UINT64_MAX >> KIB_SHIFT)
    return -ERANGE;
  *bytes = kib << KIB_SHIFT;
  return 0;
}

/* One line [p, eol), without its '\n'. */
static int parse_line(const char *p, const char *eol, uint64_t *values,
                      unsigned *seen) {
  const char *colon = memchr(p, ':', (size_t)(eol - p));
  enum meminfo_key k;
  int r;

  if (!colon)
    return 0; /* not a "Key:" line: nothing this parser wants */
  k = key_lookup(p, (size_t)(colon - p));
  if (k == KEY_NONE)
    return 0;
  if (*seen & (1u << k))
    return -EBADMSG;
  r = parse_kib(colon + 1, eol, &values[k]);
  if (r < 0)
    return r;
  *seen |= 1u << k;
  return 0;
}

int meminfo_parse(const char *buf, size_t len, struct meminfo *ret) {
  const char *p = buf, *end = buf + len, *nl, *eol;
  uint64_t values[KEY_COUNT];
  unsigned seen = 0;
  int r;

  while (p < end) {
    nl = memchr(p, '\n', (size_t)(end - p));
    eol = nl ? nl : end;
    r = parse_line(p, eol, values, &seen);
    if (r < 0)
      return r;
    p = nl ? nl + 1 : end;
  }
  if (seen != ALL_KEYS)
    return -EBADMSG;
  *ret = (struct meminfo){
      .mem_total = values[KEY_MEM_TOTAL],
      .mem_available = values[KEY_MEM_AVAILABLE],
      .swap_total = values[KEY_SWAP_TOTAL],
      .swap_free = values[KEY_SWAP_FREE],
  };
  return 0;
}

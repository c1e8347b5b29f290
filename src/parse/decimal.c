/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict decimal parsing shared by every parser in src/parse/: the only place
 * that turns digits into numbers, so the overflow and rounding rules are the
 * same for PSI averages, flat-keyed counters, VMIDs and single-value files.
 */
#include "pvecg/decimal.h"

#include <errno.h>
#include <stdbool.h>

#define FRACTION_DIGITS_MAX 9
/* Integers below this are exact doubles: one division then rounds once. */
#define DOUBLE_EXACT_LIMIT (UINT64_C(1) << 53)
/* A quotient of 55 bits leaves a rounding bit and a sticky bit below the
 * double's 53. */
#define QUOTIENT_BITS 55
/* Digits that cannot overflow a uint64_t, whatever they are. */
#define SAFE_DIGITS 19

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Digits from p up to end or the first non-digit.  Every parser of every
 * guest's files comes through here, so the overflow test is left out where
 * it cannot fire: after n < 19 digits v < 10^18, and v * 10 + 9 < 10^19 <
 * 2^64. */
static int scan_digits(const char *p, const char *end, uint64_t *value,
                       const char **stop) {
  uint64_t v = 0;
  unsigned n = 0;

  for (; p < end && is_digit(*p); p++, n++) {
    unsigned d = (unsigned)(*p - '0');
    if (n >= SAFE_DIGITS && v > (UINT64_MAX - d) / 10)
      return -ERANGE;
    v = v * 10 + d;
  }
  *stop = p;
  *value = v;
  return 0;
}

int decimal_parse_u64(const char **pos, const char *end, uint64_t *ret) {
  const char *stop;
  uint64_t v;
  int r;

  if (*pos >= end || !is_digit(**pos))
    return -EINVAL;
  r = scan_digits(*pos, end, &v, &stop);
  if (r < 0)
    return r;
  *pos = stop;
  *ret = v;
  return 0;
}

static uint64_t power_of_ten(unsigned n) {
  uint64_t p = 1;

  while (n-- > 0)
    p *= 10;
  return p;
}

static unsigned bit_length(uint64_t v) {
  unsigned n = 0;

  for (; v != 0; v >>= 1)
    n++;
  return n;
}

/*
 * The double nearest to ip + fp / den (fp < den <= 10^9).  Adding two
 * rounded doubles could round twice, so either the whole scaled value is an
 * exact double and is divided once, or a binary quotient with a sticky bit
 * for the discarded remainder is built and converted once.
 */
static double fixed_to_double(uint64_t ip, uint64_t fp, uint64_t den) {
  unsigned shift = 0;
  uint64_t q, frac;

  if (ip < DOUBLE_EXACT_LIMIT / den)
    return (double)(ip * den + fp) / (double)den;
  /* Here ip >= 2^53 / 10^9 > 2^23, so shift <= 32 and fp << shift < 2^62. */
  if (bit_length(ip) < QUOTIENT_BITS)
    shift = QUOTIENT_BITS - bit_length(ip);
  frac = fp << shift;
  q = (ip << shift) + frac / den;
  if (frac % den != 0)
    q |= 1;
  return (double)q / (double)(UINT64_C(1) << shift);
}

int decimal_parse_fixed(const char **pos, const char *end, double *ret) {
  const char *p = *pos, *frac_start;
  uint64_t ip, fp = 0;
  unsigned ndigits = 0;
  int r;

  r = decimal_parse_u64(&p, end, &ip);
  if (r < 0)
    return r;
  if (p < end && *p == '.') {
    frac_start = ++p;
    r = decimal_parse_u64(&p, end, &fp);
    ndigits = (unsigned)(p - frac_start);
    /* -ERANGE here means more than 19 digits: too many either way. */
    if (r < 0 || ndigits > FRACTION_DIGITS_MAX)
      return -EINVAL;
  }
  *ret = fixed_to_double(ip, fp, power_of_ten(ndigits));
  *pos = p;
  return 0;
}

int decimal_parse_u64_file(const char *buf, size_t len, uint64_t *ret) {
  const char *p = buf, *end = buf + len;
  uint64_t v;
  int r;

  r = decimal_parse_u64(&p, end, &v);
  if (r < 0)
    return r;
  if (p < end && *p == '\n')
    p++;
  if (p != end)
    return -EINVAL;
  *ret = v;
  return 0;
}

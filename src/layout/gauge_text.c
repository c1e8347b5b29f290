/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A GAUGE value's short text (see gauge_text.h).
 *
 * Why it is printf's text: let d = m / 10^k be a decimal of at most 15
 * significant digits (m < 10^15) that reads back as v.  m and 10^k
 * (k <= 22) are exact doubles and IEEE division rounds correctly, so
 * m / 10^k == v says exactly that strtod(d) == v.  Then d lies within half
 * an ulp of v, at most 1.2e-16 |v|, while 15-digit decimals near v are at
 * least 1e-15 |v| apart: d is the 15-digit decimal nearest v, which %.15g
 * prints (trailing zeros removed), and since it reads back, rrd_row.c
 * stops there.  The smallest k that works gives m without trailing zeros.
 * The candidate m is round(v * 10^k): for m < 10^15 the product is off by
 * less than 0.25, so no such d is missed.
 */
#include "gauge_text.h"

#include "pvecg/text_copy.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define DIGITS_MAX 15 /* %.15g */
#define M_LIMIT 1e15  /* m below it: at most 15 digits */

static const double powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                       1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                       1e14, 1e15, 1e16, 1e17, 1e18, 1e19};
#define K_MAX (sizeof(powers_of_ten) / sizeof(powers_of_ten[0]) - 1)

/* The smallest k with m / 10^k == a, m < 10^15; false when there is none. */
static bool short_decimal(double a, uint64_t *m, size_t *k) {
  for (size_t i = 0; i <= K_MAX; i++) {
    double x = nearbyint(a * powers_of_ten[i]);
    if (x >= M_LIMIT)
      return false;
    if (x / powers_of_ten[i] == a) {
      *m = (uint64_t)x;
      *k = i;
      return true;
    }
  }
  return false;
}

/* m / 10^k in %g's fixed form: "123.45", "0.00012". */
static size_t fixed_form(uint64_t m, size_t k, char *out) {
  char digits[DIGITS_MAX + 1];
  size_t n = text_u64(digits, m), len = 0;
  if (k == 0) {
    memcpy(out, digits, n);
    return n;
  }
  if (n > k) {
    memcpy(out, digits, n - k);
    len = n - k;
    out[len++] = '.';
    memcpy(out + len, digits + n - k, k);
    return len + k;
  }
  out[len++] = '0';
  out[len++] = '.';
  for (size_t z = n; z < k; z++)
    out[len++] = '0';
  memcpy(out + len, digits, n);
  return len + n;
}

int gauge_text_short(double value, char out[GAUGE_TEXT_SIZE]) {
  if (!isfinite(value))
    return 0;
  size_t len = 0;
  if (signbit(value))
    out[len++] = '-';
  if (value == 0) {
    out[len++] = '0';
    out[len] = '\0';
    return (int)len;
  }
  uint64_t m;
  size_t k;
  if (!short_decimal(fabs(value), &m, &k))
    return 0;
  /* %g's exponent is d's: digits before the point minus one */
  char digits[DIGITS_MAX + 1];
  long exponent = (long)text_u64(digits, m) - 1 - (long)k;
  if (exponent < -4 || exponent >= DIGITS_MAX)
    return 0;
  len += fixed_form(m, k, out + len);
  out[len] = '\0';
  return (int)len;
}

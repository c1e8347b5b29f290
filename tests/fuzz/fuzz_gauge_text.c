/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/layout/gauge_text.c, a GAUGE value's text without
 * printf.  Input: a double's bytes.  Checks: the text is byte for byte
 * what the printf loop it stands in for gives (%.15g, %.16g, %.17g: the
 * first that reads back), whenever it gives one; it gives none only where
 * that loop's text has more than 15 digits or an exponent; and
 * rrd_row_format_gauge(), which uses it, gives the loop's text always.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "../helpers/gauge_oracle.h"
#include "gauge_text.h"
#include "pvecg/rrd_row.h"

static void check(double v) {
  char want[64], got[GAUGE_TEXT_SIZE], row[64], g15[64];
  gauge_oracle(v, want);
  snprintf(g15, sizeof(g15), "%.15g", v);
  bool short_form =
      isfinite(v) && strcmp(want, g15) == 0 && strchr(g15, 'e') == NULL;
  int len = gauge_text_short(v, got);
  if (short_form)
    FUZZ_CHECK(len == (int)strlen(want) && strcmp(got, want) == 0);
  else
    FUZZ_CHECK(len == 0);
  FUZZ_CHECK(rrd_row_format_gauge(v, row, sizeof(row)) == (int)strlen(want));
  FUZZ_CHECK(strcmp(row, want) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  double v = 0;
  memcpy(&v, data, size < sizeof(v) ? size : sizeof(v));
  check(v);
  /* the same bits read as a short decimal: digits and a scale */
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  check((double)(bits % 1000000000000000ULL) / pow(10, (double)(bits >> 60)));
  return 0;
}

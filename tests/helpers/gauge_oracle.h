/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of a GAUGE value as rrd_row.c made it with printf alone before
 * src/layout/gauge_text.c: %.15g, else %.16g, else %.17g, the first that
 * reads back as the same double; "U" when not finite.  The oracle of the
 * unit test and the fuzz target of gauge_text.c.
 */
#ifndef PVECG_TEST_GAUGE_ORACLE_H
#define PVECG_TEST_GAUGE_ORACLE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define GAUGE_ORACLE_SIZE 64

static inline void gauge_oracle(double v, char out[GAUGE_ORACLE_SIZE]) {
  if (!isfinite(v)) {
    snprintf(out, GAUGE_ORACLE_SIZE, "U");
    return;
  }
  for (int p = 15; p <= 17; p++) {
    snprintf(out, GAUGE_ORACLE_SIZE, "%.*g", p, v);
    if (strtod(out, NULL) == v)
      return;
  }
}

#endif

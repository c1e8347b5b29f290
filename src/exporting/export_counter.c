/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counters from rates (see export_counter.h).
 */
#include "pvecg/export_counter.h"

#include <math.h>

void export_counter_reset(struct export_counter *c) {
  *c = (struct export_counter){0};
}

void export_counter_apply(struct export_counter *c,
                          const struct rrd_layout *layout, const double *unit,
                          unsigned long resolution, const double *values,
                          double *out) {
  for (size_t i = 0; i < layout->ds_count; i++) {
    out[i] = values[i];
    if (unit[i] == 0 || !isfinite(values[i]))
      continue;
    if (c->started[i])
      c->total[i] += values[i] * (double)resolution;
    c->started[i] = true;
    out[i] = unit[i] == 1 ? c->total[i] : c->total[i] / unit[i];
  }
}

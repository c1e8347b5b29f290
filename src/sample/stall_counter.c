/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Exact stall time as counters to record (see stall_counter.h). */
#include "pvecg/stall_counter.h"

#include <math.h>

void stall_counter_totals(const struct psi_stats psi[3], const bool read[3],
                          uint64_t total[STALL_COLUMNS], unsigned *have) {
  *have = 0;
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++) {
    int some = 2 * r, full = 2 * r + 1; /* the columns' order */
    total[some] = read[r] ? psi[r].some.total : 0;
    total[full] = read[r] && psi[r].has_full ? psi[r].full.total : 0;
    if (read[r])
      *have |= 1u << some;
    if (read[r] && psi[r].has_full)
      *have |= 1u << full;
  }
}

/* What column i records now, given the time elapsed since the last
 * reading (microseconds, > 0); sets the restart bit where it restarts. */
static uint64_t advance_one(struct stall_counter *c, int i, uint64_t total,
                            double elapsed_us, unsigned *restarted) {
  if (total < c->total[i]) {
    *restarted |= 1u << i;
    return total; /* a new counter: recorded as the kernel has it */
  }
  double delta = (double)(total - c->total[i]);
  if (delta <= elapsed_us)
    return c->recorded[i] + (total - c->total[i]);
  if (delta <=
      elapsed_us * (1 + STALL_TOLERANCE_SHARE) + STALL_TOLERANCE_SLACK_US)
    return c->recorded[i] + (uint64_t)floor(elapsed_us);
  *restarted |= 1u << i;
  return 0;
}

void stall_counter_advance(struct stall_counter *c,
                           const uint64_t total[STALL_COLUMNS], unsigned have,
                           double time, struct stall_reading *out) {
  out->valid = out->restarted = 0;
  for (int i = 0; i < STALL_COLUMNS; i++) {
    if (!(have & (1u << i)))
      continue; /* not read this time: the next reading covers the gap */
    double elapsed_us = (time - c->time[i]) * 1e6;
    if (!c->have[i])
      c->recorded[i] = total[i];
    else if (elapsed_us > 0)
      c->recorded[i] = advance_one(c, i, total[i], elapsed_us, &out->restarted);
    /* else the clock went back: nothing is recorded as elapsed */
    c->have[i] = true;
    c->total[i] = total[i];
    c->time[i] = time;
    out->value[i] = c->recorded[i];
    out->valid |= 1u << i;
  }
}

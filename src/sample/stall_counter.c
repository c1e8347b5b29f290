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

/* The files' whole seconds: pve_rrd rounds a value list's time so. */
static double file_seconds(double t) { return floor(t + 0.5); }

/* A restart: the row that spans it must be unknown, whatever the values.
 * Going below the last recorded value does it (the files' min is 0), and
 * then the counter is the kernel's again; where the kernel's total is not
 * below it, a rise of STALL_RESTART_JUMP_US does it (above the files' max
 * over any span within their heartbeat), and the counter then stays that
 * far ahead of the kernel's, so that the kernel's total taken as it is
 * after a collectd restart goes below it: one unknown row again, never a
 * plausible one. */
static uint64_t restart(struct stall_counter *c, int i, uint64_t total,
                        unsigned *restarted) {
  *restarted |= 1u << i;
  c->owed[i] = 0;
  return total < c->recorded[i] ? total : total + STALL_RESTART_JUMP_US;
}

/* What column i records now, given the time elapsed since the last
 * reading (microseconds, > 0) and the same in the files' whole seconds;
 * sets the restart bit where it restarts. */
static uint64_t advance_one(struct stall_counter *c, int i, uint64_t total,
                            double elapsed_us, double file_elapsed_us,
                            unsigned *restarted) {
  if (total < c->total[i])
    return restart(c, i, total, restarted); /* a new counter */
  uint64_t delta = total - c->total[i];
  if ((double)delta >
      elapsed_us * (1 + STALL_TOLERANCE_SHARE) + STALL_TOLERANCE_SLACK_US)
    return restart(c, i, total, restarted); /* cannot be stall time */
  /* at most the time elapsed in the file; what is held back waits */
  uint64_t room = file_elapsed_us > 0 ? (uint64_t)file_elapsed_us : 0;
  uint64_t want = delta + c->owed[i];
  uint64_t advance = want < room ? want : room;
  c->owed[i] = want - advance;
  return c->recorded[i] + advance;
}

void stall_counter_advance(struct stall_counter *c,
                           const uint64_t total[STALL_COLUMNS], unsigned have,
                           double time, struct stall_reading *out) {
  out->valid = out->restarted = 0;
  for (int i = 0; i < STALL_COLUMNS; i++) {
    if (!(have & (1u << i)))
      continue; /* not read this time: the next reading covers the gap */
    double elapsed_us = (time - c->time[i]) * 1e6,
           file_us = (file_seconds(time) - file_seconds(c->time[i])) * 1e6;
    if (!c->have[i]) {
      c->recorded[i] = total[i];
      c->owed[i] = 0;
    } else if (elapsed_us > 0)
      c->recorded[i] =
          advance_one(c, i, total[i], elapsed_us, file_us, &out->restarted);
    /* else the clock went back: nothing is recorded as elapsed */
    c->have[i] = true;
    c->total[i] = total[i];
    c->time[i] = time;
    out->value[i] = c->recorded[i];
    out->valid |= 1u << i;
  }
}

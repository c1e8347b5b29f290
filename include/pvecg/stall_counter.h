/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exact stall time as counters to record (src/sample/stall_counter.c).
 *
 * The kernel's PSI `total` is the microseconds a cgroup (or the node) has
 * been stalled, some and full, for cpu, io and memory: an exact counter
 * where avg10 is a sampled, decaying average.  Recorded as DERIVE once per
 * RRD step, a row holds the microseconds stalled per second of the step.
 * What is recorded is the kernel's total as read, except that
 *
 * - an advance larger than the wall-clock time since the last reading (by
 *   more than the tolerance below) cannot be stall time, and a total that
 *   went backwards is a new counter (a cgroup re-created, a counter
 *   reset): either is a restart, and the row that spans it must be one
 *   unknown row (DERIVE, min 0, max 100 %), never a plausible value.  So
 *   the recorded counter goes below its last value (to the kernel's
 *   total, where that is below it) or jumps STALL_RESTART_JUMP_US above
 *   the kernel's total (otherwise) and stays that far ahead, so that the
 *   kernel's total taken as it is after a collectd restart falls below it;
 * - an advance just above the time elapsed (the reads of two intervals are
 *   a few milliseconds apart for each guest) is recorded as the time
 *   elapsed, so that no row is ever above 100 % of its step; what was held
 *   back is recorded by the next readings that leave room for it, so the
 *   recorded counter comes back to the kernel's.
 *
 * The cap is the time elapsed in whole seconds, as the RRD files have it
 * (pve_rrd writes a value list's time rounded to the nearest second): an
 * update of 100 % is exactly 1,000,000 µs per second in the file, whose
 * max it is (rrd_layout.h).
 *
 * So a recorded counter is the kernel's total, or STALL_RESTART_JUMP_US
 * ahead of it after a restart that did not go back, and after a collectd
 * restart (a first reading: the kernel's total as it is) it goes on where
 * it was, or gives one unknown row where it was ahead.
 */
#ifndef PVECG_STALL_COUNTER_H
#define PVECG_STALL_COUNTER_H

#include "pvecg/guest.h"
#include "pvecg/psi.h"

#include <stdbool.h>
#include <stdint.h>

/* The columns, in the order of pvecg-pressure-vm-1.0 and -node-1.0. */
enum stall_column {
  STALL_CPU_SOME,
  STALL_CPU_FULL,
  STALL_IO_SOME,
  STALL_IO_FULL,
  STALL_MEMORY_SOME,
  STALL_MEMORY_FULL,
  STALL_COLUMNS
};
_Static_assert(STALL_COLUMNS == GUEST_STALL_COLUMNS, "one column each");

/* An advance may exceed the time elapsed by this share of it, plus the
 * slack, before it is taken for a restart. */
#define STALL_TOLERANCE_SHARE 0.01
#define STALL_TOLERANCE_SLACK_US 100000

/* The rise that makes a restart's row unknown: twice 100 % (1,000,000 µs
 * a second) of the stall files' heartbeat (120 s), so it is above their
 * max over any span they take, and what the kernel's counter gains while
 * collectd is down for up to a heartbeat stays below it. */
#define STALL_RESTART_JUMP_US (2ULL * 120 * 1000000)

struct stall_counter {
  bool have[STALL_COLUMNS];
  uint64_t total[STALL_COLUMNS];    /* the kernel's at the last reading */
  uint64_t recorded[STALL_COLUMNS]; /* what was recorded then */
  uint64_t owed[STALL_COLUMNS];     /* stall held back to stay <= 100 % */
  double time[STALL_COLUMNS];       /* wall-clock seconds of that reading */
};

/* What one reading gives (a guest's sample has the same fields). */
struct stall_reading {
  /* The counters to record, microseconds; valid per bit of `valid`. */
  uint64_t value[STALL_COLUMNS];
  unsigned valid;
  /* Columns whose total went back or jumped ahead this time (bits). */
  unsigned restarted;
};

/* The stall columns of one reading of the three pressure files: psi[r]
 * for enum psi_resource r, read[r] whether it was read and parsed.  A
 * missing "full" line leaves its column invalid. */
void stall_counter_totals(const struct psi_stats psi[3], const bool read[3],
                          uint64_t total[STALL_COLUMNS], unsigned *have);

/* Advances c by a reading of the kernel's totals at wall-clock time
 * (seconds: a restart is told by it, the cap by its nearest whole second);
 * the first reading of a column records its total as it is. */
void stall_counter_advance(struct stall_counter *c,
                           const uint64_t total[STALL_COLUMNS], unsigned have,
                           double time, struct stall_reading *out);

#endif

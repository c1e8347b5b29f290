/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The first collectd interval of each slot of time: how pve_cgroup reads
 * what it records once per RRD step (KSM, stall time) rather than in every
 * interval.  Slots are aligned to the clock (time / length), so a row
 * lands early in each RRD step, whatever collectd's interval.
 */
#ifndef PVECG_STEP_SLOT_H
#define PVECG_STEP_SLOT_H

#include "collectd/core/daemon/plugin.h"

#include <stdbool.h>
#include <stdint.h>

struct step_slot {
  bool have;
  uint64_t slot; /* time / length of the last interval that was due */
};

/* Whether the interval at time is the first of its slot of the given
 * length (0: every interval is). */
static inline bool step_slot_due(struct step_slot *s, cdtime_t time,
                                 cdtime_t length) {
  uint64_t slot = length ? time / length : 0;
  bool due = length == 0 || !s->have || slot != s->slot;
  s->have = true;
  s->slot = slot;
  return due;
}

#endif

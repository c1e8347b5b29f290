/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The request size learned from a 413, as a hint (see ship_cap.h). */
#include "ship_cap.h"

enum ship_cap_event ship_cap_start(struct ship_cap *c, size_t ceiling,
                                   size_t kept, bool given, time_t now) {
  *c = (struct ship_cap){.ceiling = ceiling, .since = now};
  if (kept == 0 || kept >= ceiling)
    return SHIP_CAP_SAME;
  if (given)
    return SHIP_CAP_GIVEN;
  c->learned = kept;
  return SHIP_CAP_SAME;
}

size_t ship_cap_size(const struct ship_cap *c) {
  return c->learned != 0 ? c->learned : c->ceiling;
}

enum ship_cap_event ship_cap_answer(struct ship_cap *c, size_t sender_cap,
                                    time_t now) {
  if (sender_cap == 0 || sender_cap >= ship_cap_size(c))
    return SHIP_CAP_SAME;
  c->since = now;
  if (c->before == 0 || sender_cap >= c->before) {
    /* a limit met at the size known to pass, or at the larger size but
     * above the one before: learned anew */
    c->learned = sender_cap;
    c->before = 0;
    return SHIP_CAP_LOWERED;
  }
  /* the larger size failed: the one before still passes (halving the
   * refused piece would only drift below it, hour after hour) */
  c->learned = c->before;
  c->before = 0;
  if (c->back_logged)
    return SHIP_CAP_BACK_QUIET;
  c->back_logged = true;
  return SHIP_CAP_BACK;
}

enum ship_cap_event ship_cap_tick(struct ship_cap *c, bool taking, time_t now) {
  if (!taking)
    c->since = now; /* an hour of success, not of outage */
  if (c->learned == 0 || now - c->since < SHIP_CAP_TRY_AFTER)
    return SHIP_CAP_SAME;
  if (c->before != 0)
    c->back_logged = false; /* the last larger size held for an hour */
  c->before = c->learned;
  c->learned = c->learned <= c->ceiling / 2 ? c->learned * 2 : c->ceiling;
  if (c->learned >= c->ceiling)
    c->learned = 0;
  c->since = now;
  return SHIP_CAP_RAISED;
}

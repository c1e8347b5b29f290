/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The request size a 413 taught the shipper, kept as a hint: pure, on a
 * clock the caller passes, so that an hour is tested in no time.
 *
 * The ceiling is --batch-bytes (or the default, or the metric server
 * entry's max-body-size).  A size learned from a 413 lowers the batches
 * below it and is kept in the state for the next start, unless the
 * command line gave --batch-bytes: then the given size wins.  After an
 * hour with the store taking the rows and no 413, the size is doubled (up
 * to the ceiling, where no limit is known any more), so a proxy whose
 * limit was raised is found without touching the state; a 413 at the
 * larger size goes back to the size known to pass, logged once.
 */
#ifndef PVECG_SHIP_CAP_H
#define PVECG_SHIP_CAP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define SHIP_CAP_TRY_AFTER 3600 /* s of success before a larger try */

struct ship_cap {
  size_t ceiling;   /* --batch-bytes or the default */
  size_t learned;   /* known to pass, below the ceiling; 0: none */
  size_t before;    /* while a larger size is tried: the one known to pass */
  time_t since;     /* when learned last changed */
  bool back_logged; /* a larger size refused again was logged */
};

enum ship_cap_event {
  SHIP_CAP_SAME,
  SHIP_CAP_GIVEN,      /* --batch-bytes wins over the size the state kept */
  SHIP_CAP_LOWERED,    /* a 413: learned is smaller */
  SHIP_CAP_RAISED,     /* an hour of success: learned doubled (0: ceiling) */
  SHIP_CAP_BACK,       /* the larger size met a 413: back to the known one */
  SHIP_CAP_BACK_QUIET, /* the same, logged before */
};

/* From the size the state kept (0: none) and the ceiling, given on the
 * command line or not. */
enum ship_cap_event ship_cap_start(struct ship_cap *c, size_t ceiling,
                                   size_t kept, bool given, time_t now);

/* The size of the next batches. */
size_t ship_cap_size(const struct ship_cap *c);

/* After a delivered batch: the largest request the sender knows to pass
 * (0: no 413 met). */
enum ship_cap_event ship_cap_answer(struct ship_cap *c, size_t sender_cap,
                                    time_t now);

/* Before a pass: taking tells whether the store took the rows at the
 * latest pass. */
enum ship_cap_event ship_cap_tick(struct ship_cap *c, bool taking, time_t now);

#endif

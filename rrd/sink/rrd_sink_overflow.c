/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A full queue's episode (see rrd_sink_overflow.h): the rows dropped, and
 * the lines when it starts and ends.
 */
#include "rrd_sink_overflow.h"

#include "rrd_sink_internal.h"
#include "rrd_sink_log.h"

void rrd_sink_overflow_drop(struct rrd_sink *s) {
  s->overflowed++;
  if (s->overflowed_now++ > 0)
    return;
  rrd_sink_log_queue_full(s);
}

void rrd_sink_overflow_drained(struct rrd_sink *s) {
  if (s->overflowed_now == 0 || s->queue.count > s->queue.capacity / 2)
    return;
  unsigned long long dropped = s->overflowed_now;
  s->overflowed_now = 0;
  rrd_sink_log_accepting_again(s, dropped);
}

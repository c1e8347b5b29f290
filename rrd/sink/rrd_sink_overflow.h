/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A full queue as an episode, entered and left here with its two log lines
 * (rrd_sink_log.c): the front drops the rows the queue has no room for,
 * the sender ends the episode once its rows have drained the queue to
 * half, so a queue at its limit does not log a line per row.  The episode
 * lasts while overflowed_now > 0.  Both with the lock held.
 */
#ifndef PVECG_RRD_SINK_OVERFLOW_H
#define PVECG_RRD_SINK_OVERFLOW_H

struct rrd_sink;

/* From the front: a row dropped (counted; the first of an episode logged). */
void rrd_sink_overflow_drop(struct rrd_sink *s);
/* From the sender: a row taken off the queue (may end the episode). */
void rrd_sink_overflow_drained(struct rrd_sink *s);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sink's link to the daemon as one state, and every change of it, each
 * with its log line (rrd_sink_log.c): the sender reports what its requests
 * and connection attempts met, the front reports a request overdue (the
 * sender, stuck in it, cannot).  All of it with the lock held.
 *
 *   state    event (caller)                     next     line
 *   NEW      connected (sender)                 UP       Connected
 *   NEW      cannot connect (sender)            DOWN     Cannot reach
 *   DOWN     cannot connect (sender)            DOWN     -  (back-off grows)
 *   DOWN     connected (sender)                 UP       reachable again
 *   UP       request overdue (front)            STALLED  not answered
 *   STALLED  request answered (sender)          UP       answers again
 *   UP       daemon gone (sender)               DOWN     Lost the connection
 *   STALLED  daemon gone (sender)               DOWN     -  (logged already)
 */
#ifndef PVECG_RRD_SINK_LINK_H
#define PVECG_RRD_SINK_LINK_H

#include <stdbool.h>

struct rrd_sink;

enum rrd_sink_link {
  RRD_SINK_LINK_NEW,     /* not connected yet, nothing logged */
  RRD_SINK_LINK_UP,      /* connected, no request overdue */
  RRD_SINK_LINK_STALLED, /* connected, a request overdue and logged */
  RRD_SINK_LINK_DOWN,    /* lost, or never reached, and logged */
};

/* Connected: the sender may send (UP or STALLED). */
bool rrd_sink_link_connected(const struct rrd_sink *s);
/* Reachable as rrd_sink_stats means it: connected and answering (UP). */
bool rrd_sink_link_reachable(const struct rrd_sink *s);

/* The sender's connection attempt succeeded. */
void rrd_sink_link_connect_ok(struct rrd_sink *s);
/* It failed for reason: schedules the next attempt (retry_at).  tried_at
 * is when it started (monotonic s), which is when a daemon never reached
 * counts as down since. */
void rrd_sink_link_connect_failed(struct rrd_sink *s, const char *reason,
                                  double tried_at);

/* A connected sender's request found the daemon gone: next attempt after
 * retry_min. */
void rrd_sink_link_lost(struct rrd_sink *s, const char *reason);

/* From the front: whether the sender's current request (busy_since) has
 * waited longer than timeout; logged once per request. */
void rrd_sink_link_check_overdue(struct rrd_sink *s);
/* From the sender: its request was answered. */
void rrd_sink_link_answered(struct rrd_sink *s);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The link to the daemon (see rrd_sink_link.h): its state, since when it
 * is down, when the sender tries again, and the line each change logs.
 */
#include "rrd_sink_link.h"

#include "rrd_sink_internal.h"
#include "rrd_sink_log.h"

#include "pvecg/monotonic.h"

bool rrd_sink_link_connected(const struct rrd_sink *s) {
  return s->link == RRD_SINK_LINK_UP || s->link == RRD_SINK_LINK_STALLED;
}

bool rrd_sink_link_reachable(const struct rrd_sink *s) {
  return s->link == RRD_SINK_LINK_UP;
}

/* Called when not connected (NEW or DOWN): "Connected" is logged only the
 * first time, every later return is "reachable again". */
void rrd_sink_link_connect_ok(struct rrd_sink *s) {
  enum rrd_sink_link was = s->link;
  double down = monotonic_seconds() - s->down_since;
  s->link = RRD_SINK_LINK_UP;
  if (was == RRD_SINK_LINK_DOWN)
    rrd_sink_log_reachable_again(s, down);
  else if (was == RRD_SINK_LINK_NEW)
    rrd_sink_log_connected(s);
}

/* Waits twice as long as last time, from retry_min up to retry_max. */
static void back_off(struct rrd_sink *s) {
  s->retry_delay =
      s->retry_delay * 2 < s->retry_min ? s->retry_min : s->retry_delay * 2;
  if (s->retry_delay > s->retry_max)
    s->retry_delay = s->retry_max;
  s->retry_at = monotonic_seconds() + s->retry_delay;
}

/* Called when not connected: only the first failure is logged; a daemon
 * that was lost was logged as lost already. */
void rrd_sink_link_connect_failed(struct rrd_sink *s, const char *reason,
                                  double tried_at) {
  back_off(s);
  if (s->link != RRD_SINK_LINK_NEW)
    return;
  s->link = RRD_SINK_LINK_DOWN;
  s->down_since = tried_at;
  rrd_sink_log_cannot_reach(s, reason);
}

/* A daemon already logged as not answering is not logged as lost too. */
void rrd_sink_link_lost(struct rrd_sink *s, const char *reason) {
  double now = monotonic_seconds();
  bool logged =
      s->link == RRD_SINK_LINK_STALLED || s->link == RRD_SINK_LINK_DOWN;
  s->link = RRD_SINK_LINK_DOWN;
  s->down_since = now;
  s->retry_delay = s->retry_min;
  s->retry_at = now + s->retry_delay;
  if (!logged)
    rrd_sink_log_lost(s, reason);
}

/* Said once per request, by whichever front thread notices first. */
void rrd_sink_link_check_overdue(struct rrd_sink *s) {
  long long busy = atomic_load(&s->busy_since);
  if (s->link != RRD_SINK_LINK_UP || busy == 0 ||
      (double)(monotonic_ns() - busy) / 1e9 < s->timeout)
    return;
  s->link = RRD_SINK_LINK_STALLED;
  rrd_sink_log_not_answering(s);
}

void rrd_sink_link_answered(struct rrd_sink *s) {
  if (s->link != RRD_SINK_LINK_STALLED)
    return;
  s->link = RRD_SINK_LINK_UP;
  rrd_sink_log_answers_again(s);
}

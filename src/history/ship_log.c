/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the shipper says (see ship.h): one line when the store goes away,
 * again at most every ten minutes while it stays away, one when it is
 * back with the rows caught up; a file's problem once until it changes.
 * A shipper that runs for months must not fill the journal.
 */
#include "ship_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#define REPEAT_AFTER 600 /* seconds between two "still away" lines */

void ship_log(const struct ship *sh, const char *fmt, ...) {
  FILE *log = sh->o->log;
  va_list ap;
  va_start(ap, fmt);
  fputs("pvecg ship: ", log);
  vfprintf(log, fmt, ap);
  fputc('\n', log);
  fflush(log);
  va_end(ap);
}

void ship_log_down(struct ship *sh, time_t now) {
  if (!sh->down) {
    sh->down = true;
    sh->down_since = sh->down_said = now;
    sh->rows_at_down = sh->state.stats.rows_sent;
    ship_log(sh,
             "%s: the store is away: %s; the rows wait behind the cursors "
             "and go when it is back",
             sh->o->to, sh->err);
  } else if (now - sh->down_said >= REPEAT_AFTER) {
    sh->down_said = now;
    ship_log(sh, "%s: still away after %lld s: %s", sh->o->to,
             (long long)(now - sh->down_since), sh->err);
  }
}

void ship_log_up(struct ship *sh, time_t now) {
  if (!sh->down)
    return;
  sh->down = false;
  ship_log(sh, "%s: the store is back after %lld s; %llu rows caught up",
           sh->o->to, (long long)(now - sh->down_since),
           (unsigned long long)(sh->state.stats.rows_sent - sh->rows_at_down));
}

/* InfluxDB's partial writes: counted always, said when there are new
 * ones, at most every ten minutes, with the server's own words. */
void ship_log_dropped(struct ship *sh) {
  struct http_sender_stats st;
  if (sh->http == NULL)
    return;
  http_sender_stats(sh->http, &st);
  size_t fresh = st.dropped - sh->dropped_counted;
  sh->dropped_counted = st.dropped;
  sh->state.stats.dropped += fresh;
  sh->dropped_unsaid += fresh;
  time_t now = time(NULL);
  if (sh->dropped_unsaid == 0 || now - sh->dropped_said_at < REPEAT_AFTER)
    return;
  ship_log(sh, "%s: the store dropped %zu points of batches it took: %s",
           sh->o->to, sh->dropped_unsaid, st.partial_answer);
  sh->dropped_unsaid = 0;
  sh->dropped_said_at = now;
}

void ship_log_problem(struct ship *sh, struct ship_entry *e, int r,
                      const char *why) {
  if (e->problem == r)
    return;
  e->problem = r;
  if (r == -EPROTO)
    ship_log(sh, "%s; it is not shipped (a file of another layout)", why);
  else
    ship_log(sh, "%s; its rows wait until it can be read", why);
}

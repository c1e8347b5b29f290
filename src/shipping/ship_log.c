/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the shipper says (see ship.h): one line when the store goes away,
 * again at most every ten minutes while it stays away, one when it is
 * back with the rows caught up; a file's problem once until it changes.
 * A shipper that runs for months must not fill the journal.
 */
#include "ship_internal.h"

#include "pvecg/log_line.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define REPEAT_AFTER 600    /* seconds between two "still away" lines */
#define SKIPS_LOGGED_MAX 10 /* skipped points named in a pass */

void ship_log(const struct ship *sh, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_vline(sh->o->log, "pvecg ship: ", fmt, ap);
  va_end(ap);
}

void ship_log_down(struct ship *sh, time_t now) {
  if (!sh->down) {
    sh->down = true;
    sh->down_since = sh->down_logged_at = now;
    sh->rows_at_down = sh->state.stats.rows_sent;
    ship_log(sh,
             "%s: the store is away: %s; the rows wait behind the cursors "
             "and go when it is back",
             sh->o->to, sh->err);
  } else if (now - sh->down_logged_at >= REPEAT_AFTER) {
    sh->down_logged_at = now;
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

/* Partial writes: counted always (as delivered), logged after a pass that
 * had new ones, at most every ten minutes, with the store's own words. */
void ship_log_dropped(struct ship *sh) {
  time_t now = time(NULL);
  if (sh->dropped_unlogged == 0 || now - sh->dropped_logged_at < REPEAT_AFTER)
    return;
  ship_log(sh, "%s: the store dropped %zu points of batches it took: %s",
           sh->o->to, sh->dropped_unlogged, sh->dropped_words);
  sh->dropped_unlogged = 0;
  sh->dropped_logged_at = now;
}

/* Remote write's refused samples (too old, out of order...), the files'
 * rows the store refused alone: their rows are passed, so that one bad
 * sample never holds the rest back; counted always, logged as the partial
 * writes are. */
void ship_log_samples_refused(struct ship *sh) {
  time_t now = time(NULL);
  if (sh->refused_unlogged == 0 || now - sh->refused_logged_at < REPEAT_AFTER)
    return;
  ship_log(sh,
           "%s: the store refused requests of %zu samples: %s; their rows are "
           "passed, not sent again (by reason: --status)",
           sh->o->to, sh->refused_unlogged, sh->refused_words);
  sh->refused_unlogged = 0;
  sh->refused_logged_at = now;
}

/* A refused target: logged when the refusal is new or its words changed,
 * not at every try. */
void ship_log_refused(struct ship *sh, time_t hold) {
  if (strcmp(sh->refusal_logged, sh->err) == 0)
    return;
  snprintf(sh->refusal_logged, sizeof(sh->refusal_logged), "%s", sh->err);
  ship_log(sh,
           "%s: the store refuses the rows: %s; %s; the rows wait behind the "
           "cursors, next try in %lld s",
           sh->o->to, sh->err,
           sh->failure.fix != NULL ? sh->failure.fix : "check the target",
           (long long)hold);
}

/* The row time of a skipped line, from its last field: InfluxDB's in the
 * URL's unit, Prometheus' text in ms, OpenMetrics' in s. */
static long long skip_time(const struct ship *sh, const char *field) {
  char *end;
  double v = strtod(field, &end);
  if (end == field || *end != '\0')
    return -1;
  const struct export_run *run = &sh->o->run;
  double per_s = run->format == EXPORT_INFLUX
                     ? (double)(run->time_scale ? run->time_scale : 1000000000)
                 : run->format == EXPORT_PROMETHEUS ? 1000.0
                                                    : 1.0;
  return (long long)(v / per_s);
}

/* Remote write: a file's rows whose samples the store refused alone (or
 * with the files after it, the rest of a batch refused as one). */
static void log_samples_refused(struct ship *sh, const char *key,
                                const struct http_sender_skip *skip) {
  if (skip->units > 1)
    ship_log(sh,
             "%s and %zu more slices of files after it: their %zu samples "
             "were refused: %s; the rows are passed",
             key, skip->units - 1, skip->samples, skip->words);
  else
    ship_log(sh,
             "%s: %zu samples of its rows were refused: %s; the rows are "
             "passed",
             key, skip->samples, skip->words);
}

/* A point the store would not take alone, named by its file and time;
 * at most SKIPS_LOGGED_MAX a pass, the rest counted in the state. */
void ship_log_skip(struct ship *sh, const char *key,
                   const struct http_sender_skip *skip) {
  if (sh->skips_logged++ >= SKIPS_LOGGED_MAX) {
    if (sh->skips_logged == SKIPS_LOGGED_MAX + 1)
      ship_log(sh, "%s: more points skipped this pass; see --status",
               sh->o->to);
    return;
  }
  if (skip->why == STORE_REFUSED) {
    log_samples_refused(sh, key, skip);
    return;
  }
  long long t = skip_time(sh, skip->time);
  char when[32] = "an unknown time";
  struct tm tm;
  time_t tt = (time_t)t;
  if (t >= 0 && gmtime_r(&tt, &tm) != NULL)
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
  /* the store's words quote the line, as far as they go */
  ship_log(sh, "%s: the point of %s (%lld) was skipped: %s: %s", key, when, t,
           skip->why == STORE_BAD_LINE ? "the store cannot parse it"
                                       : "too large for the store alone",
           skip->words);
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

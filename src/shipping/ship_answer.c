/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the store's answers do to the shipper (see ship.h): the target's
 * condition kept in the state (taking, away, refused), the wait before the
 * next request (the store's Retry-After; a refused target backed off from
 * one interval doubling to a quarter of an hour, so a wrong token is no
 * request storm), the sender's totals of points dropped and skipped added
 * to the state, each skipped point named by its file, and the request
 * size learned from a 413 kept as a hint (ship_cap.h).
 */
#include "ship_internal.h"

#include "pvecg/monotonic.h"

#include <errno.h>
#include <string.h>

#define REFUSED_HOLD_MAX 900.0 /* s between tries of a refused target */

bool ship_answer_may_send(const struct ship *sh) {
  return sh->hold_until == 0 || monotonic_seconds() >= sh->hold_until;
}

/* The latest answer that was not a taking, for --status and /metrics. */
static void note_refusal(struct ship *sh, time_t now) {
  struct ship_stats *st = &sh->state.stats;
  st->refusal_at = now;
  st->refusal_status = (int)sh->failure.status;
  /* what the state keeps is one printable line */
  const char *w = sh->failure.words[0] ? sh->failure.words : sh->err;
  store_words_quote(w, strlen(w), st->refusal, sizeof(st->refusal));
}

static void refused(struct ship *sh, time_t now) {
  struct ship_stats *st = &sh->state.stats;
  double hold = (double)sh->o->interval;
  for (unsigned i = 0; i < sh->refused_in_row && hold < REFUSED_HOLD_MAX; i++)
    hold *= 2;
  if (hold > REFUSED_HOLD_MAX)
    hold = REFUSED_HOLD_MAX;
  sh->refused_in_row++;
  sh->hold_until = monotonic_seconds() + hold;
  st->refused++;
  st->condition = SHIP_REFUSED;
  note_refusal(sh, now);
  ship_log_refused(sh, (time_t)hold);
}

static void away(struct ship *sh, time_t now) {
  struct ship_stats *st = &sh->state.stats;
  sh->refused_in_row = 0;
  sh->refusal_logged[0] = '\0';
  st->condition = SHIP_AWAY;
  sh->hold_until = sh->failure.retry_after > 0
                       ? monotonic_seconds() + sh->failure.retry_after
                       : 0;
  note_refusal(sh, now);
  ship_log_down(sh, now);
  if (sh->failure.retry_after > 0)
    ship_log(sh, "%s: the store asked to wait %u s; no request before then",
             sh->o->to, sh->failure.retry_after);
}

void ship_answer_pass(struct ship *sh, int r) {
  struct ship_stats *st = &sh->state.stats;
  time_t now = time(NULL);
  enum ship_condition was = st->condition;
  if (r == -EPROTO) {
    refused(sh, now);
  } else if (r < 0) {
    away(sh, now);
  } else {
    sh->hold_until = 0;
    sh->refused_in_row = 0;
    sh->refusal_logged[0] = '\0';
    st->condition = SHIP_TAKING;
    if (was == SHIP_REFUSED)
      ship_log(sh, "%s: the store takes the rows again", sh->o->to);
    ship_log_up(sh, now);
  }
  ship_log_dropped(sh);
  ship_log_samples_refused(sh);
  sh->dirty |= st->condition != was || r < 0;
  sh->failure = (struct store_answer){0};
}

/* The file whose text holds the batch's byte at offset. */
static const char *file_at(const struct ship_marks *m, size_t offset) {
  const char *key = "(a file)";
  for (size_t i = 0; i < m->count && m->item[i].start <= offset; i++)
    key = m->item[i].entry->key;
  return key;
}

static void name_skips(struct ship *sh, const struct ship_marks *m) {
  struct http_sender_skip skip[16];
  size_t n;
  while ((n = http_sender_take_skips(sh->http, m->batch, skip, 16)) > 0)
    for (size_t i = 0; i < n; i++)
      ship_log_skip(sh, file_at(m, skip[i].offset), &skip[i]);
}

/* The size the batches are made and the sender cuts pieces to. */
void ship_answer_apply_cap(struct ship *sh) {
  sh->o->run.batch_max = ship_cap_size(&sh->cap);
  if (sh->http != NULL)
    http_sender_set_cap(sh->http, sh->cap.learned);
  sh->dirty |= sh->state.stats.batch_cap != sh->cap.learned;
  sh->state.stats.batch_cap = sh->cap.learned;
}

/* A 413 taught the sender a smaller request: later batches are made that
 * small, and the state keeps it as a hint for the next start. */
static void learn_cap(struct ship *sh) {
  size_t tried = ship_cap_size(&sh->cap);
  enum ship_cap_event ev =
      ship_cap_answer(&sh->cap, http_sender_cap(sh->http), time(NULL));
  if (ev == SHIP_CAP_SAME)
    return;
  ship_answer_apply_cap(sh);
  if (ev == SHIP_CAP_LOWERED)
    ship_log(sh,
             "%s: the store (or a proxy in front of it) refused a request as "
             "too large (HTTP 413): batches are cut to %zu bytes; larger "
             "ones (up to %zu) are tried again after an hour without a 413",
             sh->o->to, ship_cap_size(&sh->cap), sh->cap.ceiling);
  else if (ev == SHIP_CAP_BACK)
    ship_log(sh,
             "%s: %zu bytes are still too large (HTTP 413): back to %zu; "
             "tried again every hour, said once",
             sh->o->to, tried, ship_cap_size(&sh->cap));
}

/* After an hour of success, a larger size is tried (see ship_cap.h). */
void ship_answer_try_larger(struct ship *sh) {
  bool taking = sh->state.stats.condition == SHIP_TAKING;
  size_t was = ship_cap_size(&sh->cap);
  if (!sh->o->http ||
      ship_cap_tick(&sh->cap, taking, time(NULL)) != SHIP_CAP_RAISED)
    return;
  ship_answer_apply_cap(sh);
  if (!sh->cap.back_logged)
    ship_log(sh, "%s: an hour without a 413 at %zu bytes: trying %zu",
             sh->o->to, was, ship_cap_size(&sh->cap));
}

/* Remote write: the samples of requests taken and refused (the sender
 * counted them by refusal). */
static void count_samples(struct ship *sh,
                          const struct http_sender_stats *now) {
  struct ship_stats *st = &sh->state.stats;
  size_t fresh = 0;
  st->samples_sent += now->samples - sh->counted.samples;
  for (size_t r = 0; r < STORE_REFUSALS; r++) {
    st->samples_refused_by[r] += now->refused_by[r] - sh->counted.refused_by[r];
    fresh += now->refused_by[r] - sh->counted.refused_by[r];
  }
  sh->refused_unlogged += fresh;
  if (fresh > 0)
    snprintf(sh->refused_words, sizeof(sh->refused_words), "%s",
             now->refused_answer);
}

void ship_answer_delivered(struct ship *sh, const struct ship_marks *m) {
  struct http_sender_stats now;
  struct ship_stats *st = &sh->state.stats;
  http_sender_stats(sh->http, &now);
  count_samples(sh, &now);
  size_t fresh = 0;
  for (size_t r = 0; r < STORE_REASONS; r++) {
    st->dropped_by[r] += now.dropped_by[r] - sh->counted.dropped_by[r];
    fresh += now.dropped_by[r] - sh->counted.dropped_by[r];
  }
  st->dropped += fresh;
  for (size_t k = 0; k < 2; k++)
    st->skipped[k] += now.skipped[k] - sh->counted.skipped[k];
  sh->counted = now;
  sh->dropped_unlogged += fresh;
  if (fresh > 0)
    snprintf(sh->dropped_words, sizeof(sh->dropped_words), "%s",
             now.partial_answer);
  name_skips(sh, m);
  learn_cap(sh);
}

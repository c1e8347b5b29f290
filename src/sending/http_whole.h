/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One remote write message delivered whatever the store answers, for
 * http_sender.c, with the rules of line batches (http_split.h): a store
 * that refuses samples (a 4xx naming neither the target, the size nor a
 * rate: Prometheus' "out of bounds", "out of order sample", "duplicate
 * sample for timestamp", Mimir's "too old" and per-tenant limits) gets the
 * message again in halves, each half in its turn, down to single units (a
 * file's rows); a unit refused alone is skipped and its samples counted
 * by refusal, every other one is taken.  One refused unit among n costs
 * about 1 + 2 log2(n) requests.  Once HTTP_SPLIT_SYSTEMATIC units were
 * refused alone and none taken, the rest goes as one request, taken or
 * skipped whole: an old backlog is not sent unit by unit.  A 413 halves
 * the message too and lowers *cap to half the body refused (a size that
 * passed is kept instead, as for lines); a single unit still too large is
 * the target's refusal.  A store away or refusing the target ends the
 * message: then nothing of it counts, and it goes again whole later.
 *
 * Pure but for the message's encoding and the try callback.
 */
#ifndef PVECG_HTTP_WHOLE_H
#define PVECG_HTTP_WHOLE_H

#include "http_split.h"

#include "pvecg/http_sender.h"

/* Units skipped together (one, or the rest refused as one part). */
struct http_whole_skip {
  size_t unit, units, samples;
  char words[STORE_WORDS_SIZE]; /* the store's refusal */
};

struct http_whole_outcome {
  /* STORE_TAKEN: every unit taken or skipped; else the failure, answer. */
  enum store_verdict verdict;
  struct store_answer answer;
  uint64_t requests; /* answered, one per part tried */
  size_t samples;    /* taken */
  size_t bytes;      /* of the parts taken */
  size_t refused;    /* samples of units skipped */
  size_t refused_by[STORE_REFUSALS];
  char refused_words[STORE_WORDS_SIZE]; /* the latest refusal's */
  bool cap_lowered;                     /* a 413 lowered *cap */
  struct http_whole_skip *skip;         /* malloc'ed, in message order */
  size_t skips;
};

/* Whether a remote write receiver's status refuses samples rather than
 * the target. */
bool http_whole_refuses_samples(long status);

/* Delivers m through try_piece; parts are cut to *cap bytes (0: no limit
 * known) before they go.  Returns 0 with *ret filled (free ret->skip),
 * or -ENOMEM. */
int http_whole_send(const struct http_message *m, size_t *cap,
                    http_split_try try_piece, void *ctx,
                    struct http_whole_outcome *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a store's answer to a write means, read for what it says rather
 * than for its class of status: pure, from the status, a bounded prefix of
 * the body and the Retry-After header, so that every sender and the fuzz
 * target share one reading.
 *
 *   2xx                          taken
 *   400 "partial write" (InfluxDB 1.x, 3.x), 422 (InfluxDB 2.x)
 *                                partly taken: the rest is in the store;
 *                                the points dropped are counted by reason
 *   413 (the store or a proxy)   too large: send the batch in halves
 *   400 naming a line it cannot parse, nothing written (InfluxDB 2.x,
 *       VictoriaMetrics, InfluxDB 1.x when no line parsed)
 *                                a bad line: find it by halves, skip it
 *   401, 403, 404, 405, any other 4xx, 400 that names no line
 *                                refused: the target is misconfigured;
 *                                nothing changes by sending again
 *   429, 5xx (and a connection that failed, a timeout: the sender's)
 *                                away or busy: wait (Retry-After) and
 *                                send again
 *
 * Bodies are JSON ({"error":..} in 1.x, {"code":..,"message":..} in 2.x),
 * plain text or a proxy's HTML: only counted and quoted, never trusted
 * further, and quoted with every control or non-ASCII byte replaced.
 */
#ifndef PVECG_STORE_ANSWER_H
#define PVECG_STORE_ANSWER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define STORE_ANSWER_BODY_MAX 8192 /* bytes of a body worth reading */
#define STORE_WORDS_SIZE 200       /* the quoted words, with their NUL */

enum store_verdict {
  STORE_TAKEN,
  STORE_PARTIAL,
  STORE_TOO_LARGE,
  STORE_BAD_LINE,
  STORE_REFUSED,
  STORE_AWAY,
};

/* Why a store dropped points of a batch it took. */
enum store_reason {
  STORE_REASON_RETENTION,     /* older than the retention policy keeps */
  STORE_REASON_TYPE_CONFLICT, /* a field of another type in the shard */
  STORE_REASON_LIMIT,         /* max-series / max-values-per-tag */
  STORE_REASON_UNPARSABLE,    /* lines it could not parse */
  STORE_REASON_OTHER,
  STORE_REASONS
};

struct store_answer {
  enum store_verdict verdict;
  enum store_reason reason; /* STORE_PARTIAL */
  uint64_t dropped;         /* STORE_PARTIAL: points (at least 1) */
  unsigned retry_after;     /* STORE_AWAY: seconds asked for, 0: none */
  long status;
  const char *fix;              /* STORE_REFUSED: what to do, for a person */
  char words[STORE_WORDS_SIZE]; /* the store's message, printable */
};

/*
 * Reads an answer: status, the first len bytes of its body (at most
 * STORE_ANSWER_BODY_MAX are looked at) and the Retry-After header's value
 * (NULL: none; seconds or an HTTP date, read against now).
 */
void store_answer_read(long status, const char *body, size_t len,
                       const char *retry_after, time_t now,
                       struct store_answer *ret);

/* "retention", "type_conflict", "limit", "unparsable", "other". */
const char *store_reason_name(enum store_reason reason);

/* Why a Prometheus remote write receiver refused the samples of a
 * request (a 4xx other than 401, 403, 404, 405, 413, 429): older than it
 * takes (Prometheus' "out of bounds", Mimir's "too old"), "out of order
 * sample", "duplicate sample for timestamp", or other. */
enum store_refusal {
  STORE_REFUSAL_TOO_OLD,
  STORE_REFUSAL_OUT_OF_ORDER,
  STORE_REFUSAL_DUPLICATE,
  STORE_REFUSAL_OTHER,
  STORE_REFUSALS
};

/* The refusal the store's words (store_answer.words) name. */
enum store_refusal store_refusal_of(const char *words);

/* "too_old", "out_of_order", "duplicate", "other". */
const char *store_refusal_name(enum store_refusal refusal);

/* "taken", "partial", "too_large", "bad_line", "refused", "away". */
const char *store_verdict_name(enum store_verdict verdict);

/* Copies at most size - 1 bytes of text into out for a log line: control
 * and non-ASCII bytes become '?', runs of blanks one space. */
void store_words_quote(const char *text, size_t len, char *out, size_t size);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Posts `pvecg export` batches to an HTTP(S) write endpoint, through
 * libcurl: InfluxDB 1.x `/write?db=...`, InfluxDB 2.x
 * `/api/v2/write?org=...&bucket=...`, VictoriaMetrics `/write` and
 * `/api/v1/import/prometheus`, or anything that takes a POST of text.
 *
 * One connection is kept alive for every batch, and a thread of the
 * sender's own posts them: while one batch is on its way the caller
 * formats the next, so reading the files and the server's work overlap.
 *
 * Every answer is read for what it says (store_answer.h), the same for the
 * export and the shipper:
 * - taken, or partly taken (InfluxDB 1.x/3.x's 400 and 2.x's 422 "partial
 *   write"): the batch is in; the points the store dropped are counted by
 *   reason;
 * - too large (413, from the store or a proxy): the batch goes in halves,
 *   down to single lines, and later batches are cut to the size that
 *   passed (http_sender_cap());
 * - a line the store cannot parse (400, nothing written): halves until the
 *   line is found; it alone is skipped (http_sender_take_skips());
 * - away or busy (no connection, a timeout, 429, 5xx): sent again after
 *   0.5 s doubling up to 8 s, or after the Retry-After the store asked for;
 *   after the last try the batch fails (-EAGAIN);
 * - refused (401, 403, 404, another 4xx): the batch fails at once
 *   (-EPROTO), with what fixes it (http_sender_failure()).
 * A batch that fails does not count at all: it is sent again whole (the
 * same points twice are one point to these stores).  A token (from a
 * file, never the command line) goes as `Authorization: Token <t>` to an
 * /api/v2/ URL (InfluxDB 2), `Bearer <t>` elsewhere; it is never written
 * into a message.
 */
#ifndef PVECG_HTTP_SENDER_H
#define PVECG_HTTP_SENDER_H

#include "pvecg/store_answer.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct http_sender_options {
  const char *url;            /* http:// or https:// */
  const char *token;          /* NULL: no Authorization header */
  const char *ca_file;        /* https: the CAs to trust (NULL: the system's) */
  bool insecure;              /* https: no check of the certificate at all */
  double timeout;             /* seconds, for connecting and for each request */
  unsigned tries;             /* 0: 5 */
  double backoff;             /* first pause in s (0: 0.5), doubling to 8 s */
  size_t cap;                 /* bytes per request known to pass (0: unknown) */
  const char *content_type;   /* NULL: text/plain; charset=utf-8 */
  const char *const *headers; /* more "Name: value" lines, NULL-ended */
  /* Set by a signal (NULL: none): a batch still in flight 2 s later is
   * given up (-ECANCELED), mid-retry, mid-pause or while the store says
   * nothing.  Read only in the thread that posts. */
  volatile sig_atomic_t *stop;
};

struct http_sender;

/* Whether url is an http:// or https:// URL this sender takes. */
bool http_url_is_http(const char *url);

/*
 * The unit of time the URL's precision= asks InfluxDB lines to be in, as
 * units per second into *scale (0: none asked, nanoseconds).  InfluxDB 2.x
 * (/api/v2/) reads ns, us, ms, s; InfluxDB 1.x and VictoriaMetrics
 * (/write) n, u, ms, s, and "ns", but "us" differently (1.x: nanoseconds):
 * that one is refused there, as are m and h (rows in seconds), with why
 * in err.  Returns 0 or -EINVAL.
 */
int http_url_time_scale(const char *url, int64_t *scale, char *err,
                        size_t err_size);

/* Returns 0, -EINVAL (not an http(s) URL) or -ENOMEM, with a message in
 * err.  Nothing is sent yet. */
int http_sender_open(const struct http_sender_options *options,
                     struct http_sender **ret, char *err, size_t err_size);

/*
 * Hands over body (copied), named `label` in a message should it fail,
 * once the batch before it is done.  Returns 0; or, when an earlier batch
 * failed (nothing more is sent then), that batch's error: -EPROTO when the
 * store refused the target (see http_sender_failure()), -EAGAIN when it was
 * away or busy on every try, -ECANCELED when it was given up at a stop; with
 * "<label>: <reason>" in err.  Batches are numbered from 1 in the order posted.
 */
int http_sender_post(struct http_sender *sender, const char *body, size_t len,
                     const char *label, char *err, size_t err_size);

/* A Prometheus remote write request the sender may ask for in parts:
 * `units` in order (a file's rows each), any run [from, to) of them
 * encoded as a request body of its own (malloc'ed) with its samples. */
struct http_message {
  void *data;
  size_t units;
  int (*encode)(void *data, size_t from, size_t to, char **body, size_t *len,
                size_t *samples);
  void (*free)(void *data);
};

/*
 * Hands over a message (the sender owns it from then on, failing or not),
 * never cut between units.  Its answers: taken; a 4xx other than 401,
 * 403, 404, 405, 413 and 429 refuses samples (Prometheus rolls back the
 * whole request at its first old sample): the message goes again in
 * halves, down to the units refused alone, which are skipped and counted
 * by the refusal the store names (store_refusal_of()), the rest taken
 * (http_whole.h); a 413 halves it too and lowers http_sender_cap(); the
 * rest as http_sender_post().
 */
int http_sender_post_whole(struct http_sender *sender, struct http_message *m,
                           const char *label, char *err, size_t err_size);

/* Waits for the last batch.  Returns 0 or a failed batch's error, as
 * http_sender_post(). */
int http_sender_finish(struct http_sender *sender, char *err, size_t err_size);

struct http_sender_stats {
  size_t requests; /* batches delivered (taken, in part or in pieces) */
  size_t retries;  /* tries after the store was away */
  size_t bytes;    /* of the batches delivered */
  size_t lines;    /* lines of the batches delivered */
  size_t partial;  /* answers "partial write" (in delivered batches) */
  size_t dropped;  /* points those answers said were dropped */
  size_t dropped_by[STORE_REASONS];
  size_t skipped[2]; /* lines skipped alone: [0] too large, [1] unparsable */
  char partial_answer[STORE_WORDS_SIZE]; /* the latest partial write's */
  /* Whole messages (http_sender_post_whole): samples taken, and those of
   * units refused, by refusal, with the latest refusal's words. */
  size_t samples;
  size_t refused;
  size_t refused_by[STORE_REFUSALS];
  char refused_answer[STORE_WORDS_SIZE];
};
/* The totals of the batches the caller knows are in: those delivered when
 * its last post or finish found the slot free (a batch the thread has
 * delivered since counts once the next post or finish returns), so that
 * the caller's cursors and these totals move together. */
void http_sender_stats(struct http_sender *sender,
                       struct http_sender_stats *ret);

/* Why the failed batch failed: its verdict (STORE_REFUSED or STORE_AWAY),
 * the status (0: no answer), the store's words, what fixes it (refused),
 * the seconds it asked to wait (away).  Zeroed while nothing failed. */
void http_sender_failure(struct http_sender *sender, struct store_answer *ret);

/* The largest request known to pass (0: no limit met yet).  Lowered by
 * each 413. */
size_t http_sender_cap(struct http_sender *sender);

/* Sets that size (0: none), for the batches posted after. */
void http_sender_set_cap(struct http_sender *sender, size_t cap);

/* A line of a delivered batch that the store would not take alone; or
 * (why STORE_REFUSED) units of a message whose samples it refused. */
struct http_sender_skip {
  size_t batch;           /* its batch's number */
  size_t offset;          /* in that batch; a message's: its first unit */
  enum store_verdict why; /* STORE_TOO_LARGE, STORE_BAD_LINE, STORE_REFUSED */
  char line[120];         /* its start, quoted ("" for units) */
  char time[24];          /* its last field (the time), "" when none */
  char words[STORE_WORDS_SIZE];
  size_t units, samples; /* units: how many, and their samples */
};
#define HTTP_SENDER_SKIPS_KEPT 256 /* more are counted only */

/* Moves up to max of the skips kept of batch number `batch` (0: of any),
 * oldest first, into out; returns how many.  Those of a batch are there
 * once the post after it (or the finish) returned. */
size_t http_sender_take_skips(struct http_sender *sender, size_t batch,
                              struct http_sender_skip *out, size_t max);

/* Stops the thread (a batch in flight is given up). */
void http_sender_free(struct http_sender *sender);

#endif

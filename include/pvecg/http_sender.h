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
 * A batch the server did
 * not take is sent again, after 0.5 s doubling up to 8 s, when the
 * connection failed, the request timed out, or the server answered 429 or
 * 5xx (the same points twice are one point to each of these stores, same
 * series and time); after the last try, or at once on any other 4xx, the
 * batch fails with the status and the start of the server's answer.
 * InfluxDB 1.x's `400 partial write: ... dropped=N` (points beyond the
 * retention policy, or of a conflicting field type) is not a failure: the
 * server kept the rest, and sending the batch again cannot change its
 * verdict; the dropped points are counted (http_sender_stats).  A
 * token (from a file, never the command line) goes as `Authorization:
 * Token <t>` to an /api/v2/ URL (InfluxDB 2), `Bearer <t>` elsewhere; it
 * is never written into a message.
 */
#ifndef PVECG_HTTP_SENDER_H
#define PVECG_HTTP_SENDER_H

#include <stdbool.h>
#include <stddef.h>

struct http_sender_options {
  const char *url;     /* http:// or https:// */
  const char *token;   /* NULL: no Authorization header */
  const char *ca_file; /* https: the CAs to trust (NULL: the system's) */
  double timeout;      /* seconds, for connecting and for each request */
  unsigned tries;      /* 0: 5 */
  double backoff;      /* first pause in s (0: 0.5), doubling to 8 s */
};

struct http_sender;

/* Whether url is an http:// or https:// URL this sender takes. */
bool http_url_is_http(const char *url);

/* Returns 0, -EINVAL (not an http(s) URL) or -ENOMEM, with a message in
 * err.  Nothing is sent yet. */
int http_sender_open(const struct http_sender_options *options,
                     struct http_sender **ret, char *err, size_t err_size);

/*
 * Hands over body (copied), named `label` in a message should it fail,
 * once the batch before it is done.  Returns 0; or, when an earlier batch
 * failed (nothing more is sent then), that batch's error: -EPROTO when the
 * server refused it (4xx, or 429/5xx on every try), -ETIMEDOUT, or
 * -ECONNREFUSED / -EIO for a connection that failed on every try; with
 * "<label>: <reason>" in err.
 */
int http_sender_post(struct http_sender *sender, const char *body, size_t len,
                     const char *label, char *err, size_t err_size);

/* Waits for the last batch.  Returns 0 or a failed batch's error, as
 * http_sender_post(). */
int http_sender_finish(struct http_sender *sender, char *err, size_t err_size);

struct http_sender_stats {
  size_t requests;          /* answered 2xx, or partial writes */
  size_t retries;           /* tries after a failure */
  size_t bytes;             /* of the requests answered 2xx */
  size_t lines;             /* lines of the requests answered 2xx */
  size_t partial;           /* requests answered "partial write" (taken, counted
                               above too) */
  size_t dropped;           /* points those answers said were dropped */
  char partial_answer[160]; /* the latest such answer's first line */
};
void http_sender_stats(struct http_sender *sender,
                       struct http_sender_stats *ret);

/* Stops the thread (a batch in flight is finished or given up first). */
void http_sender_free(struct http_sender *sender);

#endif

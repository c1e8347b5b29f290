/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer to one request of `pvecg serve`, without HTTP: status,
 * headers and body, from the request rules (serve_request.h), the page's
 * files, the listings and the very function `pvecg rrddata` prints with.
 * serve_http.c only moves these answers over the wire.
 */
#ifndef PVECG_SERVE_ANSWER_H
#define PVECG_SERVE_ANSWER_H

#include "pvecg/serve.h"

#include "serve_request.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct serve_reply {
  int status;
  const char *content_type;
  const char *cache_control;
  bool page;  /* the page itself: send the Content-Security-Policy */
  char *body; /* malloc'd, or NULL when data is static */
  const unsigned char *data;
  size_t size;
  char message[400];    /* for a 4xx or 5xx: what went wrong, for the log */
  unsigned retry_after; /* a 429's Retry-After (seconds), 0: none */
  bool logged;          /* said in the log already, in its own words */
};

/* The page's policy: its own script, style and API, nothing else. */
#define SERVE_PAGE_POLICY                                                      \
  "default-src 'none'; script-src 'self'; style-src 'self'; "                  \
  "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "                \
  "form-action 'none'; frame-ancestors 'none'"

struct serve_scope;

/* The request headers an answer depends on (NULL when not sent), and the
 * scope of the token the request came with (serve_scope.h; NULL: every
 * file).  Under a scope every answer shows only the guests in it, and a
 * file outside it is answered as one that is not there. */
struct serve_headers {
  const char *accept;
  const struct serve_scope *scope;
};

/* Answers a request (never fails: a problem is a 4xx or 5xx answer). */
void serve_answer(const struct serve_config *config, const char *method,
                  const char *path, const struct serve_param *params,
                  size_t count, const struct serve_headers *headers,
                  struct serve_reply *ret);

void serve_reply_free(struct serve_reply *reply);

struct json_writer;

/* A JSON answer of status written by fill(arg), "no-store"; a 500 when
 * no memory is left. */
void serve_json_reply(struct serve_reply *r, int status,
                      void (*fill)(struct json_writer *, const void *),
                      const void *arg);

/* A 4xx or 5xx answer in Proxmox's form: {"data":null,"message":what}. */
void serve_fail_reply(struct serve_reply *r, int status, const char *what);

#endif

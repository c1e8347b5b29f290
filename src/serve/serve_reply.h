/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An answer of `pvecg serve` as it is made, without HTTP: its status,
 * headers and body, the request headers it depends on, and the two forms
 * every handler answers in (a JSON body, Proxmox's failure).  Below the
 * router (serve_answer.h) and its handlers (serve_metrics.h,
 * serve_overview.h), which all make answers and call no one back.
 */
#ifndef PVECG_SERVE_REPLY_H
#define PVECG_SERVE_REPLY_H

#include <stdbool.h>
#include <stddef.h>

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
  bool logged;          /* logged already, in its own words */
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

void serve_reply_free(struct serve_reply *reply);

struct json_writer;

/* A JSON answer of status written by fill(arg), "no-store"; a 500 when
 * no memory is left. */
void serve_json_reply(struct serve_reply *r, int status,
                      void (*fill)(struct json_writer *, const void *),
                      const void *arg);

#define SERVE_JSON_TYPE "application/json;charset=UTF-8"

struct serve_error;

/* A request refused by its rules (serve_request.h), in Proxmox's form with
 * the parameter that was wrong. */
void serve_error_reply(struct serve_reply *r, const struct serve_error *e);

/* A 4xx or 5xx answer in Proxmox's form: {"data":null,"message":what}. */
void serve_fail_reply(struct serve_reply *r, int status, const char *what);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HTTP(S) batches through libcurl (see http_sender.h).
 */
#include "pvecg/http_sender.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DEFAULT_TRIES 5
#define DEFAULT_BACKOFF 0.5
#define BACKOFF_MAX 8.0
#define ANSWER_KEEP 512 /* bytes of an answer kept for a message */

struct http_sender {
  CURL *curl;
  struct curl_slist *headers;
  char *url;
  unsigned tries;
  double backoff;
  char answer[ANSWER_KEEP + 1];
  size_t answer_len;
  struct http_sender_stats stats;
};

bool http_url_is_http(const char *url) {
  return url != NULL && (strncasecmp(url, "http://", 7) == 0 ||
                         strncasecmp(url, "https://", 8) == 0);
}

/* Keeps the start of the answer (InfluxDB and VictoriaMetrics say what
 * they refused in it). */
static size_t keep_answer(char *data, size_t size, size_t n, void *ctx) {
  struct http_sender *s = ctx;
  size_t len = size * n, room = ANSWER_KEEP - s->answer_len;
  size_t take = len < room ? len : room;
  memcpy(s->answer + s->answer_len, data, take);
  s->answer_len += take;
  s->answer[s->answer_len] = '\0';
  return len;
}

static int add_header(struct http_sender *s, const char *header) {
  struct curl_slist *l = curl_slist_append(s->headers, header);
  if (l == NULL)
    return -ENOMEM;
  s->headers = l;
  return 0;
}

static int set_token(struct http_sender *s, const char *token) {
  if (token == NULL)
    return 0;
  const char *scheme = strstr(s->url, "/api/v2/") != NULL ? "Token" : "Bearer";
  size_t size = strlen(token) + 32;
  char *header = malloc(size);
  if (header == NULL)
    return -ENOMEM;
  snprintf(header, size, "Authorization: %s %s", scheme, token);
  int r = add_header(s, header);
  memset(header, 0, size); /* a secret does not linger in freed memory */
  free(header);
  return r;
}

static int configure(struct http_sender *s,
                     const struct http_sender_options *o) {
  CURL *c = s->curl;
  long ms = (long)(o->timeout * 1000);
  if (add_header(s, "Content-Type: text/plain; charset=utf-8") < 0 ||
      add_header(s, "Expect:") < 0 || set_token(s, o->token) < 0)
    return -ENOMEM;
  curl_easy_setopt(c, CURLOPT_URL, s->url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, s->headers);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_answer);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "pvecg-export");
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  return 0;
}

int http_sender_open(const struct http_sender_options *o,
                     struct http_sender **ret, char *err, size_t err_size) {
  if (!http_url_is_http(o->url)) {
    snprintf(err, err_size, "not an http:// or https:// URL");
    return -EINVAL;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  struct http_sender *s = calloc(1, sizeof(*s));
  if (s != NULL) {
    s->curl = curl_easy_init();
    s->url = strdup(o->url);
    s->tries = o->tries ? o->tries : DEFAULT_TRIES;
    s->backoff = o->backoff > 0 ? o->backoff : DEFAULT_BACKOFF;
  }
  if (s == NULL || s->curl == NULL || s->url == NULL || configure(s, o) < 0) {
    http_sender_free(s);
    snprintf(err, err_size, "out of memory");
    return -ENOMEM;
  }
  *ret = s;
  return 0;
}

static void pause_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

/* The answer's first line, for a message. */
static const char *answer_line(struct http_sender *s) {
  char *nl = strpbrk(s->answer, "\r\n");
  if (nl != NULL)
    *nl = '\0';
  return s->answer[0] != '\0' ? s->answer : "(no message)";
}

enum outcome { TAKEN, REFUSED, AGAIN };

/* One try: what the server (or the connection) said. */
static enum outcome try_once(struct http_sender *s, const char *body,
                             size_t len, int *r, char *err, size_t err_size) {
  long status = 0;
  s->answer_len = 0;
  s->answer[0] = '\0';
  curl_easy_setopt(s->curl, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(s->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  CURLcode c = curl_easy_perform(s->curl);
  if (c != CURLE_OK) {
    snprintf(err, err_size, "%s", curl_easy_strerror(c));
    *r = c == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT
         : c == CURLE_COULDNT_CONNECT  ? -ECONNREFUSED
                                       : -EIO;
    return AGAIN;
  }
  curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 200 && status < 300)
    return TAKEN;
  snprintf(err, err_size, "the server answered HTTP %ld: %s", status,
           answer_line(s));
  *r = -EPROTO;
  return status == 429 || status >= 500 ? AGAIN : REFUSED;
}

int http_sender_post(struct http_sender *s, const char *body, size_t len,
                     char *err, size_t err_size) {
  double wait = s->backoff;
  int r = 0;
  for (unsigned i = 0; i < s->tries; i++) {
    if (i > 0) {
      pause_s(wait);
      wait = wait * 2 < BACKOFF_MAX ? wait * 2 : BACKOFF_MAX;
      s->stats.retries++;
    }
    enum outcome o = try_once(s, body, len, &r, err, err_size);
    if (o == TAKEN) {
      s->stats.requests++;
      s->stats.bytes += len;
      return 0;
    }
    if (o == REFUSED)
      return r;
  }
  char why[512];
  snprintf(why, sizeof(why), "%s", err);
  snprintf(err, err_size, "%s (%u tries)", why, s->tries);
  return r;
}

void http_sender_stats(const struct http_sender *s,
                       struct http_sender_stats *ret) {
  *ret = s->stats;
}

void http_sender_free(struct http_sender *s) {
  if (s == NULL)
    return;
  if (s->curl != NULL)
    curl_easy_cleanup(s->curl);
  curl_slist_free_all(s->headers);
  free(s->url);
  free(s);
}

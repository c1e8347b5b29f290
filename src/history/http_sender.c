/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HTTP(S) batches through libcurl (see http_sender.h).  The caller and the
 * sender's thread share one slot: post() waits until it is free, fills it
 * and returns; the thread sends what is in it, with its retries, and
 * frees it.  The curl handle belongs to the thread.
 */
#include "pvecg/http_sender.h"

#include "export_text.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DEFAULT_TRIES 5
#define DEFAULT_BACKOFF 0.5
#define BACKOFF_MAX 8.0
#define ANSWER_KEEP 512 /* bytes of an answer kept for a message */
#define LABEL_SIZE 256
#define ERROR_SIZE 1024

struct http_sender {
  CURL *curl;
  struct curl_slist *headers;
  char *url;
  unsigned tries;
  double backoff;
  char answer[ANSWER_KEEP + 1];
  size_t answer_len;

  pthread_t thread;
  bool started;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  /* The slot, under lock. */
  bool busy, stop;
  char *body;
  size_t len, capacity;
  char label[LABEL_SIZE];
  /* The first failure, under lock: nothing is sent after it. */
  int failed;
  char error[ERROR_SIZE];
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
  if (o->ca_file != NULL)
    curl_easy_setopt(c, CURLOPT_CAINFO, o->ca_file);
  return 0;
}

static void *sender_main(void *arg);

int http_sender_open(const struct http_sender_options *o,
                     struct http_sender **ret, char *err, size_t err_size) {
  if (!http_url_is_http(o->url)) {
    snprintf(err, err_size, "not an http:// or https:// URL");
    return -EINVAL;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  struct http_sender *s = calloc(1, sizeof(*s));
  if (s != NULL) {
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    s->curl = curl_easy_init();
    s->url = strdup(o->url);
    s->tries = o->tries ? o->tries : DEFAULT_TRIES;
    s->backoff = o->backoff > 0 ? o->backoff : DEFAULT_BACKOFF;
  }
  if (s == NULL || s->curl == NULL || s->url == NULL || configure(s, o) < 0 ||
      pthread_create(&s->thread, NULL, sender_main, s) != 0) {
    http_sender_free(s);
    snprintf(err, err_size, "out of memory or no thread");
    return -ENOMEM;
  }
  s->started = true;
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

/* InfluxDB 1.x's answer for a batch of which it kept all but some points:
 * {"error":"partial write: points beyond retention policy dropped=3"}.
 * Returns the number dropped (0 when the answer does not say), or -1 for
 * any other answer. */
static long partial_write(const char *answer) {
  if (strstr(answer, "partial write") == NULL)
    return -1;
  const char *d = strstr(answer, "dropped=");
  return d != NULL ? strtol(d + strlen("dropped="), NULL, 10) : 0;
}

/* Counts a partial write as taken, keeping its answer for a message. */
static void count_partial(struct http_sender *s, long dropped) {
  pthread_mutex_lock(&s->lock);
  s->stats.partial++;
  s->stats.dropped += dropped > 0 ? (size_t)dropped : 0;
  /* the start of the line: the count is said in the stats */
  const char *line = answer_line(s);
  size_t n = strnlen(line, sizeof(s->stats.partial_answer) - 1);
  memcpy(s->stats.partial_answer, line, n);
  s->stats.partial_answer[n] = '\0';
  pthread_mutex_unlock(&s->lock);
}

/* Failures that may pass: the network or the server in trouble.  A
 * certificate that does not verify, a bad URL or a protocol curl lacks
 * stay as they are, however often tried. */
static bool transient(CURLcode c) {
  switch (c) {
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_CONNECT:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_PARTIAL_FILE:
  case CURLE_SSL_CONNECT_ERROR:
    return true;
  default:
    return false;
  }
}

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
    return transient(c) ? AGAIN : REFUSED;
  }
  curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 200 && status < 300)
    return TAKEN;
  long dropped = status == 400 ? partial_write(s->answer) : -1;
  if (dropped >= 0) {
    count_partial(s, dropped);
    return TAKEN;
  }
  snprintf(err, err_size, "the server answered HTTP %ld: %s", status,
           answer_line(s));
  *r = -EPROTO;
  return status == 429 || status >= 500 ? AGAIN : REFUSED;
}

/* One batch, tried again after a pause while the server is in trouble.
 * Returns 0 or the last try's error, with its reason in err. */
static int send_batch(struct http_sender *s, const char *body, size_t len,
                      char *err, size_t err_size) {
  double wait = s->backoff;
  int r = 0;
  for (unsigned i = 0; i < s->tries; i++) {
    if (i > 0) {
      pause_s(wait);
      wait = wait * 2 < BACKOFF_MAX ? wait * 2 : BACKOFF_MAX;
      pthread_mutex_lock(&s->lock);
      s->stats.retries++;
      pthread_mutex_unlock(&s->lock);
    }
    enum outcome o = try_once(s, body, len, &r, err, err_size);
    if (o == TAKEN)
      return 0;
    if (o == REFUSED)
      return r;
  }
  size_t used = strlen(err);
  if (used < err_size)
    snprintf(err + used, err_size - used, " (%u tries)", s->tries);
  return r;
}

/* The thread: whatever is in the slot, until told to stop. */
static void *sender_main(void *arg) {
  struct http_sender *s = arg;
  char why[ERROR_SIZE];
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (!s->busy && !s->stop)
      pthread_cond_wait(&s->changed, &s->lock);
    if (!s->busy)
      break;
    pthread_mutex_unlock(&s->lock);
    why[0] = '\0';
    int r = send_batch(s, s->body, s->len, why, sizeof(why));
    pthread_mutex_lock(&s->lock);
    if (r == 0) {
      s->stats.requests++;
      s->stats.bytes += s->len;
      s->stats.lines += export_count_lines(s->body, s->len);
    } else {
      s->failed = r;
      /* the label is short; a long reason is cut, as any message is */
      int n = snprintf(s->error, sizeof(s->error), "%s: ", s->label);
      if (n > 0 && (size_t)n < sizeof(s->error)) {
        size_t len = strnlen(why, sizeof(s->error) - (size_t)n - 1);
        memcpy(s->error + n, why, len);
        s->error[(size_t)n + len] = '\0';
      }
    }
    s->busy = false;
    pthread_cond_broadcast(&s->changed);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

/* Under lock: waits for the slot; the first failure, if any. */
static int wait_free(struct http_sender *s, char *err, size_t err_size) {
  while (s->busy)
    pthread_cond_wait(&s->changed, &s->lock);
  if (s->failed < 0)
    snprintf(err, err_size, "%s", s->error);
  return s->failed;
}

int http_sender_post(struct http_sender *s, const char *body, size_t len,
                     const char *label, char *err, size_t err_size) {
  pthread_mutex_lock(&s->lock);
  int r = wait_free(s, err, err_size);
  if (r == 0 && len > s->capacity) {
    char *grown = realloc(s->body, len);
    if (grown == NULL) {
      snprintf(err, err_size, "%s: out of memory", label);
      r = -ENOMEM;
    } else {
      s->body = grown;
      s->capacity = len;
    }
  }
  if (r == 0) {
    memcpy(s->body, body, len);
    s->len = len;
    snprintf(s->label, sizeof(s->label), "%s", label);
    s->busy = true;
    pthread_cond_broadcast(&s->changed);
  }
  pthread_mutex_unlock(&s->lock);
  return r;
}

int http_sender_finish(struct http_sender *s, char *err, size_t err_size) {
  pthread_mutex_lock(&s->lock);
  int r = wait_free(s, err, err_size);
  pthread_mutex_unlock(&s->lock);
  return r;
}

void http_sender_stats(struct http_sender *s, struct http_sender_stats *ret) {
  pthread_mutex_lock(&s->lock);
  *ret = s->stats;
  pthread_mutex_unlock(&s->lock);
}

void http_sender_free(struct http_sender *s) {
  if (s == NULL)
    return;
  if (s->started) {
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
  }
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->changed);
  free(s->body);
  if (s->curl != NULL)
    curl_easy_cleanup(s->curl);
  curl_slist_free_all(s->headers);
  free(s->url);
  free(s);
}

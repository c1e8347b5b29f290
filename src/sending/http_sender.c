/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HTTP(S) batches through libcurl (see http_sender.h).  The caller and the
 * sender's thread share one slot: post() waits until it is free, fills it
 * and returns; the thread sends what is in it, with its retries, and
 * frees it.  The curl handle belongs to the thread.
 */
#include "pvecg/http_sender.h"

#include "sent_lines.h"
#include "http_split.h"
#include "http_whole.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DEFAULT_TRIES 5
#define DEFAULT_BACKOFF 0.5
#define BACKOFF_MAX 8.0
#define ANSWER_KEEP STORE_ANSWER_BODY_MAX /* bytes of an answer read */
#define RETRY_AFTER_WAIT 30 /* s the sender waits itself; longer: away */
#define STOP_GRACE 2.0  /* s a batch in flight may still finish after a stop */
#define STOP_SLICE 0.05 /* s between two looks at the stop */
#define LABEL_SIZE 256
#define ERROR_SIZE 1024

struct http_sender {
  CURL *curl;
  struct curl_slist *headers;
  char *url;
  unsigned tries;
  double backoff;
  volatile sig_atomic_t *stop; /* the caller's, read in the caller's thread */
  atomic_bool cancel;          /* give up the batch in flight now */
  char answer[ANSWER_KEEP + 1];
  size_t answer_len;
  char retry_after[64]; /* the answer's Retry-After header */

  pthread_t thread;
  bool started;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  /* The slot, under lock. */
  bool busy, quit;
  char *body;
  size_t len, capacity;
  char label[LABEL_SIZE];
  size_t batch;            /* the number of the batch in the slot */
  bool whole;              /* a message (http_sender_post_whole) */
  struct http_message msg; /* that message, the slot's own */
  size_t cap;              /* bytes per request known to pass, 0: any */
  /* The first failure, under lock: nothing is sent after it. */
  int failed;
  char error[ERROR_SIZE];
  struct store_answer failure;
  struct http_sender_stats stats;
  /* What the caller knows is in: stats when the last post (or finish)
   * found the slot free, not the batch the thread took since. */
  struct http_sender_stats settled;
  struct http_sender_skip skip[HTTP_SENDER_SKIPS_KEPT];
  size_t skips_kept;
};

bool http_url_is_http(const char *url) {
  return url != NULL && (strncasecmp(url, "http://", 7) == 0 ||
                         strncasecmp(url, "https://", 8) == 0);
}

/* The value of the query's key precision= (NULL: none), into out. */
static const char *precision_of(const char *url, char *out, size_t size) {
  const char *q = strchr(url, '?');
  for (const char *p = q; p != NULL; p = strchr(p + 1, '&')) {
    if (strncmp(p + 1, "precision=", 10) != 0)
      continue;
    p += 11;
    size_t n = strcspn(p, "&#");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p);
    return out;
  }
  return NULL;
}

int http_url_time_scale(const char *url, int64_t *scale, char *err,
                        size_t err_size) {
  static const struct {
    const char *name;
    int64_t scale;
    bool v2, v1;
  } unit[] = {{"ns", 1000000000, true, true}, {"n", 1000000000, false, true},
              {"us", 1000000, true, false},   {"u", 1000000, false, true},
              {"ms", 1000, true, true},       {"s", 1, true, true}};
  char p[16];
  *scale = 0;
  if (precision_of(url, p, sizeof(p)) == NULL)
    return 0;
  bool v2 = strstr(url, "/api/v2/") != NULL;
  for (size_t i = 0; i < sizeof(unit) / sizeof(unit[0]); i++)
    if (strcmp(p, unit[i].name) == 0 && (v2 ? unit[i].v2 : unit[i].v1)) {
      *scale = unit[i].scale;
      return 0;
    }
  snprintf(err, err_size,
           v2 ? "precision=%s: InfluxDB 2.x takes ns, us, ms or s"
              : "precision=%s: this URL takes n, u, ms or s (InfluxDB 1.x "
                "reads \"us\" as nanoseconds; m and h would round the rows' "
                "times)",
           p);
  return -EINVAL;
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

/* Keeps the Retry-After header of a busy store's answer. */
static size_t keep_header(char *data, size_t size, size_t n, void *ctx) {
  struct http_sender *s = ctx;
  size_t len = size * n;
  static const char name[] = "retry-after:";
  if (len > sizeof(name) - 1 && strncasecmp(data, name, sizeof(name) - 1) == 0)
    store_words_quote(data + sizeof(name) - 1, len - (sizeof(name) - 1),
                      s->retry_after, sizeof(s->retry_after));
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

/* libcurl asks about once a second, also while a store says nothing: a
 * non-zero answer ends the request. */
static int progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow,
                    curl_off_t ultotal, curl_off_t ulnow) {
  (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  struct http_sender *s = ctx;
  return atomic_load(&s->cancel) ? 1 : 0;
}

static int configure(struct http_sender *s,
                     const struct http_sender_options *o) {
  CURL *c = s->curl;
  long ms = (long)(o->timeout * 1000);
  char type[128];
  snprintf(type, sizeof(type), "Content-Type: %s",
           o->content_type ? o->content_type : "text/plain; charset=utf-8");
  if (add_header(s, type) < 0 || add_header(s, "Expect:") < 0 ||
      set_token(s, o->token) < 0)
    return -ENOMEM;
  for (size_t i = 0; o->headers != NULL && o->headers[i] != NULL; i++)
    if (add_header(s, o->headers[i]) < 0)
      return -ENOMEM;
  curl_easy_setopt(c, CURLOPT_URL, s->url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, s->headers);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_answer);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, keep_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, s);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, s);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "pvecg-export");
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (o->ca_file != NULL)
    curl_easy_setopt(c, CURLOPT_CAINFO, o->ca_file);
  if (o->insecure) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }
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
    s->stop = o->stop;
    atomic_init(&s->cancel, false);
    s->cap = o->cap;
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

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps s seconds, or until the batch is given up. */
static void pause_s(struct http_sender *h, double s) {
  double until = now_s() + s;
  while (!atomic_load(&h->cancel)) {
    double left = until - now_s();
    if (left <= 0)
      break;
    if (left > STOP_SLICE)
      left = STOP_SLICE;
    struct timespec ts = {0, (long)(left * 1e9)};
    nanosleep(&ts, NULL);
  }
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
static void try_once(struct http_sender *s, const char *body, size_t len,
                     struct store_answer *ret) {
  long status = 0;
  s->answer_len = 0;
  s->answer[0] = '\0';
  s->retry_after[0] = '\0';
  curl_easy_setopt(s->curl, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(s->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  CURLcode c = curl_easy_perform(s->curl);
  if (c != CURLE_OK) {
    *ret = (struct store_answer){
        .verdict = transient(c) ? STORE_AWAY : STORE_REFUSED,
        .fix = "check the URL and, for https, --ca-file"};
    snprintf(ret->words, sizeof(ret->words), "%s", curl_easy_strerror(c));
    return;
  }
  curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
  store_answer_read(status, s->answer, s->answer_len,
                    s->retry_after[0] ? s->retry_after : NULL, time(NULL), ret);
}

/* One piece, tried again after a pause while the store is away: the
 * pause doubles, or is what the store asked for; a store that asks for
 * longer than a shipper's pass settles the piece as away at once. */
static void try_piece(void *ctx, const char *body, size_t len,
                      struct store_answer *ret) {
  struct http_sender *s = ctx;
  double wait = s->backoff;
  for (unsigned i = 0;; i++) {
    if (!atomic_load(&s->cancel))
      try_once(s, body, len, ret);
    if (atomic_load(&s->cancel)) {
      *ret = (struct store_answer){.verdict = STORE_AWAY};
      snprintf(ret->words, sizeof(ret->words), "stopped");
      break;
    }
    if (ret->verdict != STORE_AWAY || i + 1 >= s->tries ||
        ret->retry_after > RETRY_AFTER_WAIT)
      break;
    pause_s(s, ret->retry_after > wait ? ret->retry_after : wait);
    wait = wait * 2 < BACKOFF_MAX ? wait * 2 : BACKOFF_MAX;
    pthread_mutex_lock(&s->lock);
    s->stats.retries++;
    pthread_mutex_unlock(&s->lock);
  }
}

/* A line's start and its last field (the time), quoted, for a message. */
static void describe_line(const char *line, size_t len,
                          struct http_sender_skip *ret) {
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    len--;
  store_words_quote(line, len, ret->line, sizeof(ret->line));
  const char *sp = len > 0 ? memrchr(line, ' ', len) : NULL;
  size_t at = sp != NULL ? (size_t)(sp - line) + 1 : len;
  store_words_quote(line + at, len - at, ret->time, sizeof(ret->time));
}

/* Under lock: the skips of a delivered batch, kept for the caller. */
static void keep_skips(struct http_sender *s, const char *body,
                       const struct http_split_outcome *o) {
  for (size_t i = 0; i < o->skips; i++) {
    const struct http_split_skip *k = &o->skip[i];
    s->stats.skipped[k->why == STORE_BAD_LINE]++;
    if (s->skips_kept == HTTP_SENDER_SKIPS_KEPT)
      continue;
    struct http_sender_skip *to = &s->skip[s->skips_kept++];
    *to = (struct http_sender_skip){
        .batch = s->batch, .offset = k->offset, .why = k->why};
    describe_line(body + k->offset, k->len, to);
    memcpy(to->words, k->words, sizeof(to->words));
  }
}

/* Under lock: the units of a delivered message skipped, kept for the
 * caller to name. */
static void keep_whole_skips(struct http_sender *s,
                             const struct http_whole_outcome *o) {
  for (size_t i = 0; i < o->skips && s->skips_kept < HTTP_SENDER_SKIPS_KEPT;
       i++) {
    const struct http_whole_skip *k = &o->skip[i];
    struct http_sender_skip *to = &s->skip[s->skips_kept++];
    *to = (struct http_sender_skip){.batch = s->batch,
                                    .offset = k->unit,
                                    .why = STORE_REFUSED,
                                    .units = k->units,
                                    .samples = k->samples};
    memcpy(to->words, k->words, sizeof(to->words));
  }
}

/* Under lock: what a delivered batch adds to the totals. */
static void count_delivered(struct http_sender *s,
                            const struct http_split_outcome *o) {
  s->stats.requests++;
  s->stats.bytes += s->len;
  s->stats.lines += sent_lines(s->body, s->len);
  for (size_t r = 0; r < STORE_REASONS; r++) {
    s->stats.dropped_by[r] += o->dropped[r];
    s->stats.dropped += o->dropped[r];
  }
  if (o->partial.status != 0) {
    s->stats.partial++;
    snprintf(s->stats.partial_answer, sizeof(s->stats.partial_answer), "%s",
             o->partial.words);
  }
}

/* Under lock: the failure, logged with the batch's label. */
static void note_failure(struct http_sender *s,
                         const struct http_split_outcome *o, int r) {
  const struct store_answer *a = &o->answer;
  s->failed = r;
  s->failure = *a;
  s->failure.verdict = o->verdict;
  char why[ERROR_SIZE];
  if (a->status != 0)
    snprintf(why, sizeof(why), "the server answered HTTP %ld: %s", a->status,
             a->words);
  else
    snprintf(why, sizeof(why), "%s", a->words);
  size_t n = strlen(why);
  if (o->verdict == STORE_AWAY && a->retry_after <= RETRY_AFTER_WAIT &&
      n < sizeof(why))
    snprintf(why + n, sizeof(why) - n, " (%u tries)", s->tries);
  /* the label is short; a long reason is cut, as any message is */
  snprintf(s->error, sizeof(s->error), "%.*s: %.*s", LABEL_SIZE, s->label,
           ERROR_SIZE - LABEL_SIZE - 8, why);
}

/* Under lock: what a delivered message adds to the totals. */
static void count_whole(struct http_sender *s,
                        const struct http_whole_outcome *o) {
  s->stats.requests++;
  s->stats.bytes += o->bytes;
  s->stats.samples += o->samples;
  if (o->refused == 0)
    return;
  s->stats.refused += o->refused;
  for (size_t r = 0; r < STORE_REFUSALS; r++)
    s->stats.refused_by[r] += o->refused_by[r];
  memcpy(s->stats.refused_answer, o->refused_words, sizeof(o->refused_words));
}

/* A delivery's error from its outcome: 0 when every line or unit is
 * settled; r < 0 (out of memory) is logged as the answer's words. */
static int delivery_error(struct http_sender *s, int r, enum store_verdict *v,
                          struct store_answer *a) {
  if (r < 0) {
    *v = STORE_REFUSED;
    *a = (struct store_answer){0};
    snprintf(a->words, sizeof(a->words), "out of memory");
    return r;
  }
  return *v == STORE_TAKEN         ? 0
         : atomic_load(&s->cancel) ? -ECANCELED
         : *v == STORE_AWAY        ? -EAGAIN
                                   : -EPROTO;
}

/* Under lock: only a 413 lowers the cap; a size set meanwhile stands
 * otherwise. */
static void lower_cap(struct http_sender *s, int r, bool lowered, size_t cap) {
  if (r == 0 && lowered && (s->cap == 0 || cap < s->cap))
    s->cap = cap;
}

/* One whole message: taken, in parts with its refused units skipped
 * (counted, the next goes), or failed as any batch. */
static int deliver_whole(struct http_sender *s) {
  struct http_whole_outcome o;
  size_t cap = s->cap;
  int r = http_whole_send(&s->msg, &cap, try_piece, s, &o);
  r = delivery_error(s, r, &o.verdict, &o.answer);
  if (o.answer.status == 401)
    o.answer.fix = "the store refused the credentials: check --token-file or "
                   "the user:password in the URL";
  pthread_mutex_lock(&s->lock);
  lower_cap(s, r, o.cap_lowered, cap);
  if (r == 0) {
    count_whole(s, &o);
    keep_whole_skips(s, &o);
  } else {
    struct http_split_outcome f = {.verdict = o.verdict, .answer = o.answer};
    note_failure(s, &f, r);
  }
  pthread_mutex_unlock(&s->lock);
  free(o.skip);
  return r;
}

/* One batch, in pieces as the store needs; 0 or the failure's error. */
static int deliver(struct http_sender *s) {
  if (s->whole)
    return deliver_whole(s);
  struct http_split_outcome o;
  size_t cap = s->cap;
  int r = http_split_send(s->body, s->len, &cap, try_piece, s, &o);
  r = delivery_error(s, r, &o.verdict, &o.answer);
  pthread_mutex_lock(&s->lock);
  lower_cap(s, r, o.cap_lowered, cap);
  if (r == 0) {
    count_delivered(s, &o);
    keep_skips(s, s->body, &o);
  } else {
    note_failure(s, &o, r);
  }
  pthread_mutex_unlock(&s->lock);
  free(o.skip);
  return r;
}

/* The thread: whatever is in the slot, until told to stop. */
static void *sender_main(void *arg) {
  struct http_sender *s = arg;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (!s->busy && !s->quit)
      pthread_cond_wait(&s->changed, &s->lock);
    if (!s->busy)
      break;
    pthread_mutex_unlock(&s->lock);
    deliver(s);
    if (s->whole)
      s->msg.free(s->msg.data);
    pthread_mutex_lock(&s->lock);
    s->whole = false;
    s->busy = false;
    pthread_cond_broadcast(&s->changed);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

/* Under lock: waits for the slot; the first failure, if any.  Once the
 * caller's stop was set for STOP_GRACE, the batch in flight is given up,
 * whatever the store does (retries, a back-off, no answer at all). */
static int wait_free(struct http_sender *s, char *err, size_t err_size) {
  double stopped_at = 0;
  while (s->busy) {
    if (s->stop == NULL) {
      pthread_cond_wait(&s->changed, &s->lock);
      continue;
    }
    double now = now_s();
    if (*s->stop && stopped_at == 0)
      stopped_at = now;
    if (stopped_at != 0 && now - stopped_at >= STOP_GRACE)
      atomic_store(&s->cancel, true);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)(STOP_SLICE * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&s->changed, &s->lock, &ts);
  }
  s->settled = s->stats;
  if (s->failed < 0)
    snprintf(err, err_size, "%s", s->error);
  return s->failed;
}

/* Under lock: the slot holds len bytes at least (0, or -ENOMEM). */
static int slot_room(struct http_sender *s, size_t len) {
  if (len <= s->capacity)
    return 0;
  char *grown = realloc(s->body, len);
  if (grown == NULL)
    return -ENOMEM;
  s->body = grown;
  s->capacity = len;
  return 0;
}

/* Hands the slot's content to the thread, under lock. */
static void hand_over(struct http_sender *s, const char *label) {
  snprintf(s->label, sizeof(s->label), "%s", label);
  s->batch++;
  s->busy = true;
  pthread_cond_broadcast(&s->changed);
}

int http_sender_post(struct http_sender *s, const char *body, size_t len,
                     const char *label, char *err, size_t err_size) {
  pthread_mutex_lock(&s->lock);
  int r = wait_free(s, err, err_size);
  if (r == 0 && (r = slot_room(s, len)) < 0)
    snprintf(err, err_size, "%s: out of memory", label);
  if (r == 0) {
    memcpy(s->body, body, len);
    s->len = len;
    hand_over(s, label);
  }
  pthread_mutex_unlock(&s->lock);
  return r;
}

int http_sender_post_whole(struct http_sender *s, struct http_message *m,
                           const char *label, char *err, size_t err_size) {
  pthread_mutex_lock(&s->lock);
  int r = wait_free(s, err, err_size);
  if (r == 0) {
    s->msg = *m;
    s->whole = true;
    hand_over(s, label);
  }
  pthread_mutex_unlock(&s->lock);
  if (r < 0)
    m->free(m->data); /* the sender's own, sent or not */
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
  *ret = s->settled;
  pthread_mutex_unlock(&s->lock);
}

void http_sender_failure(struct http_sender *s, struct store_answer *ret) {
  pthread_mutex_lock(&s->lock);
  *ret = s->failed < 0 ? s->failure : (struct store_answer){0};
  pthread_mutex_unlock(&s->lock);
}

size_t http_sender_cap(struct http_sender *s) {
  pthread_mutex_lock(&s->lock);
  size_t cap = s->cap;
  pthread_mutex_unlock(&s->lock);
  return cap;
}

void http_sender_set_cap(struct http_sender *s, size_t cap) {
  pthread_mutex_lock(&s->lock);
  s->cap = cap;
  pthread_mutex_unlock(&s->lock);
}

size_t http_sender_take_skips(struct http_sender *s, size_t batch,
                              struct http_sender_skip *out, size_t max) {
  pthread_mutex_lock(&s->lock);
  size_t n = 0, kept = 0;
  for (size_t i = 0; i < s->skips_kept; i++) {
    if (n < max && (batch == 0 || s->skip[i].batch == batch))
      out[n++] = s->skip[i];
    else
      s->skip[kept++] = s->skip[i];
  }
  s->skips_kept = kept;
  pthread_mutex_unlock(&s->lock);
  return n;
}

void http_sender_free(struct http_sender *s) {
  if (s == NULL)
    return;
  if (s->started) {
    atomic_store(&s->cancel, true); /* nobody waits for a batch in flight */
    pthread_mutex_lock(&s->lock);
    s->quit = true;
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

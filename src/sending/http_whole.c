/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A remote write message delivered in parts (see http_whole.h): a stack of
 * runs of units (struct http_parts).
 */
#include "http_whole.h"

#include "pvecg/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct whole {
  const struct http_message *m;
  size_t *cap;
  http_split_try try_piece;
  void *ctx;
  struct http_parts parts; /* runs of units */
  size_t skip_room;
  unsigned refused_alone;
  bool merged;   /* the rest goes as one part, not halved */
  size_t passed; /* the largest part taken since the cap was lowered */
  struct http_whole_outcome *out;
};

/* One encoded part. */
struct part {
  struct http_part run;
  char *body;
  size_t len, samples;
};

bool http_whole_refuses_samples(long status) {
  return status >= 400 && status < 500 && status != 401 && status != 403 &&
         status != 404 && status != 405 && status != 413 && status != 429;
}

/* The run in two, first half on top; 1, or -ENOMEM. */
static int halve(struct whole *w, struct http_part r) {
  size_t mid = r.len / 2;
  if (http_parts_push(&w->parts, r.at + mid, r.len - mid) < 0 ||
      http_parts_push(&w->parts, r.at, mid) < 0)
    return -ENOMEM;
  return 1;
}

/* The unit refused alone: skipped, its samples counted by refusal. */
static int skip(struct whole *w, const struct part *p,
                const struct store_answer *a) {
  struct http_whole_outcome *o = w->out;
  struct http_whole_skip *grown =
      grow_array(o->skip, o->skips + 1, &w->skip_room, sizeof(*grown), 16);
  if (grown == NULL)
    return -ENOMEM;
  o->skip = grown;
  o->skip[o->skips] =
      (struct http_whole_skip){p->run.at, p->run.len, p->samples, ""};
  memcpy(o->skip[o->skips++].words, a->words, sizeof(a->words));
  o->refused += p->samples;
  o->refused_by[store_refusal_of(a->words)] += p->samples;
  memcpy(o->refused_words, a->words, sizeof(a->words));
  w->refused_alone += (unsigned)p->run.len;
  return 1;
}

static void taken(struct whole *w, const struct part *p) {
  w->out->samples += p->samples;
  w->out->bytes += p->len;
  if (p->len > w->passed)
    w->passed = p->len;
}

/* A 413: half the body is what is tried next, the halves first. */
static int too_large(struct whole *w, const struct part *p,
                     const struct store_answer *a) {
  if (p->run.len > 1) {
    if (*w->cap == 0 || p->len / 2 < *w->cap) {
      *w->cap = p->len / 2 > 0 ? p->len / 2 : 1;
      w->out->cap_lowered = true;
      w->passed = 0;
    }
    return halve(w, p->run);
  }
  w->out->answer = *a;
  w->out->answer.fix = "the store takes smaller requests: lower --batch-bytes "
                       "(pvecg ship: --rows-per-round, one file's rows)";
  w->out->verdict = STORE_REFUSED;
  return 0;
}

/* What one answer does to the part: 1 to go on, 0 when the message is
 * settled as failed, or -ENOMEM. */
static int settle(struct whole *w, const struct part *p,
                  const struct store_answer *a) {
  if (a->verdict == STORE_TAKEN || a->verdict == STORE_PARTIAL) {
    taken(w, p);
    return 1;
  }
  if (a->verdict != STORE_AWAY && a->status == 413)
    return too_large(w, p, a);
  if (a->verdict != STORE_AWAY && http_whole_refuses_samples(a->status)) {
    if (p->run.len > 1 && !w->merged)
      return halve(w, p->run);
    return skip(w, p, a);
  }
  w->out->answer = *a;
  w->out->verdict = a->verdict == STORE_AWAY ? STORE_AWAY : STORE_REFUSED;
  return 0;
}

/* Unit after unit refused, none taken: the rest as one part. */
static void merge_rest(struct whole *w) {
  if (w->merged || w->refused_alone < HTTP_SPLIT_SYSTEMATIC ||
      w->out->samples > 0 || w->parts.depth < 2)
    return;
  struct http_part first = w->parts.stack[w->parts.depth - 1],
                   last = w->parts.stack[0];
  w->parts.stack[0] =
      (struct http_part){first.at, last.at + last.len - first.at};
  w->parts.depth = 1;
  w->merged = true;
}

/* The next part, encoded; one larger than the cap is halved unsent. */
static int next_part(struct whole *w, struct part *p) {
  for (;;) {
    merge_rest(w);
    p->run = w->parts.stack[--w->parts.depth];
    p->body = NULL;
    if (w->m->encode(w->m->data, p->run.at, p->run.at + p->run.len, &p->body,
                     &p->len, &p->samples) < 0)
      return -ENOMEM;
    if (*w->cap == 0 || p->len <= *w->cap || p->run.len < 2 || w->merged)
      return 0;
    free(p->body);
    if (halve(w, p->run) < 0)
      return -ENOMEM;
  }
}

static int run(struct whole *w) {
  while (w->parts.depth > 0) {
    struct part p;
    if (next_part(w, &p) < 0)
      return -ENOMEM;
    struct store_answer a;
    w->try_piece(w->ctx, p.body, p.len, &a);
    w->out->requests++;
    int go_on = settle(w, &p, &a);
    free(p.body);
    if (go_on <= 0)
      return go_on;
  }
  return 0;
}

int http_whole_send(const struct http_message *m, size_t *cap,
                    http_split_try try_piece, void *ctx,
                    struct http_whole_outcome *ret) {
  *ret = (struct http_whole_outcome){.verdict = STORE_TAKEN};
  struct whole w = {
      .m = m, .cap = cap, .try_piece = try_piece, .ctx = ctx, .out = ret};
  int r = http_parts_push(&w.parts, 0, m->units);
  if (r == 0)
    r = run(&w);
  free(w.parts.stack);
  if (r < 0 || ret->verdict != STORE_TAKEN) {
    free(ret->skip);
    ret->skip = NULL;
    ret->skips = 0;
  }
  if (r < 0)
    return r;
  if (ret->verdict != STORE_TAKEN) { /* nothing counts: it goes again whole */
    struct http_whole_outcome failed = {.verdict = ret->verdict,
                                        .answer = ret->answer,
                                        .requests = ret->requests};
    *ret = failed;
    return 0;
  }
  /* a size that passed is kept, not half of one that did not */
  if (ret->cap_lowered && w.passed > 0 && w.passed < *cap)
    *cap = w.passed;
  return 0;
}

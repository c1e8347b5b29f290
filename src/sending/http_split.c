/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A batch delivered in pieces (see http_split.h): a stack of byte ranges
 * of the batch (struct http_parts).
 */
#include "http_split.h"

#include "pvecg/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct split {
  const char *body;
  size_t len;
  size_t *cap;
  http_split_try try_piece;
  void *ctx;
  struct http_parts parts;
  size_t skip_room;
  uint64_t refused_alone; /* lines skipped in this batch */
  bool probed;            /* the batch's last line was tried alone */
  size_t passed; /* the largest piece taken since the cap was lowered */
  struct http_split_outcome *out;
};

size_t http_split_lines(const char *text, size_t len) {
  size_t n = 0;
  for (const char *p = text, *end = text + len; p < end; n++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    p = nl != NULL ? nl + 1 : end;
  }
  return n;
}

int http_parts_push(struct http_parts *parts, size_t at, size_t len) {
  if (len == 0)
    return 0;
  struct http_part *grown = grow_array(parts->stack, parts->depth + 1,
                                       &parts->room, sizeof(*grown), 32);
  if (grown == NULL)
    return -ENOMEM;
  parts->stack = grown;
  parts->stack[parts->depth++] = (struct http_part){at, len};
  return 0;
}

/* Where the first line of a piece ends (the whole piece: one line). */
static size_t first_line(const char *text, size_t len) {
  const char *nl = memchr(text, '\n', len);
  return nl != NULL ? (size_t)(nl - text) + 1 : len;
}

/* The end of the last whole line at or before max (at least one line). */
static size_t cut_at(const char *text, size_t len, size_t max) {
  for (size_t i = max < len ? max : len; i > 0; i--)
    if (text[i - 1] == '\n')
      return i;
  return first_line(text, len);
}

/* The piece in two at the line end nearest its middle, first half on top. */
static int halve(struct split *s, struct http_part r) {
  const char *text = s->body + r.at;
  size_t mid = cut_at(text, r.len, r.len / 2);
  if (mid >= r.len)
    mid = first_line(text, r.len);
  if (http_parts_push(&s->parts, r.at + mid, r.len - mid) < 0)
    return -ENOMEM;
  return http_parts_push(&s->parts, r.at, mid);
}

static int skip(struct split *s, struct http_part r, enum store_verdict why,
                const struct store_answer *a) {
  struct http_split_outcome *o = s->out;
  struct http_split_skip *grown =
      grow_array(o->skip, o->skips + 1, &s->skip_room, sizeof(*grown), 16);
  if (grown == NULL)
    return -ENOMEM;
  o->skip = grown;
  o->skip[o->skips] = (struct http_split_skip){r.at, r.len, why, ""};
  memcpy(o->skip[o->skips++].words, a->words, sizeof(a->words));
  s->refused_alone++;
  return 0;
}

/* Line after line refused, none taken: the target's fault, not the rows'. */
static bool systematic(struct split *s, const struct store_answer *a) {
  if (s->refused_alone < HTTP_SPLIT_SYSTEMATIC || s->out->lines_taken > 0)
    return false;
  if (s->probed)
    return true;
  /* unless the batch's last line, far from the first ones, passes alone
   * (a run of bad rows at the start) */
  s->probed = true;
  size_t at = s->len;
  if (at > 0 && s->body[at - 1] == '\n')
    at--;
  while (at > 0 && s->body[at - 1] != '\n')
    at--;
  struct store_answer last;
  s->try_piece(s->ctx, s->body + at, s->len - at, &last);
  s->out->requests++;
  if (last.verdict == STORE_TAKEN || last.verdict == STORE_PARTIAL) {
    s->out->lines_taken++; /* sent again in its turn: one point still */
    return false;
  }
  return last.verdict == a->verdict;
}

static void refuse_all(struct split *s) {
  struct http_split_outcome *o = s->out;
  o->verdict = STORE_REFUSED;
  o->answer.fix = o->answer.verdict == STORE_TOO_LARGE
                      ? "the store takes no line of it alone: raise the "
                        "limit of the store or of the proxy in front of it"
                      : "the store refuses every line: check the URL's "
                        "precision= and --format";
  o->answer.verdict = STORE_REFUSED;
}

static void taken_size(struct split *s, size_t len) {
  if (len > s->passed)
    s->passed = len;
}

/* What one answer does to the piece r: 1 to go on, 0 when the batch is
 * settled as failed, or -ENOMEM. */
static int settle(struct split *s, struct http_part r,
                  const struct store_answer *a) {
  struct http_split_outcome *o = s->out;
  size_t lines = http_split_lines(s->body + r.at, r.len);
  switch (a->verdict) {
  case STORE_TAKEN:
    o->lines_taken += lines;
    taken_size(s, r.len);
    return 1;
  case STORE_PARTIAL:
    o->lines_taken += lines;
    taken_size(s, r.len);
    o->dropped[a->reason] += a->dropped;
    o->partial = *a;
    return 1;
  case STORE_TOO_LARGE:
  case STORE_BAD_LINE:
    o->answer = *a;
    if (lines > 1) {
      if (a->verdict == STORE_TOO_LARGE &&
          (*s->cap == 0 || r.len / 2 < *s->cap)) {
        *s->cap = r.len / 2 > 0 ? r.len / 2 : 1;
        o->cap_lowered = true;
        s->passed = 0;
      }
      return halve(s, r) < 0 ? -ENOMEM : 1;
    }
    if (skip(s, r, a->verdict, a) < 0)
      return -ENOMEM;
    if (!systematic(s, a))
      return 1;
    refuse_all(s);
    return 0;
  default: /* refused or away: nothing more of it goes now */
    o->answer = *a;
    o->verdict = a->verdict;
    return 0;
  }
}

/* The next piece: the top of the stack, cut to the cap first. */
static int next_piece(struct split *s, struct http_part *ret) {
  struct http_part r = s->parts.stack[--s->parts.depth];
  size_t cap = *s->cap;
  if (cap > 0 && r.len > cap) {
    size_t n = cut_at(s->body + r.at, r.len, cap);
    if (n < r.len) {
      if (http_parts_push(&s->parts, r.at + n, r.len - n) < 0)
        return -ENOMEM;
      r.len = n;
    }
  }
  *ret = r;
  return 0;
}

static int run(struct split *s) {
  while (s->parts.depth > 0) {
    struct http_part r;
    if (next_piece(s, &r) < 0)
      return -ENOMEM;
    struct store_answer a;
    s->try_piece(s->ctx, s->body + r.at, r.len, &a);
    s->out->requests++;
    int go_on = settle(s, r, &a);
    if (go_on <= 0)
      return go_on;
  }
  return 0;
}

int http_split_send(const char *body, size_t len, size_t *cap,
                    http_split_try try_piece, void *ctx,
                    struct http_split_outcome *ret) {
  *ret = (struct http_split_outcome){.verdict = STORE_TAKEN};
  struct split s = {.body = body,
                    .len = len,
                    .cap = cap,
                    .try_piece = try_piece,
                    .ctx = ctx,
                    .out = ret};
  int r = http_parts_push(&s.parts, 0, len);
  if (r == 0)
    r = run(&s);
  free(s.parts.stack);
  if (r < 0) {
    free(ret->skip);
    ret->skip = NULL;
    ret->skips = 0;
    return r;
  }
  /* What is kept is a size that passed, not half of one that did not:
   * the store's limit may lie below the cap, which no piece happened to
   * reach. */
  if (r == 0 && ret->cap_lowered && s.passed > 0 && s.passed < *cap)
    *cap = s.passed;
  if (ret->verdict != STORE_TAKEN) {
    /* Nothing of a failed batch counts: it goes again whole. */
    memset(ret->dropped, 0, sizeof(ret->dropped));
    free(ret->skip);
    ret->skip = NULL;
    ret->skips = 0;
  }
  return 0;
}

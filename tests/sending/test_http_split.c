/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/sending/http_split.c, the delivery of one batch of lines
 * whatever the store answers.  A fake store answers each piece with the
 * real bodies of InfluxDB and nginx (read by store_answer.c): 413 above a
 * size, 400 naming a line it cannot parse, partial writes for lines past
 * retention or of a conflicting type, 401 or 503 from some request on.  It
 * records every piece and the cap in force when it came, so the tests
 * assert the exact pieces in order, the cap learned, the lines skipped and
 * why, the refusal of a target that takes no line at all, and that a
 * failed batch leaves nothing counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "http_split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW ((time_t)1733392800)
#define PIECES_MAX 128
#define LINE_LEN 10 /* "m%02d v=100\n" */

#define NGINX_413                                                              \
  "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n"     \
  "<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n"       \
  "<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n"

struct piece {
  size_t offset, len, lines, cap; /* cap: *cap when it was sent */
};

struct fake_store {
  /* What it does. */
  const char *base;         /* the batch: pieces are told by offset */
  const size_t *cap;        /* the caller's cap, to record */
  size_t max_bytes;         /* a longer piece: 413 (0: no limit) */
  const char *const *bad;   /* lines it cannot parse (NULL-ended) */
  const char *const *old;   /* lines past retention: dropped */
  const char *const *clash; /* lines of a conflicting field type */
  size_t fail_at;           /* this request (from 1) and later ones... */
  long fail_status;         /* ...answered so (401 or 503) */
  /* What it saw. */
  size_t pieces;
  struct piece piece[PIECES_MAX];
};

static bool listed(const char *const *list, const char *line, size_t len) {
  for (; list != NULL && *list != NULL; list++)
    if (strlen(*list) == len && memcmp(*list, line, len) == 0)
      return true;
  return false;
}

/* The lines of a piece, counted here without http_split_lines. */
static size_t count_lines(const char *text, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += text[i] == '\n';
  return n + (len > 0 && text[len - 1] != '\n');
}

static void fake_try(void *ctx, const char *body, size_t len,
                     struct store_answer *ret) {
  struct fake_store *f = ctx;
  assert_true(f->pieces < PIECES_MAX);
  assert_true(body >= f->base);
  f->piece[f->pieces++] = (struct piece){(size_t)(body - f->base), len,
                                         count_lines(body, len), *f->cap};
  char text[256];
  const char *retry = NULL;
  long status = 204;
  text[0] = '\0';
  if (f->fail_at > 0 && f->pieces >= f->fail_at) {
    status = f->fail_status;
    if (status == 503) {
      snprintf(text, sizeof(text), "Service Unavailable\n");
      retry = "7";
    } else {
      snprintf(text, sizeof(text),
               "{\"code\":\"unauthorized\",\"message\":\"unauthorized "
               "access\"}");
    }
    store_answer_read(status, text, strlen(text), retry, NOW, ret);
    return;
  }
  if (f->max_bytes > 0 && len > f->max_bytes) {
    store_answer_read(413, NGINX_413, strlen(NGINX_413), NULL, NOW, ret);
    return;
  }
  size_t old = 0, clash = 0;
  for (const char *p = body, *end = body + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
    if (listed(f->bad, p, n)) {
      /* InfluxDB 2.x: the first line it cannot parse, nothing written */
      snprintf(text, sizeof(text),
               "{\"code\":\"invalid\",\"message\":\"unable to parse '%.*s': "
               "invalid field format\"}",
               (int)n, p);
      store_answer_read(400, text, strlen(text), NULL, NOW, ret);
      return;
    }
    old += listed(f->old, p, n);
    clash += listed(f->clash, p, n);
    p += n + (nl != NULL);
  }
  if (old > 0) {
    status = 400;
    snprintf(text, sizeof(text),
             "{\"error\":\"partial write: points beyond retention policy "
             "dropped=%zu\"}",
             old);
  } else if (clash > 0) {
    status = 400;
    snprintf(text, sizeof(text),
             "{\"error\":\"partial write: field type conflict: input field "
             "\\\"v\\\" on measurement \\\"m\\\" is type float, already "
             "exists as type integer dropped=%zu\"}",
             clash);
  }
  store_answer_read(status, text, strlen(text), NULL, NOW, ret);
}

/* n lines "m00 v=100\n" .. of LINE_LEN bytes each, into a malloc'ed
 * batch. */
static char *make_batch(size_t n) {
  char *b = malloc(n * LINE_LEN + 1);
  assert_non_null(b);
  for (size_t i = 0; i < n; i++)
    snprintf(b + i * LINE_LEN, LINE_LEN + 1, "m%02u v=100\n",
             (unsigned)(i % 100));
  return b;
}

static void check_pieces(const struct fake_store *f, const struct piece *want,
                         size_t n) {
  for (size_t i = 0; i < n && i < f->pieces; i++) {
    assert_int_equal(f->piece[i].offset, want[i].offset);
    assert_int_equal(f->piece[i].len, want[i].len);
    assert_int_equal(f->piece[i].lines, want[i].lines);
    assert_int_equal(f->piece[i].cap, want[i].cap);
  }
  assert_int_equal(f->pieces, n);
}

/* A skip as the test expects it: where, how long, why. */
struct want_skip {
  size_t offset, len;
  enum store_verdict why;
};

static void check_skips(const struct http_split_outcome *o,
                        const struct want_skip *want, size_t n) {
  assert_int_equal(o->skips, n);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(o->skip[i].offset, want[i].offset);
    assert_int_equal(o->skip[i].len, want[i].len);
    assert_int_equal(o->skip[i].why, want[i].why);
    /* what the store said of that very line */
    assert_true(o->skip[i].words[0] != '\0');
  }
}

static void check_nothing_dropped(const struct http_split_outcome *o) {
  for (size_t r = 0; r < STORE_REASONS; r++)
    assert_int_equal(o->dropped[r], 0);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_lines(void **state) {
  (void)state;
  assert_int_equal(http_split_lines("", 0), 0);
  assert_int_equal(http_split_lines("a", 1), 1);
  assert_int_equal(http_split_lines("a\n", 2), 1);
  assert_int_equal(http_split_lines("a\nb", 3), 2);
  assert_int_equal(http_split_lines("a\nb\n", 4), 2);
  assert_int_equal(http_split_lines("\n", 1), 1);
  assert_int_equal(http_split_lines("\n\n", 2), 2);
  assert_int_equal(http_split_lines("a\n\nb", 4), 3);
  /* Only len bytes are read. */
  assert_int_equal(http_split_lines("a\nb\nc\n", 3), 2);
  char *b = make_batch(100);
  assert_int_equal(http_split_lines(b, 100 * LINE_LEN), 100);
  free(b);
}

static void test_all_taken(void **state) {
  (void)state;
  char *b = make_batch(100);
  size_t cap = 0;
  struct fake_store f = {.base = b, .cap = &cap};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 1000, &cap, fake_try, &f, &o), 0);
  check_pieces(&f, (struct piece[]){{0, 1000, 100, 0}}, 1);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.requests, 1);
  assert_int_equal(o.lines_taken, 100);
  assert_int_equal(o.partial.status, 0);
  assert_int_equal(o.answer.status, 0);
  assert_int_equal(cap, 0);
  assert_false(o.cap_lowered);
  assert_null(o.skip);
  assert_int_equal(o.skips, 0);
  check_nothing_dropped(&o);
  free(b);
}

/* 100 lines of 10 bytes, a store that takes 256 bytes: halved to 500,
 * then 250, and every piece after that at most 250 bytes. */
static void test_cap_learned(void **state) {
  (void)state;
  char *b = make_batch(100);
  size_t cap = 0;
  struct fake_store f = {.base = b, .cap = &cap, .max_bytes = 256};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 1000, &cap, fake_try, &f, &o), 0);
  static const struct piece want[] = {
      {0, 1000, 100, 0},   {0, 500, 50, 500},   {0, 250, 25, 250},
      {250, 250, 25, 250}, {500, 250, 25, 250}, {750, 250, 25, 250},
  };
  check_pieces(&f, want, COUNT(want));
  assert_int_equal(cap, 250);
  assert_true(o.cap_lowered);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.requests, 6);
  assert_int_equal(o.lines_taken, 100);
  assert_int_equal(o.skips, 0);
  assert_null(o.skip);
  assert_int_equal(o.answer.verdict, STORE_TOO_LARGE);
  assert_string_equal(o.answer.words, "413 Request Entity Too Large");
  check_nothing_dropped(&o);

  /* The next batch starts from the cap learned: no 413 at all. */
  f.pieces = 0;
  assert_int_equal(http_split_send(b, 1000, &cap, fake_try, &f, &o), 0);
  static const struct piece again[] = {
      {0, 250, 25, 250},
      {250, 250, 25, 250},
      {500, 250, 25, 250},
      {750, 250, 25, 250},
  };
  check_pieces(&f, again, COUNT(again));
  assert_int_equal(cap, 250);
  assert_false(o.cap_lowered);
  assert_int_equal(o.requests, 4);
  assert_int_equal(o.lines_taken, 100);
  assert_int_equal(o.answer.status, 0);
  free(b);
}

/* A cap known before: pieces of at most cap bytes, cut at line ends; a
 * cap below one line sends the lines one by one. */
static void test_preset_cap(void **state) {
  (void)state;
  char *b = make_batch(100);
  size_t cap = 95;
  struct fake_store f = {.base = b, .cap = &cap};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 1000, &cap, fake_try, &f, &o), 0);
  struct piece want[12];
  for (size_t i = 0; i < 11; i++)
    want[i] = (struct piece){i * 90, 90, 9, 95};
  want[11] = (struct piece){990, 10, 1, 95};
  check_pieces(&f, want, COUNT(want));
  for (size_t i = 0; i < f.pieces; i++)
    assert_int_equal(b[f.piece[i].offset + f.piece[i].len - 1], '\n');
  assert_int_equal(cap, 95);
  assert_false(o.cap_lowered);
  assert_int_equal(o.requests, 12);
  assert_int_equal(o.lines_taken, 100);

  cap = 5;
  f.pieces = 0;
  assert_int_equal(http_split_send(b, 30, &cap, fake_try, &f, &o), 0);
  static const struct piece one_by_one[] = {
      {0, 10, 1, 5}, {10, 10, 1, 5}, {20, 10, 1, 5}};
  check_pieces(&f, one_by_one, COUNT(one_by_one));
  assert_int_equal(cap, 5);
  assert_int_equal(o.lines_taken, 3);
  free(b);
}

/* One line it cannot parse in the middle: found by halves, skipped alone,
 * every other line taken. */
static void test_one_bad_line(void **state) {
  (void)state;
  char *b = make_batch(100);
  size_t cap = 0;
  static const char *const bad[] = {"m37 v=100", NULL};
  struct fake_store f = {.base = b, .cap = &cap, .bad = bad};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 1000, &cap, fake_try, &f, &o), 0);
  static const struct piece want[] = {
      {0, 1000, 100, 0}, {0, 500, 50, 0},   {0, 250, 25, 0}, {250, 250, 25, 0},
      {250, 120, 12, 0}, {370, 130, 13, 0}, {370, 60, 6, 0}, {370, 30, 3, 0},
      {370, 10, 1, 0},   {380, 20, 2, 0},   {400, 30, 3, 0}, {430, 70, 7, 0},
      {500, 500, 50, 0},
  };
  check_pieces(&f, want, COUNT(want));
  check_skips(&o, (struct want_skip[]){{370, 10, STORE_BAD_LINE}}, 1);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.requests, 13);
  assert_int_equal(o.lines_taken, 99);
  assert_int_equal(cap, 0);
  assert_false(o.cap_lowered);
  assert_int_equal(o.answer.verdict, STORE_BAD_LINE);
  assert_string_equal(o.answer.words,
                      "unable to parse 'm37 v=100': invalid field format");
  check_nothing_dropped(&o);
  free(o.skip);
  free(b);
}

static void test_two_bad_lines(void **state) {
  (void)state;
  char *b = make_batch(100);
  size_t cap = 0;
  static const char *const bad[] = {"m10 v=100", "m90 v=100", NULL};
  struct fake_store f = {.base = b, .cap = &cap, .bad = bad};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 1000, &cap, fake_try, &f, &o), 0);
  static const struct piece want[] = {
      {0, 1000, 100, 0}, {0, 500, 50, 0},   {0, 250, 25, 0},
      {0, 120, 12, 0},   {0, 60, 6, 0},     {60, 60, 6, 0},
      {60, 30, 3, 0},    {90, 30, 3, 0},    {90, 10, 1, 0},
      {100, 20, 2, 0},   {100, 10, 1, 0},   {110, 10, 1, 0},
      {120, 130, 13, 0}, {250, 250, 25, 0}, {500, 500, 50, 0},
      {500, 250, 25, 0}, {750, 250, 25, 0}, {750, 120, 12, 0},
      {870, 130, 13, 0}, {870, 60, 6, 0},   {870, 30, 3, 0},
      {900, 30, 3, 0},   {900, 10, 1, 0},   {910, 20, 2, 0},
      {930, 70, 7, 0},
  };
  check_pieces(&f, want, COUNT(want));
  check_skips(&o,
              (struct want_skip[]){{100, 10, STORE_BAD_LINE},
                                   {900, 10, STORE_BAD_LINE}},
              2);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.requests, 25);
  assert_int_equal(o.lines_taken, 98);
  assert_string_equal(o.answer.words,
                      "unable to parse 'm90 v=100': invalid field format");
  free(o.skip);
  free(b);
}

/* A line longer than the store takes, between short ones: skipped alone
 * as too large, the cap lowered by the pieces that held it. */
static void test_line_too_large(void **state) {
  (void)state;
  char b[300];
  for (size_t i = 0; i < 5; i++)
    snprintf(b + i * LINE_LEN, LINE_LEN + 1, "m%02zu v=100\n", i);
  memset(b + 50, 'x', 199);
  b[249] = '\n';
  for (size_t i = 5; i < 10; i++)
    memcpy(b + 200 + i * LINE_LEN, "mNN v=100\n", LINE_LEN);
  size_t cap = 0;
  struct fake_store f = {.base = b, .cap = &cap, .max_bytes = 100};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, sizeof(b), &cap, fake_try, &f, &o), 0);
  static const struct piece want[] = {
      {0, 300, 11, 0}, {0, 50, 5, 150}, {50, 200, 1, 150}, {250, 50, 5, 150}};
  check_pieces(&f, want, COUNT(want));
  check_skips(&o, (struct want_skip[]){{50, 200, STORE_TOO_LARGE}}, 1);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.requests, 4);
  assert_int_equal(o.lines_taken, 10);
  /* the size kept is the largest that passed (50), not half of one that
   * did not (150, above the store's 100) */
  assert_int_equal(cap, 50);
  assert_true(o.cap_lowered);
  assert_int_equal(o.answer.verdict, STORE_TOO_LARGE);
  free(o.skip);
}

/* Every line refused alone, none taken: HTTP_SPLIT_SYSTEMATIC of them
 * make the target refused, with nothing skipped. */
static void test_systematic(void **state) {
  (void)state;
  char *b = make_batch(20);
  char lines[20][16];
  const char *every[21];
  for (size_t i = 0; i < 20; i++) {
    snprintf(lines[i], sizeof(lines[i]), "m%02zu v=100", i);
    every[i] = lines[i];
  }
  every[20] = NULL;
  size_t cap = 0;
  struct fake_store f = {.base = b, .cap = &cap, .bad = every};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 200, &cap, fake_try, &f, &o), 0);
  static const struct piece want[] = {
      {0, 200, 20, 0}, {0, 100, 10, 0}, {0, 50, 5, 0},  {0, 20, 2, 0},
      {0, 10, 1, 0},   {10, 10, 1, 0},  {20, 30, 3, 0}, {20, 10, 1, 0},
      {30, 20, 2, 0},  {30, 10, 1, 0},  {40, 10, 1, 0}, {50, 50, 5, 0},
      {50, 20, 2, 0},  {50, 10, 1, 0},  {60, 10, 1, 0}, {70, 30, 3, 0},
      {70, 10, 1, 0},  {190, 10, 1, 0}, /* the last line, tried alone */
  };
  check_pieces(&f, want, COUNT(want));
  assert_int_equal(HTTP_SPLIT_SYSTEMATIC, 8); /* skips at 0, 10, .. 70 */
  assert_int_equal(o.verdict, STORE_REFUSED);
  assert_int_equal(o.requests, 18);
  assert_int_equal(o.lines_taken, 0);
  assert_int_equal(o.skips, 0);
  assert_null(o.skip);
  assert_int_equal(o.answer.verdict, STORE_REFUSED);
  assert_int_equal(o.answer.status, 400);
  assert_string_equal(o.answer.fix, "the store refuses every line: check the "
                                    "URL's precision= and --format");
  assert_string_equal(o.answer.words,
                      "unable to parse 'm07 v=100': invalid field format");
  check_nothing_dropped(&o);

  /* Seven bad lines first, then good ones: the rows' fault, skipped. */
  every[7] = NULL;
  f.pieces = 0;
  assert_int_equal(http_split_send(b, 200, &cap, fake_try, &f, &o), 0);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(f.pieces, 17);
  assert_int_equal(o.requests, 17);
  assert_int_equal(f.piece[15].offset, 70);
  assert_int_equal(f.piece[15].len, 30);
  assert_int_equal(f.piece[16].offset, 100);
  assert_int_equal(f.piece[16].len, 100);
  assert_int_equal(o.lines_taken, 13);
  struct want_skip seven[7];
  for (size_t i = 0; i < 7; i++)
    seven[i] = (struct want_skip){i * 10, 10, STORE_BAD_LINE};
  check_skips(&o, seven, 7);
  free(o.skip);

  /* Eight bad lines first: the last line, tried alone, passes, so the
   * rows are at fault, not the target: skipped, the rest taken (the
   * last line twice: one point to the store). */
  every[7] = lines[7];
  every[8] = NULL;
  f.pieces = 0;
  assert_int_equal(http_split_send(b, 200, &cap, fake_try, &f, &o), 0);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(f.piece[17].offset, 190); /* the probe, after m07 */
  assert_int_equal(f.piece[17].len, 10);
  assert_int_equal(o.lines_taken, 13);
  struct want_skip eight[8];
  for (size_t i = 0; i < 8; i++)
    eight[i] = (struct want_skip){i * 10, 10, STORE_BAD_LINE};
  check_skips(&o, eight, 8);
  free(o.skip);
  every[8] = lines[8];

  /* One line taken first: never the target's fault, 19 lines skipped. */
  every[0] = lines[19]; /* m00 no longer listed, m19 twice */
  f.pieces = 0;
  assert_int_equal(http_split_send(b, 200, &cap, fake_try, &f, &o), 0);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.requests, 39);
  assert_int_equal(o.lines_taken, 1);
  struct want_skip nineteen[19];
  for (size_t i = 0; i < 19; i++)
    nineteen[i] = (struct want_skip){(i + 1) * 10, 10, STORE_BAD_LINE};
  check_skips(&o, nineteen, 19);
  free(o.skip);
  free(b);
}

/* No line fits the store's limit alone: refused, with the limit's fix. */
static void test_systematic_too_large(void **state) {
  (void)state;
  char b[500];
  for (size_t i = 0; i < 10; i++) {
    memset(b + i * 50, 'x', 49);
    b[i * 50 + 49] = '\n';
  }
  size_t cap = 0;
  struct fake_store f = {.base = b, .cap = &cap, .max_bytes = 40};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, sizeof(b), &cap, fake_try, &f, &o), 0);
  static const struct piece want[] = {
      {0, 500, 10, 0},  {0, 250, 5, 250},
      {0, 100, 2, 125}, {0, 50, 1, 50},
      {50, 50, 1, 50},  {100, 50, 1, 50},
      {150, 50, 1, 50}, {200, 50, 1, 50},
      {250, 50, 1, 50}, {300, 50, 1, 50},
      {350, 50, 1, 50}, {450, 50, 1, 50}, /* the last line, tried alone */
  };
  check_pieces(&f, want, COUNT(want));
  assert_int_equal(o.verdict, STORE_REFUSED);
  assert_int_equal(o.requests, 12);
  assert_int_equal(cap, 50);
  assert_true(o.cap_lowered);
  assert_int_equal(o.skips, 0);
  assert_null(o.skip);
  assert_int_equal(o.answer.verdict, STORE_REFUSED);
  assert_int_equal(o.answer.status, 413);
  assert_string_equal(o.answer.fix,
                      "the store takes no line of it alone: raise the limit "
                      "of the store or of the proxy in front of it");
}

/* A refusal or an absence after lines were skipped and dropped: the
 * batch is not settled, and nothing of it counts. */
static void fail_in_the_middle(long status) {
  char *b = make_batch(100);
  size_t cap = 0;
  static const char *const bad[] = {"m37 v=100", NULL};
  static const char *const old[] = {"m00 v=100", "m01 v=100", NULL};
  struct fake_store f = {.base = b,
                         .cap = &cap,
                         .bad = bad,
                         .old = old,
                         .fail_at = 10, /* after the skip of m37 */
                         .fail_status = status};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 1000, &cap, fake_try, &f, &o), 0);
  assert_int_equal(f.pieces, 10);
  assert_int_equal(f.piece[2].offset, 0); /* the partial write */
  assert_int_equal(f.piece[2].len, 250);
  assert_int_equal(f.piece[8].offset, 370); /* m37 alone */
  assert_int_equal(f.piece[8].len, 10);
  assert_int_equal(f.piece[9].offset, 380);
  assert_int_equal(o.requests, 10);
  assert_int_equal(o.answer.status, status);
  assert_int_equal(o.skips, 0);
  assert_null(o.skip);
  check_nothing_dropped(&o);
  if (status == 503) {
    assert_int_equal(o.verdict, STORE_AWAY);
    assert_int_equal(o.answer.verdict, STORE_AWAY);
    assert_int_equal(o.answer.retry_after, 7);
    assert_null(o.answer.fix);
    assert_string_equal(o.answer.words, "Service Unavailable");
  } else {
    assert_int_equal(o.verdict, STORE_REFUSED);
    assert_int_equal(o.answer.verdict, STORE_REFUSED);
    assert_int_equal(o.answer.retry_after, 0);
    assert_non_null(o.answer.fix);
    assert_string_equal(o.answer.words, "unauthorized access");
  }
  free(b);
}

static void test_refused_in_the_middle(void **state) {
  (void)state;
  fail_in_the_middle(401);
}

static void test_away_in_the_middle(void **state) {
  (void)state;
  fail_in_the_middle(503);
}

static void test_refused_at_once(void **state) {
  (void)state;
  char *b = make_batch(10);
  size_t cap = 0;
  struct fake_store f = {
      .base = b, .cap = &cap, .fail_at = 1, .fail_status = 401};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 100, &cap, fake_try, &f, &o), 0);
  check_pieces(&f, (struct piece[]){{0, 100, 10, 0}}, 1);
  assert_int_equal(o.verdict, STORE_REFUSED);
  assert_int_equal(o.requests, 1);
  assert_int_equal(o.answer.status, 401);
  free(b);
}

/* Partial writes in three pieces: their drops summed by reason, the
 * latest one kept. */
static void test_partial_sums(void **state) {
  (void)state;
  char *b = make_batch(30);
  size_t cap = 100;
  static const char *const old[] = {"m00 v=100", "m05 v=100", "m25 v=100",
                                    NULL};
  static const char *const clash[] = {"m12 v=100", "m13 v=100", "m14 v=100",
                                      NULL};
  struct fake_store f = {.base = b, .cap = &cap, .old = old, .clash = clash};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, 300, &cap, fake_try, &f, &o), 0);
  static const struct piece want[] = {
      {0, 100, 10, 100}, {100, 100, 10, 100}, {200, 100, 10, 100}};
  check_pieces(&f, want, COUNT(want));
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.requests, 3);
  assert_int_equal(o.lines_taken, 30);
  assert_int_equal(o.dropped[STORE_REASON_RETENTION], 3);
  assert_int_equal(o.dropped[STORE_REASON_TYPE_CONFLICT], 3);
  assert_int_equal(o.dropped[STORE_REASON_LIMIT], 0);
  assert_int_equal(o.dropped[STORE_REASON_UNPARSABLE], 0);
  assert_int_equal(o.dropped[STORE_REASON_OTHER], 0);
  assert_int_equal(o.partial.status, 400);
  assert_int_equal(o.partial.verdict, STORE_PARTIAL);
  assert_int_equal(o.partial.reason, STORE_REASON_RETENTION);
  assert_int_equal(o.partial.dropped, 1);
  assert_string_equal(o.partial.words,
                      "partial write: points beyond retention policy "
                      "dropped=1");
  assert_int_equal(o.skips, 0);
  assert_null(o.skip);
  free(b);
}

/* The last line without '\n' is a line: halved to, skipped with its
 * exact length, and a cap cuts before it. */
static void test_no_last_newline(void **state) {
  (void)state;
  static const char b[] = "a v=1\nb v=2\nc v=3";
  size_t cap = 0;
  static const char *const bad[] = {"c v=3", NULL};
  struct fake_store f = {.base = b, .cap = &cap, .bad = bad};
  struct http_split_outcome o;
  assert_int_equal(http_split_send(b, sizeof(b) - 1, &cap, fake_try, &f, &o),
                   0);
  static const struct piece want[] = {
      {0, 17, 3, 0}, {0, 6, 1, 0}, {6, 11, 2, 0}, {6, 6, 1, 0}, {12, 5, 1, 0}};
  check_pieces(&f, want, COUNT(want));
  check_skips(&o, (struct want_skip[]){{12, 5, STORE_BAD_LINE}}, 1);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.lines_taken, 2);
  free(o.skip);

  cap = 8;
  f.bad = NULL;
  f.pieces = 0;
  assert_int_equal(http_split_send(b, sizeof(b) - 1, &cap, fake_try, &f, &o),
                   0);
  static const struct piece capped[] = {
      {0, 6, 1, 8}, {6, 6, 1, 8}, {12, 5, 1, 8}};
  check_pieces(&f, capped, COUNT(capped));
  assert_int_equal(o.lines_taken, 3);
  assert_int_equal(o.skips, 0);
}

static void test_empty_batch(void **state) {
  (void)state;
  size_t cap = 0;
  struct fake_store f = {.base = "", .cap = &cap};
  struct http_split_outcome o;
  memset(&o, 0x5a, sizeof(o));
  assert_int_equal(http_split_send("", 0, &cap, fake_try, &f, &o), 0);
  assert_int_equal(f.pieces, 0);
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.requests, 0);
  assert_int_equal(o.lines_taken, 0);
  assert_int_equal(o.skips, 0);
  assert_null(o.skip);
  assert_false(o.cap_lowered);
  assert_int_equal(cap, 0);
  check_nothing_dropped(&o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lines),
      cmocka_unit_test(test_all_taken),
      cmocka_unit_test(test_cap_learned),
      cmocka_unit_test(test_preset_cap),
      cmocka_unit_test(test_one_bad_line),
      cmocka_unit_test(test_two_bad_lines),
      cmocka_unit_test(test_line_too_large),
      cmocka_unit_test(test_systematic),
      cmocka_unit_test(test_systematic_too_large),
      cmocka_unit_test(test_refused_in_the_middle),
      cmocka_unit_test(test_away_in_the_middle),
      cmocka_unit_test(test_refused_at_once),
      cmocka_unit_test(test_partial_sums),
      cmocka_unit_test(test_no_last_newline),
      cmocka_unit_test(test_empty_batch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

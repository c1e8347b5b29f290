/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/sending/http_whole.c, the delivery of one remote write
 * message whatever the store answers.  The message is n units of 100
 * bytes and 10 samples each, every body naming its run of units; a fake
 * store answers with Prometheus' own words: 400 "out of bounds" to any
 * part holding a unit it refuses (it rolls back the whole request), 413
 * above a size, 503 from some request on.  It records every part, so the
 * tests assert the exact parts in order, the samples taken and refused by
 * reason, the cap learned, and that a failed message counts nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "http_whole.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW ((time_t)1733392800)
#define PARTS_MAX 128
#define UNIT_BYTES 100
#define UNIT_SAMPLES 10

struct fake_store {
  size_t units;
  bool refuse[64];  /* units whose samples it refuses */
  size_t max_bytes; /* a longer body: 413 (0: no limit) */
  size_t away_at;   /* this request (from 1) on: 503 (0: never) */
  size_t parts;
  size_t from[PARTS_MAX], to[PARTS_MAX];
};

static int fake_encode(void *data, size_t from, size_t to, char **body,
                       size_t *len, size_t *samples) {
  struct fake_store *f = data;
  assert_true(from < to && to <= f->units);
  *len = (to - from) * UNIT_BYTES;
  *body = calloc(1, *len);
  assert_non_null(*body);
  snprintf(*body, *len, "%zu %zu", from, to);
  *samples = (to - from) * UNIT_SAMPLES;
  return 0;
}

static void answer(long status, const char *text, struct store_answer *ret) {
  store_answer_read(status, text, strlen(text), NULL, NOW, ret);
}

static void fake_try(void *ctx, const char *body, size_t len,
                     struct store_answer *ret) {
  struct fake_store *f = ctx;
  size_t from, to;
  assert_true(f->parts < PARTS_MAX);
  assert_int_equal(sscanf(body, "%zu %zu", &from, &to), 2);
  f->from[f->parts] = from;
  f->to[f->parts++] = to;
  bool refused = false;
  for (size_t u = from; u < to; u++)
    refused |= f->refuse[u];
  if (f->away_at > 0 && f->parts >= f->away_at)
    answer(503, "Service Unavailable\n", ret);
  else if (f->max_bytes > 0 && len > f->max_bytes)
    answer(413, "request too large\n", ret);
  else if (refused)
    answer(400, "out of bounds\n", ret);
  else
    answer(204, "", ret);
}

static void send(struct fake_store *f, size_t *cap,
                 struct http_whole_outcome *o) {
  struct http_message m = {.data = f, .units = f->units, .encode = fake_encode};
  assert_int_equal(http_whole_send(&m, cap, fake_try, f, o), 0);
  assert_int_equal(o->requests, f->parts);
}

/* The parts the store saw, "from-to" each. */
static void assert_parts(const struct fake_store *f, const char *want) {
  char got[1024] = "";
  size_t n = 0;
  for (size_t i = 0; i < f->parts; i++)
    n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%zu-%zu", i ? " " : "",
                          f->from[i], f->to[i]);
  assert_string_equal(got, want);
}

/* One unit refused among 16: halves down to it, 1 + 2 log2(16) parts,
 * every other unit taken once. */
static void test_one_unit_refused(void **state) {
  (void)state;
  struct fake_store f = {.units = 16};
  f.refuse[5] = true;
  size_t cap = 0;
  struct http_whole_outcome o;
  send(&f, &cap, &o);
  assert_parts(&f, "0-16 0-8 0-4 4-8 4-6 4-5 5-6 6-8 8-16");
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.samples, 15 * UNIT_SAMPLES);
  assert_int_equal(o.bytes, 15 * UNIT_BYTES);
  assert_int_equal(o.refused, UNIT_SAMPLES);
  assert_int_equal(o.refused_by[STORE_REFUSAL_TOO_OLD], UNIT_SAMPLES);
  assert_string_equal(o.refused_words, "out of bounds");
  assert_int_equal(cap, 0);
  assert_int_equal(o.skips, 1);
  assert_int_equal(o.skip[0].unit, 5);
  assert_int_equal(o.skip[0].units, 1);
  assert_int_equal(o.skip[0].samples, UNIT_SAMPLES);
  assert_string_equal(o.skip[0].words, "out of bounds");
  free(o.skip);
}

/* Everything refused: eight units alone, then the rest as one part,
 * skipped whole; every sample counted once. */
static void test_all_refused(void **state) {
  (void)state;
  struct fake_store f = {.units = 32};
  for (size_t u = 0; u < 32; u++)
    f.refuse[u] = true;
  size_t cap = 0;
  struct http_whole_outcome o;
  send(&f, &cap, &o);
  assert_parts(&f, "0-32 0-16 0-8 0-4 0-2 0-1 1-2 2-4 2-3 3-4 4-8 4-6 4-5 "
                   "5-6 6-8 6-7 7-8 8-32");
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_int_equal(o.samples, 0);
  assert_int_equal(o.refused_by[STORE_REFUSAL_TOO_OLD], 32 * UNIT_SAMPLES);
  assert_int_equal(o.skips, 9);
  for (size_t i = 0; i < 8; i++)
    assert_int_equal(o.skip[i].unit, i);
  assert_int_equal(o.skip[8].unit, 8);
  assert_int_equal(o.skip[8].units, 24);
  assert_int_equal(o.skip[8].samples, 24 * UNIT_SAMPLES);
  free(o.skip);
}

/* A 413: halves, the cap lowered to half the body refused, a part above
 * it halved before it goes, the size that passed kept. */
static void test_too_large(void **state) {
  (void)state;
  struct fake_store f = {.units = 16, .max_bytes = 450};
  size_t cap = 0;
  struct http_whole_outcome o;
  send(&f, &cap, &o);
  assert_parts(&f, "0-16 0-8 0-4 4-8 8-12 12-16");
  assert_int_equal(o.verdict, STORE_TAKEN);
  assert_true(o.cap_lowered);
  assert_int_equal(cap, 400);
  assert_int_equal(o.samples, 16 * UNIT_SAMPLES);
  assert_int_equal(o.refused, 0);
}

/* A single unit still too large: the target's refusal, nothing counted. */
static void test_unit_too_large(void **state) {
  (void)state;
  struct fake_store f = {.units = 2, .max_bytes = 50};
  size_t cap = 0;
  struct http_whole_outcome o;
  send(&f, &cap, &o);
  assert_parts(&f, "0-2 0-1");
  assert_int_equal(o.verdict, STORE_REFUSED);
  assert_int_equal(o.answer.status, 413);
  assert_non_null(strstr(o.answer.fix, "--batch-bytes"));
  assert_int_equal(o.samples, 0);
}

/* Away in the middle: the message fails, what was taken counts nothing
 * (it goes again whole). */
static void test_away_in_the_middle(void **state) {
  (void)state;
  struct fake_store f = {.units = 8, .away_at = 4};
  f.refuse[7] = true;
  size_t cap = 0;
  struct http_whole_outcome o;
  send(&f, &cap, &o);
  assert_parts(&f, "0-8 0-4 4-8 4-6");
  assert_int_equal(o.verdict, STORE_AWAY);
  assert_int_equal(o.answer.status, 503);
  assert_int_equal(o.samples, 0);
  assert_int_equal(o.refused, 0);
  assert_null(o.skip);
}

static void test_refuses_samples(void **state) {
  (void)state;
  assert_true(http_whole_refuses_samples(400));
  assert_true(http_whole_refuses_samples(422));
  assert_false(http_whole_refuses_samples(401));
  assert_false(http_whole_refuses_samples(413));
  assert_false(http_whole_refuses_samples(429));
  assert_false(http_whole_refuses_samples(500));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_unit_refused),
      cmocka_unit_test(test_all_refused),
      cmocka_unit_test(test_too_large),
      cmocka_unit_test(test_unit_too_large),
      cmocka_unit_test(test_away_in_the_middle),
      cmocka_unit_test(test_refuses_samples),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

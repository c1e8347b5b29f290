/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_guard.c on a clock the test sets: four wrong
 * tokens pass, the fifth blocks its address for exactly SERVE_GUARD_BLOCK
 * seconds (Retry-After counting down) while another address is answered;
 * failures spread wider than the window never block; the 429s of a block
 * are logged once after it; an IPv6 client is its /64, an IPv4-mapped one
 * its whole address; a full table forgets the quiet before the blocked,
 * and the blocked when nothing else is left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_guard.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <netinet/in.h>
#include <string.h>

#define T0 1000

/* An address as the struct libmicrohttpd gives. */
struct addr {
  struct sockaddr_storage ss;
};

static const struct sockaddr *ip(struct addr *a, const char *text) {
  memset(a, 0, sizeof(*a));
  if (strchr(text, ':') != NULL) {
    struct sockaddr_in6 *s = (struct sockaddr_in6 *)&a->ss;
    s->sin6_family = AF_INET6;
    assert_int_equal(inet_pton(AF_INET6, text, &s->sin6_addr), 1);
  } else {
    struct sockaddr_in *s = (struct sockaddr_in *)&a->ss;
    s->sin_family = AF_INET;
    assert_int_equal(inet_pton(AF_INET, text, &s->sin_addr), 1);
  }
  return (const struct sockaddr *)&a->ss;
}

static struct serve_guard_verdict check(struct serve_guard *g, const char *who,
                                        int64_t now) {
  struct addr a;
  return serve_guard_check(g, ip(&a, who), now);
}

static struct serve_guard_failure wrong(struct serve_guard *g, const char *who,
                                        int64_t now) {
  struct addr a;
  return serve_guard_failed(g, ip(&a, who), now);
}

/* LIMIT wrong tokens at now, each checked first as the server does. */
static void guess(struct serve_guard *g, const char *who, int64_t now) {
  for (unsigned i = 1; i <= SERVE_GUARD_LIMIT; i++) {
    assert_false(check(g, who, now).blocked);
    struct serve_guard_failure f = wrong(g, who, now);
    assert_int_equal(f.failures, i);
    assert_int_equal(f.blocked_now, i == SERVE_GUARD_LIMIT);
  }
}

static void test_five_block_for_the_window(void **state) {
  (void)state;
  struct serve_guard *g = serve_guard_new(SERVE_GUARD_SLOTS, 1);
  assert_non_null(g);
  guess(g, "192.0.2.1", T0);
  struct serve_guard_verdict v = check(g, "192.0.2.1", T0);
  assert_true(v.blocked);
  assert_int_equal(v.retry_after, SERVE_GUARD_BLOCK);
  v = check(g, "192.0.2.1", T0 + SERVE_GUARD_BLOCK - 1);
  assert_true(v.blocked);
  assert_int_equal(v.retry_after, 1);
  /* another address, even the next one, is answered as usual */
  assert_false(check(g, "192.0.2.2", T0 + 1).blocked);
  assert_false(check(g, "198.51.100.1", T0 + 1).blocked);
  /* the block is over: logged once, with the count of its 429s */
  v = check(g, "192.0.2.1", T0 + SERVE_GUARD_BLOCK);
  assert_false(v.blocked);
  assert_int_equal(v.refused_before, 2);
  assert_int_equal(check(g, "192.0.2.1", T0 + SERVE_GUARD_BLOCK).refused_before,
                   0);
  /* a fresh window: one wrong token does not block again */
  assert_int_equal(wrong(g, "192.0.2.1", T0 + SERVE_GUARD_BLOCK).failures, 1);
  assert_false(check(g, "192.0.2.1", T0 + SERVE_GUARD_BLOCK).blocked);
  serve_guard_free(g);
}

static void test_slow_guesses_never_block(void **state) {
  (void)state;
  struct serve_guard *g = serve_guard_new(SERVE_GUARD_SLOTS, 2);
  /* four within the window, the fifth just after it */
  for (int i = 0; i < SERVE_GUARD_LIMIT - 1; i++)
    assert_false(wrong(g, "192.0.2.7", T0 + i).blocked_now);
  struct serve_guard_failure f = wrong(g, "192.0.2.7", T0 + SERVE_GUARD_WINDOW);
  assert_int_equal(f.failures, 1);
  assert_false(f.blocked_now);
  assert_false(check(g, "192.0.2.7", T0 + SERVE_GUARD_WINDOW).blocked);
  /* but five within 59 s do */
  for (int i = 1; i < SERVE_GUARD_LIMIT; i++)
    f = wrong(g, "192.0.2.7", T0 + SERVE_GUARD_WINDOW + 14 * i);
  assert_true(f.blocked_now);
  assert_true(check(g, "192.0.2.7", T0 + SERVE_GUARD_WINDOW + 57).blocked);
  serve_guard_free(g);
}

static void test_ipv6_by_its_64(void **state) {
  (void)state;
  struct serve_guard *g = serve_guard_new(SERVE_GUARD_SLOTS, 3);
  /* five addresses of one /64 are one client */
  static const char *const same[] = {"2001:db8:1:2::1", "2001:db8:1:2::2",
                                     "2001:db8:1:2:ffff::9",
                                     "2001:db8:1:2:8000::", "2001:db8:1:2::"};
  for (size_t i = 0; i < 5; i++)
    assert_int_equal(wrong(g, same[i], T0).failures, i + 1);
  assert_true(check(g, "2001:db8:1:2:abcd::1", T0).blocked);
  /* the next /64 is another */
  assert_false(check(g, "2001:db8:1:3::1", T0).blocked);
  /* an IPv4 client of a dual-stack socket is its IPv4 address, whole */
  guess(g, "::ffff:192.0.2.9", T0);
  assert_true(check(g, "192.0.2.9", T0).blocked);
  assert_false(check(g, "::ffff:192.0.2.10", T0).blocked);
  serve_guard_free(g);
}

static void test_full_table(void **state) {
  (void)state;
  /* one set of SERVE_GUARD_WAYS: every address meets every other */
  struct serve_guard *g = serve_guard_new(SERVE_GUARD_WAYS, 4);
  char who[32];
  guess(g, "203.0.113.1", T0);
  /* the other ways fill with quiet clients, one failure each, then
   * many more: the blocked one stays, the quiet ones are forgotten */
  for (int i = 2; i < 200; i++) {
    snprintf(who, sizeof(who), "203.0.113.%d", i);
    assert_int_equal(wrong(g, who, T0 + i % 50).failures, 1);
  }
  assert_true(check(g, "203.0.113.1", T0 + 50).blocked);
  /* a set of blocked ones only: the least recently seen is forgotten */
  for (int i = 0; i < SERVE_GUARD_WAYS; i++) {
    snprintf(who, sizeof(who), "198.51.100.%d", i);
    guess(g, who, T0 + 51 + i);
  }
  assert_false(check(g, "203.0.113.1", T0 + 59).blocked);
  for (int i = 0; i < SERVE_GUARD_WAYS; i++) {
    snprintf(who, sizeof(who), "198.51.100.%d", i);
    assert_true(check(g, who, T0 + 59).blocked);
  }
  serve_guard_free(g);
}

static void test_other_families(void **state) {
  (void)state;
  struct serve_guard *g = serve_guard_new(0, 5); /* rounded up to one set */
  struct sockaddr unix_addr = {.sa_family = AF_UNIX};
  assert_non_null(g);
  assert_int_equal(serve_guard_failed(g, &unix_addr, T0).failures, 0);
  assert_false(serve_guard_check(g, &unix_addr, T0).blocked);
  assert_int_equal(serve_guard_failed(g, NULL, T0).failures, 0);
  serve_guard_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_five_block_for_the_window),
      cmocka_unit_test(test_slow_guesses_never_block),
      cmocka_unit_test(test_ipv6_by_its_64),
      cmocka_unit_test(test_full_table),
      cmocka_unit_test(test_other_families),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

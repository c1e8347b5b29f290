/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/util/monotonic.c: both functions read CLOCK_MONOTONIC (not
 * the wall clock, which may step), in nanoseconds and in seconds; the two
 * agree with each other, never go back over many calls, and measure a
 * sleep in the right unit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/monotonic.h"

#include <time.h>

/* How far monotonic_seconds may be from the same instant in nanoseconds
 * divided by 1e9: the rounding of a double near 1e6 s is far below this. */
#define SECONDS_SLACK 1e-6

#define CALLS 200000

static int64_t clock_ns(void) {
  struct timespec ts;

  assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleeps until CLOCK_MONOTONIC reaches deadline_ns. */
static void sleep_until(int64_t deadline_ns) {
  struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000),
                        .tv_nsec = (long)(deadline_ns % 1000000000)};
  int r;

  while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) ==
         EINTR)
    ;
  assert_int_equal(r, 0);
}

/* Nanoseconds are CLOCK_MONOTONIC's: between two readings of it, and far
 * from CLOCK_REALTIME's 1.7e18. */
static void test_ns_is_clock_monotonic(void **state) {
  (void)state;
  for (int i = 0; i < 1000; i++) {
    int64_t before = clock_ns();
    int64_t ns = monotonic_ns();
    int64_t after = clock_ns();

    assert_true(ns > 0);
    assert_true(before <= ns);
    assert_true(ns <= after);
  }
}

static void test_seconds_is_clock_monotonic(void **state) {
  (void)state;
  for (int i = 0; i < 1000; i++) {
    double before = (double)clock_ns() / 1e9;
    double s = monotonic_seconds();
    double after = (double)clock_ns() / 1e9;

    assert_true(s > 0);
    assert_true(before - SECONDS_SLACK <= s);
    assert_true(s <= after + SECONDS_SLACK);
  }
}

/* Interleaved calls: each value, in either unit, is at least the one
 * before it, so neither goes back and the two are the same clock. */
static void test_never_goes_back(void **state) {
  int64_t last_ns = monotonic_ns();
  double last_s = monotonic_seconds();

  (void)state;
  for (int i = 0; i < CALLS; i++) {
    int64_t ns = monotonic_ns();
    double ns_s = (double)ns / 1e9;
    double s;

    if (ns < last_ns)
      fail_msg("call %d: %lld ns after %lld ns", i, (long long)ns,
               (long long)last_ns);
    if (ns_s < last_s - SECONDS_SLACK)
      fail_msg("call %d: %.9f s (ns) after %.9f s", i, ns_s, last_s);
    s = monotonic_seconds();
    if (s < last_s)
      fail_msg("call %d: %.9f s after %.9f s", i, s, last_s);
    if (s < ns_s - SECONDS_SLACK)
      fail_msg("call %d: %.9f s after %.9f s (ns)", i, s, ns_s);
    last_ns = ns;
    last_s = s;
  }
}

/* A 20 ms sleep measures at least 20 ms in both units, and far less than
 * 1000 times that (a clock in microseconds or milliseconds would not). */
static void test_measures_a_sleep(void **state) {
  int64_t ns0 = monotonic_ns();
  double s0 = monotonic_seconds();
  int64_t ns1;
  double s1;

  (void)state;
  sleep_until(clock_ns() + 20000000);
  ns1 = monotonic_ns();
  s1 = monotonic_seconds();
  assert_true(ns1 - ns0 >= 20000000);
  assert_true(ns1 - ns0 < INT64_C(20000000000));
  assert_true(s1 - s0 >= 0.02 - SECONDS_SLACK);
  assert_true(s1 - s0 < 20.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ns_is_clock_monotonic),
      cmocka_unit_test(test_seconds_is_clock_monotonic),
      cmocka_unit_test(test_never_goes_back),
      cmocka_unit_test(test_measures_a_sleep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/shipping/ship_cap.c, the request size a 413 taught the
 * shipper, on a clock the test sets: --batch-bytes given wins over the
 * size the state kept; an hour of success doubles the size up to the
 * ceiling (where no limit is known any more); an hour of outage counts for
 * nothing; a 413 at the larger size goes back to the size that passed,
 * logged once however often the hourly try fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ship_cap.h"

#define T0 1700000000
#define HOUR SHIP_CAP_TRY_AFTER

static void test_start(void **state) {
  (void)state;
  struct ship_cap c;
  /* kept, not given: the hint lowers the batches */
  assert_int_equal(ship_cap_start(&c, 1048576, 16384, false, T0),
                   SHIP_CAP_SAME);
  assert_int_equal(ship_cap_size(&c), 16384);
  assert_int_equal(c.learned, 16384);
  /* --batch-bytes given: it wins, and says so */
  assert_int_equal(ship_cap_start(&c, 65536, 16384, true, T0), SHIP_CAP_GIVEN);
  assert_int_equal(ship_cap_size(&c), 65536);
  assert_int_equal(c.learned, 0);
  /* a kept size at or above the ceiling is no limit */
  assert_int_equal(ship_cap_start(&c, 8192, 16384, false, T0), SHIP_CAP_SAME);
  assert_int_equal(ship_cap_size(&c), 8192);
  assert_int_equal(c.learned, 0);
  assert_int_equal(ship_cap_start(&c, 8192, 16384, true, T0), SHIP_CAP_SAME);
  /* none kept */
  assert_int_equal(ship_cap_start(&c, 1048576, 0, true, T0), SHIP_CAP_SAME);
  assert_int_equal(ship_cap_size(&c), 1048576);
}

static void test_lowered_then_doubled(void **state) {
  (void)state;
  struct ship_cap c;
  ship_cap_start(&c, 100000, 0, true, T0);
  /* no 413: nothing learned */
  assert_int_equal(ship_cap_answer(&c, 0, T0 + 10), SHIP_CAP_SAME);
  assert_int_equal(ship_cap_answer(&c, 100000, T0 + 10), SHIP_CAP_SAME);
  /* a 413: the sender's size is learned */
  assert_int_equal(ship_cap_answer(&c, 12000, T0 + 60), SHIP_CAP_LOWERED);
  assert_int_equal(ship_cap_size(&c), 12000);
  /* the same size again: nothing new */
  assert_int_equal(ship_cap_answer(&c, 12000, T0 + 120), SHIP_CAP_SAME);
  /* an hour less a second: not yet */
  assert_int_equal(ship_cap_tick(&c, true, T0 + 60 + HOUR - 1), SHIP_CAP_SAME);
  assert_int_equal(ship_cap_size(&c), 12000);
  assert_int_equal(ship_cap_tick(&c, true, T0 + 60 + HOUR), SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_size(&c), 24000);
  assert_int_equal(c.before, 12000);
  /* each hour doubles: 48000, 96000, then the ceiling, no limit known */
  time_t t = T0 + 60 + HOUR;
  assert_int_equal(ship_cap_tick(&c, true, t += HOUR), SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_size(&c), 48000);
  assert_int_equal(ship_cap_tick(&c, true, t += HOUR), SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_size(&c), 96000);
  assert_int_equal(ship_cap_tick(&c, true, t += HOUR), SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_size(&c), 100000);
  assert_int_equal(c.learned, 0);
  /* at the ceiling there is nothing more to try */
  assert_int_equal(ship_cap_tick(&c, true, t += 10 * HOUR), SHIP_CAP_SAME);
  assert_int_equal(ship_cap_size(&c), 100000);
}

static void test_outage_is_no_success(void **state) {
  (void)state;
  struct ship_cap c;
  ship_cap_start(&c, 1048576, 16384, false, T0);
  assert_int_equal(ship_cap_tick(&c, true, T0 + HOUR / 2), SHIP_CAP_SAME);
  /* the store away: the hour starts over */
  assert_int_equal(ship_cap_tick(&c, false, T0 + HOUR / 2 + 60), SHIP_CAP_SAME);
  assert_int_equal(ship_cap_tick(&c, true, T0 + HOUR + 60), SHIP_CAP_SAME);
  assert_int_equal(ship_cap_tick(&c, true, T0 + HOUR / 2 + 60 + HOUR),
                   SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_size(&c), 32768);
}

static void test_larger_refused(void **state) {
  (void)state;
  struct ship_cap c;
  ship_cap_start(&c, 1048576, 16384, false, T0);
  time_t t = T0 + HOUR;
  assert_int_equal(ship_cap_tick(&c, true, t), SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_size(&c), 32768);
  /* a 413 at 32768 halves to 16000 (lines): back to 16384, logged */
  assert_int_equal(ship_cap_answer(&c, 16000, t + 60), SHIP_CAP_BACK);
  assert_int_equal(ship_cap_size(&c), 16384);
  assert_int_equal(c.before, 0);
  /* an hour later the same: tried, refused, not logged again */
  assert_int_equal(ship_cap_tick(&c, true, t + 60 + HOUR), SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_size(&c), 32768);
  assert_int_equal(ship_cap_answer(&c, 15000, t + 120 + HOUR),
                   SHIP_CAP_BACK_QUIET);
  assert_int_equal(ship_cap_size(&c), 16384);
  /* the proxy's limit raised: 32768 holds for an hour, then 65536 */
  t += 120 + 2 * HOUR;
  assert_int_equal(ship_cap_tick(&c, true, t), SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_answer(&c, 0, t + 60), SHIP_CAP_SAME);
  assert_int_equal(ship_cap_tick(&c, true, t + HOUR), SHIP_CAP_RAISED);
  assert_int_equal(ship_cap_size(&c), 65536);
  assert_false(c.back_logged);
  /* a 413 above the size known to pass: that size is learned, logged */
  assert_int_equal(ship_cap_answer(&c, 40000, t + HOUR + 60), SHIP_CAP_LOWERED);
  assert_int_equal(ship_cap_size(&c), 40000);
  /* a 413 later at the learned size: lowered again, logged */
  assert_int_equal(ship_cap_answer(&c, 20000, t + HOUR + 120),
                   SHIP_CAP_LOWERED);
  assert_int_equal(ship_cap_size(&c), 20000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_start),
      cmocka_unit_test(test_lowered_then_doubled),
      cmocka_unit_test(test_outage_is_no_success),
      cmocka_unit_test(test_larger_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

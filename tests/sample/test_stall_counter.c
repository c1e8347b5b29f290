/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stall counters to record (src/sample/stall_counter.c): the kernel's
 * totals as they are, an advance up to the tolerance above the time
 * elapsed recorded as the time elapsed, one beyond it or backwards a
 * restart whose row a stall file stores as unknown, once, also when the
 * counter comes back to the kernel's later; what a clamp held back recorded as
 * soon as there is room, never above the time elapsed; time in the files'
 * whole seconds; columns not read left out and caught up by the next
 * reading; a clock that went back records nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/stall_counter.h"

#include <math.h>
#include <string.h>

static uint64_t totals[STALL_COLUMNS];

static struct stall_reading at(struct stall_counter *c, double t,
                               unsigned have) {
  struct stall_reading r;
  memset(&r, 0xff, sizeof(r));
  stall_counter_advance(c, totals, have, t, &r);
  return r;
}

#define ALL ((1u << STALL_COLUMNS) - 1)
#define UNKNOWN (-1.0)

/* What a stall file stores for the update of v1 at t1 after v0 at t0, by
 * librrd's rule for its data sources (DERIVE, heartbeat 120 s, min 0, max
 * 1,000,000, times in whole seconds): the rate, or UNKNOWN. */
static double file_row(double t0, uint64_t v0, double t1, uint64_t v1) {
  double elapsed = floor(t1 + 0.5) - floor(t0 + 0.5);
  if (elapsed <= 0 || elapsed > 120 || v1 < v0)
    return UNKNOWN;
  double rate = (double)(v1 - v0) / elapsed;
  return rate > 1e6 ? UNKNOWN : rate;
}

/* Reads cpu some's total at t and gives the file's row since t0 and v0,
 * which become this reading's. */
static double next_row(struct stall_counter *c, uint64_t total, double t,
                       double *t0, uint64_t *v0) {
  totals[STALL_CPU_SOME] = total;
  struct stall_reading r = at(c, t, 1u << STALL_CPU_SOME);
  double row = file_row(*t0, *v0, t, r.value[STALL_CPU_SOME]);
  *t0 = t;
  *v0 = r.value[STALL_CPU_SOME];
  return row;
}

static void test_first_reading_is_the_kernels(void **state) {
  (void)state;
  struct stall_counter c = {0};
  for (int i = 0; i < STALL_COLUMNS; i++)
    totals[i] = 1000u * (i + 1);
  struct stall_reading r = at(&c, 100.0, ALL);
  assert_int_equal(r.valid, ALL);
  assert_int_equal(r.restarted, 0);
  for (int i = 0; i < STALL_COLUMNS; i++)
    assert_int_equal(r.value[i], 1000u * (i + 1));
}

static void test_tolerance_edges(void **state) {
  (void)state;
  struct stall_counter c = {0};
  memset(totals, 0, sizeof(totals));
  at(&c, 100.0, ALL);
  /* 60 s elapsed: the tolerance is 0.6 s + 0.1 s */
  totals[STALL_CPU_SOME] = 60000000;    /* exactly the time elapsed */
  totals[STALL_IO_SOME] = 60700000;     /* the last advance clamped */
  totals[STALL_MEMORY_SOME] = 60700001; /* one microsecond more: a restart */
  struct stall_reading r = at(&c, 160.0, ALL);
  assert_int_equal(r.value[STALL_CPU_SOME], 60000000);
  assert_int_equal(r.value[STALL_IO_SOME], 60000000);
  assert_int_equal(r.value[STALL_MEMORY_SOME],
                   60700001 + STALL_RESTART_JUMP_US);
  assert_int_equal(r.restarted, 1u << STALL_MEMORY_SOME);
  /* after the restart the column goes on from there */
  totals[STALL_MEMORY_SOME] += 5000000;
  r = at(&c, 220.0, ALL);
  assert_int_equal(r.value[STALL_MEMORY_SOME],
                   65700001 + STALL_RESTART_JUMP_US);
  assert_int_equal(r.restarted, 0);
}

/* A clamped advance is owed, not lost: the counter comes back to the
 * kernel's at the first reading with room, and never advances by more
 * than the time elapsed meanwhile. */
static void test_held_back_recorded_later(void **state) {
  (void)state;
  struct stall_counter c = {0};
  memset(totals, 0, sizeof(totals));
  at(&c, 100.0, ALL);
  totals[STALL_CPU_SOME] = 60400000; /* 0.4 s above the minute: clamped */
  struct stall_reading r = at(&c, 160.0, ALL);
  assert_int_equal(r.value[STALL_CPU_SOME], 60000000);
  totals[STALL_CPU_SOME] += 59800000; /* room for 0.2 s of the 0.4 */
  r = at(&c, 220.0, ALL);
  assert_int_equal(r.value[STALL_CPU_SOME], 120000000);
  totals[STALL_CPU_SOME] += 30000000; /* room for the rest */
  r = at(&c, 280.0, ALL);
  assert_int_equal(r.value[STALL_CPU_SOME], 150200000);
  assert_int_equal(r.value[STALL_CPU_SOME], totals[STALL_CPU_SOME]);
  assert_int_equal(r.restarted, 0);
  /* a restart forgets what was owed */
  totals[STALL_CPU_SOME] = 61000000 + 150200000 + 700000; /* owes 0.7 s */
  at(&c, 341.0, ALL);
  totals[STALL_CPU_SOME] = 5; /* a new cgroup */
  r = at(&c, 401.0, ALL);
  assert_int_equal(r.value[STALL_CPU_SOME], 5);
  totals[STALL_CPU_SOME] = 5 + 1000000;
  r = at(&c, 461.0, ALL);
  assert_int_equal(r.value[STALL_CPU_SOME], 5 + 1000000);
}

/* The files hold whole seconds: readings at 100.6 and 160.4 are 59 s
 * apart there (101 and 160), so 59.8 s of stall is 59 s recorded. */
static void test_whole_seconds(void **state) {
  (void)state;
  struct stall_counter c = {0};
  memset(totals, 0, sizeof(totals));
  at(&c, 100.6, ALL);
  totals[STALL_MEMORY_FULL] = 59800000;
  totals[STALL_IO_SOME] = 58000000;
  struct stall_reading r = at(&c, 160.4, ALL);
  assert_int_equal(r.value[STALL_MEMORY_FULL], 59000000);
  assert_int_equal(r.value[STALL_IO_SOME], 58000000);
  assert_int_equal(r.restarted, 0);
}

static void test_backwards_and_gaps(void **state) {
  (void)state;
  struct stall_counter c = {0};
  memset(totals, 0, sizeof(totals));
  totals[STALL_IO_FULL] = 9000000;
  at(&c, 100.0, ALL);
  totals[STALL_IO_FULL] = 400; /* a new counter */
  struct stall_reading r = at(&c, 160.0, ALL);
  assert_int_equal(r.value[STALL_IO_FULL], 400);
  assert_int_equal(r.restarted, 1u << STALL_IO_FULL);
  /* io not read at 220: its columns left out, then caught up at 280 with
   * the two minutes elapsed */
  totals[STALL_IO_FULL] = 400 + 90000000;
  r = at(&c, 220.0, ALL & ~(1u << STALL_IO_SOME | 1u << STALL_IO_FULL));
  assert_false(r.valid & (1u << STALL_IO_FULL));
  assert_true(r.valid & (1u << STALL_CPU_SOME));
  r = at(&c, 280.0, ALL);
  assert_int_equal(r.value[STALL_IO_FULL], 400 + 90000000);
  assert_int_equal(r.restarted, 0);
  /* the clock steps back: nothing recorded as elapsed, no restart */
  totals[STALL_IO_FULL] += 1000;
  r = at(&c, 270.0, ALL);
  assert_int_equal(r.value[STALL_IO_FULL], 400 + 90000000);
  assert_int_equal(r.restarted, 0);
  totals[STALL_IO_FULL] += 2000;
  r = at(&c, 330.0, ALL);
  assert_int_equal(r.value[STALL_IO_FULL], 400 + 90000000 + 2000);
}

/* A counter reset to 0 that stays there for a minute and then comes back
 * to the kernel's total: each jump one unknown row, the rows between and
 * after them exact. */
static void test_reset_and_back_unknown_once(void **state) {
  (void)state;
  struct stall_counter c = {0};
  memset(totals, 0, sizeof(totals));
  double t0 = 0;
  uint64_t v0 = 0;
  next_row(&c, 500000000, 100.0, &t0, &v0);
  assert_true(next_row(&c, 0, 160.0, &t0, &v0) == UNKNOWN);
  assert_true(next_row(&c, 0, 220.0, &t0, &v0) == 0.0);
  assert_true(next_row(&c, 510000000, 280.0, &t0, &v0) == UNKNOWN);
  assert_true(next_row(&c, 516000000, 340.0, &t0, &v0) == 100000.0);
  assert_true(next_row(&c, 519000000, 400.0, &t0, &v0) == 50000.0);
}

/* A total that ran ahead of the time elapsed, and then collectd restarted
 * (a new counter: the kernel's total as it is) 100 s later, within the
 * files' heartbeat: the row across the restart is unknown, not the 92 %
 * that the kernel's 92 s above the recorded counter would make of it. */
static void test_ahead_then_collectd_restart(void **state) {
  (void)state;
  struct stall_counter c = {0};
  memset(totals, 0, sizeof(totals));
  double t0 = 0;
  uint64_t v0 = 0;
  next_row(&c, 0, 100.0, &t0, &v0);
  assert_true(next_row(&c, 0, 160.0, &t0, &v0) == 0.0);
  assert_true(next_row(&c, 90000000, 220.0, &t0, &v0) == UNKNOWN);
  assert_true(next_row(&c, 93000000, 280.0, &t0, &v0) == 50000.0);
  struct stall_counter after = {0};
  assert_true(next_row(&after, 95000000, 380.0, &t0, &v0) == UNKNOWN);
  assert_true(next_row(&after, 98000000, 440.0, &t0, &v0) == 50000.0);
  assert_int_equal(v0, 98000000); /* the kernel's again */
}

static void test_totals_of_three_files(void **state) {
  (void)state;
  struct psi_stats psi[3] = {0};
  bool read[3] = {true, false, true};
  psi[0].some.total = 11;
  psi[0].has_full = false;
  psi[2].some.total = 31;
  psi[2].full.total = 32;
  psi[2].has_full = true;
  uint64_t t[STALL_COLUMNS];
  unsigned have;
  stall_counter_totals(psi, read, t, &have);
  assert_int_equal(have, 1u << STALL_CPU_SOME | 1u << STALL_MEMORY_SOME |
                             1u << STALL_MEMORY_FULL);
  assert_int_equal(t[STALL_CPU_SOME], 11);
  assert_int_equal(t[STALL_MEMORY_SOME], 31);
  assert_int_equal(t[STALL_MEMORY_FULL], 32);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_reading_is_the_kernels),
      cmocka_unit_test(test_tolerance_edges),
      cmocka_unit_test(test_held_back_recorded_later),
      cmocka_unit_test(test_whole_seconds),
      cmocka_unit_test(test_backwards_and_gaps),
      cmocka_unit_test(test_reset_and_back_unknown_once),
      cmocka_unit_test(test_ahead_then_collectd_restart),
      cmocka_unit_test(test_totals_of_three_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

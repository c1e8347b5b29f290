/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_counter.c: Proxmox sends netin/netout/
 * diskread/diskwrite as byte counters, the RRD keeps rates, so the export
 * rebuilds counters whose derivative gives the RRD's rate back.  Checked
 * with exact binary fractions: the first known rate gives 0, every later
 * known rate adds rate x the row's resolution (1800 s rows, then 60 s
 * rows, as a file's archives are read), an unknown rate gives an unknown
 * counter and leaves the total alone (the gap's bytes are not made up),
 * columns that are not counters pass through untouched, and a reset
 * starts the next file at 0 again.  pvecg's stall totals (rates of
 * microseconds stalled per second) become counters of seconds: the
 * total kept in microseconds, divided by 1e6 when written, so that the
 * difference of two neighbouring rows over the row's length is the
 * share of time stalled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/export_counter.h"
#include "pvecg/export_names.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* A gauge between two counters. */
static const struct rrd_ds_def three_ds[] = {
    {"netin", RRD_DS_DERIVE, false},
    {"cpu", RRD_DS_GAUGE, false},
    {"netout", RRD_DS_DERIVE, false},
};
static const struct rrd_layout three = {
    .name = "three", .ds = three_ds, .ds_count = 3};
static const double three_counter[3] = {1, 0, 1};

#define U NAN

/* Applies one row; out[3] must stay as it was (only ds_count are set). */
static void apply(struct export_counter *c, unsigned long resolution, double a,
                  double b, double d, double out[4]) {
  const double values[3] = {a, b, d};
  out[0] = out[1] = out[2] = -1;
  out[3] = 42;
  export_counter_apply(c, &three, three_counter, resolution, values, out);
  assert_true(out[3] == 42);
}

/* Exact comparison; NAN expected means unknown. */
static void check(double got, double want) {
  if (isnan(want))
    assert_true(isnan(got));
  else
    assert_true(got == want);
}

static void check_row(const double *out, double a, double b, double d) {
  check(out[0], a);
  check(out[1], b);
  check(out[2], d);
}

static void test_sequence(void **state) {
  (void)state;
  struct export_counter c;
  memset(&c, 0x5a, sizeof(c)); /* garbage before the reset */
  export_counter_reset(&c);
  double out[4];

  /* netin's first known rate: 0; netout still unknown. */
  apply(&c, 1800, 100, 0.25, U, out);
  check_row(out, 0, 0.25, U);
  /* netin unknown: no counter; netout's first known rate: 0; an unknown
   * gauge stays unknown. */
  apply(&c, 1800, U, U, 2, out);
  check_row(out, U, U, 0);
  /* netin continues from its last total, the gap adds nothing. */
  apply(&c, 1800, 0.5, 1.5, 4, out);
  check_row(out, 900, 1.5, 7200);
  /* The finer archive's rows: 60 s each. */
  apply(&c, 60, 10, 3, U, out);
  check_row(out, 1500, 3, U);
  apply(&c, 60, 0.25, 0, 1, out);
  check_row(out, 1515, 0, 7260);
  /* The derivative of the last two rows is the RRD's rate. */
  assert_true((1515.0 - 1500.0) / 60 == 0.25);
  /* A rate of 0 keeps the total. */
  apply(&c, 60, 0, 7, 0, out);
  check_row(out, 1515, 7, 7260);

  /* A new file starts from 0 again. */
  export_counter_reset(&c);
  apply(&c, 60, 5, U, U, out);
  check_row(out, 0, U, U);
  apply(&c, 60, 5, U, 1, out);
  check_row(out, 300, U, 0);
}

/* Only the marked columns change, whatever their RRD type. */
static void test_not_counters(void **state) {
  (void)state;
  static const double none[3] = {0, 0, 0};
  struct export_counter c;
  export_counter_reset(&c);
  const double values[3] = {100, U, 1e300};
  double out[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++) {
    export_counter_apply(&c, &three, none, 60, values, out);
    check_row(out, 100, U, 1e300);
  }
}

/* The columns export_names.h marks as counters in a guest's file. */
static void test_pve_vm(void **state) {
  (void)state;
  const struct rrd_layout *l = &layout_pve_vm_9_0;
  double unit[RRD_LAYOUT_DS_MAX] = {0};
  double values[RRD_LAYOUT_DS_MAX], out[RRD_LAYOUT_DS_MAX];
  for (size_t i = 0; i < l->ds_count; i++) {
    unit[i] = export_metric_counter_unit(export_metric_of(l, false, i));
    values[i] = 2;
  }
  struct export_counter c;
  export_counter_reset(&c);
  export_counter_apply(&c, l, unit, 60, values, out);
  export_counter_apply(&c, l, unit, 60, values, out);
  for (size_t i = 0; i < l->ds_count; i++) {
    bool counter = strcmp(l->ds[i].name, "netin") == 0 ||
                   strcmp(l->ds[i].name, "netout") == 0 ||
                   strcmp(l->ds[i].name, "diskread") == 0 ||
                   strcmp(l->ds[i].name, "diskwrite") == 0;
    assert_true(unit[i] == (counter ? 1 : 0));
    assert_true(out[i] == (counter ? 120 : 2));
  }
}

/* A stall file's rows (stallcpusome, stallcpufull, stalliosome,
 * stalliofull, stallmemorysome, stallmemoryfull), as a guest's or a
 * node's: every column a counter of seconds. */
static void apply_stall(struct export_counter *c, bool node,
                        unsigned long resolution, const double rates[6],
                        double out[6]) {
  const struct rrd_layout *l =
      node ? &layout_pvecg_pressure_node_1_0 : &layout_pvecg_pressure_vm_1_0;
  double unit[RRD_LAYOUT_DS_MAX];
  assert_int_equal(l->ds_count, 6);
  for (size_t i = 0; i < 6; i++)
    unit[i] = export_metric_counter_unit(export_metric_of(l, node, i));
  export_counter_apply(c, l, unit, resolution, rates, out);
}

static void test_stall(void **state) {
  (void)state;
  for (int node = 0; node <= 1; node++) {
    struct export_counter c;
    export_counter_reset(&c);
    double out[6];
    /* 25 % of a minute stalled is 15 s; a quarter of a microsecond a
     * second over 30 minutes is 450 µs; unknown stays unknown. */
    apply_stall(&c, node, 60, (double[6]){250000, 0, 1, U, 999999.5, 3}, out);
    check_row(out, 0, 0, 0);
    check_row(out + 3, U, 0, 0);
    apply_stall(&c, node, 60, (double[6]){250000, 1e6, 1, 7, 999999.5, 3}, out);
    check_row(out, 15, 60, 0.00006);
    check_row(out + 3, 0, 59.99997, 0.00018);
    apply_stall(&c, node, 1800, (double[6]){U, 0.5, 0.25, 7, 0, 3}, out);
    check_row(out, U, 60.0009, 0.00051);
    check_row(out + 3, 0.0126, 59.99997, 0.00558);
    /* The share of time stalled back from two neighbouring rows. */
    apply_stall(&c, node, 60, (double[6]){500000, 0, 0, 0, 0, 0}, out);
    check(out[0], 45);
    assert_true((out[0] - 15) / 60 * 1e6 == 500000);
    /* Kept in microseconds: the total goes on exactly where seconds
     * summed row by row would drift. */
    assert_true(c.total[0] == 45e6);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sequence),
      cmocka_unit_test(test_not_counters),
      cmocka_unit_test(test_pve_vm),
      cmocka_unit_test(test_stall),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/row/ksm_row.c: the KSM rows' columns are the layouts' (by
 * name), and the saved bytes follow docs/values.md: the node saves
 * (sharing + zero) pages; a VM's merging pages save sharing / (shared +
 * sharing) each, its zero pages whole; what a kernel does not report is
 * unknown, never 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/ksm_row.h"
#include "pvecg/rrd_layout.h"

#include <math.h>

static void test_columns_are_the_layouts(void **state) {
  (void)state;
  const struct rrd_layout *v = &layout_pvecg_ksm_vm_1_0;
  const struct rrd_layout *n = &layout_pvecg_ksm_node_1_0;
  assert_int_equal(v->ds_count, KSM_VM_COLUMNS);
  assert_int_equal(n->ds_count, KSM_NODE_COLUMNS);
  assert_int_equal(rrd_layout_ds_index(v, "ksmmerging"), KSM_VM_MERGING);
  assert_int_equal(rrd_layout_ds_index(v, "ksmzero"), KSM_VM_ZERO);
  assert_int_equal(rrd_layout_ds_index(v, "ksmprofit"), KSM_VM_PROFIT);
  assert_int_equal(rrd_layout_ds_index(v, "ksmsaved"), KSM_VM_SAVED);
  assert_int_equal(rrd_layout_ds_index(n, "ksmrun"), KSM_NODE_COL_RUN);
  assert_int_equal(rrd_layout_ds_index(n, "ksmshared"), KSM_NODE_COL_SHARED);
  assert_int_equal(rrd_layout_ds_index(n, "ksmsharing"), KSM_NODE_COL_SHARING);
  assert_int_equal(rrd_layout_ds_index(n, "ksmzero"), KSM_NODE_COL_ZERO);
  assert_int_equal(rrd_layout_ds_index(n, "ksmprofit"), KSM_NODE_COL_PROFIT);
  assert_int_equal(rrd_layout_ds_index(n, "ksmsaved"), KSM_NODE_COL_SAVED);
}

/* The node: 1000 KSM pages shared by 4000 further sites, 96 zero pages. */
static struct ksm_node_sample node(void) {
  struct ksm_node_sample s = {.valid = (1u << KSM_NODE_VALUE_COUNT) - 1};
  s.value[KSM_NODE_RUN] = 1;
  s.value[KSM_NODE_PAGES_SHARED] = 1000;
  s.value[KSM_NODE_PAGES_SHARING] = 4000;
  s.value[KSM_NODE_ZERO_PAGES] = 96;
  s.value[KSM_NODE_GENERAL_PROFIT] = -8192;
  return s;
}

static void test_node_row(void **state) {
  (void)state;
  struct ksm_node_sample s = node();
  double row[KSM_NODE_COLUMNS];
  ksm_node_row(&s, 4096, row);
  assert_true(row[KSM_NODE_COL_RUN] == 1);
  assert_true(row[KSM_NODE_COL_SHARED] == 1000);
  assert_true(row[KSM_NODE_COL_SHARING] == 4000);
  assert_true(row[KSM_NODE_COL_ZERO] == 96);
  assert_true(row[KSM_NODE_COL_PROFIT] == -8192);
  assert_true(row[KSM_NODE_COL_SAVED] == (4000.0 + 96) * 4096);
  /* an older kernel: no zero pages, no general_profit */
  s.valid &= ~(1u << KSM_NODE_ZERO_PAGES | 1u << KSM_NODE_GENERAL_PROFIT);
  ksm_node_row(&s, 4096, row);
  assert_true(isnan(row[KSM_NODE_COL_ZERO]));
  assert_true(isnan(row[KSM_NODE_COL_PROFIT]));
  assert_true(row[KSM_NODE_COL_SAVED] == 4000.0 * 4096);
  /* no KSM at all */
  s.valid = 0;
  ksm_node_row(&s, 4096, row);
  for (int i = 0; i < KSM_NODE_COLUMNS; i++)
    assert_true(isnan(row[i]));
}

static void test_vm_row(void **state) {
  (void)state;
  struct ksm_node_sample s = node();
  struct ksm_stat k = {.merging_pages = 2500,
                       .zero_pages = 10,
                       .profit = 10000000,
                       .has_zero_pages = true,
                       .has_profit = true};
  double row[KSM_VM_COLUMNS];
  ksm_vm_row(&k, &s, 4096, row);
  assert_true(row[KSM_VM_MERGING] == 2500);
  assert_true(row[KSM_VM_ZERO] == 10);
  assert_true(row[KSM_VM_PROFIT] == 10000000);
  /* 2500 sites at 4000 / 5000 saved each, plus 10 zero pages */
  assert_true(row[KSM_VM_SAVED] == (2500.0 * 0.8 + 10) * 4096);
  /* Linux 6.1 to 6.3 */
  k.has_zero_pages = k.has_profit = false;
  k.zero_pages = 0;
  ksm_vm_row(&k, &s, 4096, row);
  assert_true(isnan(row[KSM_VM_ZERO]));
  assert_true(isnan(row[KSM_VM_PROFIT]));
  assert_true(row[KSM_VM_SAVED] == 2500.0 * 0.8 * 4096);
  /* nothing merged on the node */
  s.value[KSM_NODE_PAGES_SHARED] = s.value[KSM_NODE_PAGES_SHARING] = 0;
  k.merging_pages = 0;
  ksm_vm_row(&k, &s, 4096, row);
  assert_true(row[KSM_VM_SAVED] == 0);
  /* the node's counters unknown: the share is too */
  s.valid = 0;
  ksm_vm_row(&k, &s, 4096, row);
  assert_true(row[KSM_VM_MERGING] == 0);
  assert_true(isnan(row[KSM_VM_SAVED]));
  /* no ksm_stat this interval (a restarted VM): all unknown */
  ksm_vm_row(NULL, &s, 4096, row);
  for (int i = 0; i < KSM_VM_COLUMNS; i++)
    assert_true(isnan(row[i]));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_columns_are_the_layouts),
      cmocka_unit_test(test_node_row),
      cmocka_unit_test(test_vm_row),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

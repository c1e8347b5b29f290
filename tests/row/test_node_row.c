/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the node sample -> pve-node-9.0 row mapping
 * (src/row/node_row.c): every column by position, unknown values as NAN,
 * and layouts that lack a column refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/node_row.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Column positions from Proxmox's definition, written out independently. */
enum {
  COL_LOADAVG = 0,
  COL_MAXCPU = 1,
  COL_CPU = 2,
  COL_IOWAIT = 3,
  COL_MEMTOTAL = 4,
  COL_MEMUSED = 5,
  COL_SWAPTOTAL = 6,
  COL_SWAPUSED = 7,
  COL_ROOTTOTAL = 8,
  COL_ROOTUSED = 9,
  COL_NETIN = 10,
  COL_NETOUT = 11,
  COL_MEMAVAILABLE = 12,
  COL_ARCSIZE = 13,
  COL_CPU_SOME = 14,
  COL_IO_SOME = 15,
  COL_IO_FULL = 16,
  COL_MEMORY_SOME = 17,
  COL_MEMORY_FULL = 18,
  WIDTH = 19,
};

/* Each node value and where pvestatd puts it. */
static const int expected_column[NODE_VALUE_COUNT] = {
    [NODE_LOADAVG] = COL_LOADAVG,
    [NODE_MAXCPU] = COL_MAXCPU,
    [NODE_CPU] = COL_CPU,
    [NODE_IOWAIT] = COL_IOWAIT,
    [NODE_MEMTOTAL] = COL_MEMTOTAL,
    [NODE_MEMUSED] = COL_MEMUSED,
    [NODE_SWAPTOTAL] = COL_SWAPTOTAL,
    [NODE_SWAPUSED] = COL_SWAPUSED,
    [NODE_ROOTTOTAL] = COL_ROOTTOTAL,
    [NODE_ROOTUSED] = COL_ROOTUSED,
    [NODE_NETIN] = COL_NETIN,
    [NODE_NETOUT] = COL_NETOUT,
    [NODE_MEMAVAILABLE] = COL_MEMAVAILABLE,
    [NODE_ARCSIZE] = COL_ARCSIZE,
    [NODE_PRESSURE_CPU_SOME] = COL_CPU_SOME,
    [NODE_PRESSURE_IO_SOME] = COL_IO_SOME,
    [NODE_PRESSURE_IO_FULL] = COL_IO_FULL,
    [NODE_PRESSURE_MEMORY_SOME] = COL_MEMORY_SOME,
    [NODE_PRESSURE_MEMORY_FULL] = COL_MEMORY_FULL,
};

/* Distinct values: value v is 1000 + v, so a swap of two would show. */
static struct node_sample full_sample(void) {
  struct node_sample s;

  memset(&s, 0, sizeof(s));
  for (int v = 0; v < NODE_VALUE_COUNT; v++) {
    s.value[v] = 1000.0 + v;
    s.valid |= 1u << v;
  }
  return s;
}

static void test_map_positions(void **state) {
  struct node_row_map map;

  (void)state;
  assert_int_equal(node_row_map_init(&map, &layout_pve_node_9_0), 0);
  assert_int_equal(map.width, WIDTH);
  for (int v = 0; v < NODE_VALUE_COUNT; v++)
    assert_int_equal(map.column[v], expected_column[v]);
}

static void test_fill_every_column(void **state) {
  struct node_row_map map;
  struct node_sample s = full_sample();
  double row[WIDTH];

  (void)state;
  assert_int_equal(node_row_map_init(&map, &layout_pve_node_9_0), 0);
  node_row_fill(&map, &s, row);
  for (int v = 0; v < NODE_VALUE_COUNT; v++)
    assert_true(row[expected_column[v]] == 1000.0 + v);
}

/* Unknown is NAN whatever value the sample holds for it. */
static void test_unknown_values(void **state) {
  struct node_row_map map;
  struct node_sample s = full_sample();
  double row[WIDTH];

  (void)state;
  assert_int_equal(node_row_map_init(&map, &layout_pve_node_9_0), 0);
  s.valid &= ~(1u << NODE_CPU | 1u << NODE_IOWAIT | 1u << NODE_NETOUT);
  node_row_fill(&map, &s, row);
  for (int v = 0; v < NODE_VALUE_COUNT; v++) {
    double got = row[expected_column[v]];
    if (v == NODE_CPU || v == NODE_IOWAIT || v == NODE_NETOUT)
      assert_true(isnan(got));
    else
      assert_true(got == 1000.0 + v);
  }
  s.valid = 0;
  node_row_fill(&map, &s, row);
  for (int i = 0; i < WIDTH; i++)
    assert_true(isnan(row[i]));
}

/* Zero is a value (no ZFS: arcsize 0), not unknown. */
static void test_zero_is_known(void **state) {
  struct node_row_map map;
  struct node_sample s;
  double row[WIDTH];

  (void)state;
  memset(&s, 0, sizeof(s));
  s.valid = 1u << NODE_ARCSIZE;
  assert_int_equal(node_row_map_init(&map, &layout_pve_node_9_0), 0);
  node_row_fill(&map, &s, row);
  assert_true(row[COL_ARCSIZE] == 0.0);
  assert_true(isnan(row[COL_LOADAVG]));
}

/* The legacy node layout ends at netout; a guest layout has no loadavg. */
static void test_layouts_without_the_columns(void **state) {
  struct node_row_map map;

  (void)state;
  assert_int_equal(node_row_map_init(&map, &layout_pve2_node), -ENOENT);
  assert_int_equal(node_row_map_init(&map, &layout_pve_vm_9_0), -ENOENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_map_positions),
      cmocka_unit_test(test_fill_every_column),
      cmocka_unit_test(test_unknown_values),
      cmocka_unit_test(test_zero_is_known),
      cmocka_unit_test(test_layouts_without_the_columns),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

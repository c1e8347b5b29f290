/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/store/rrd_keyed_table.c, the table the store and the owners key
 * their entries by: (layout, cluster, name) are three parts of one key
 * (the same name in two layouts or two clusters is two entries, and no two
 * keys run together), every entry is found again after the buckets grew
 * many times, removal and dropping take out exactly what they should and
 * hand it back, and the walk sees every entry once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_keyed_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MANY 5000

struct item {
  struct rrd_keyed key; /* first, as the table wants */
  int value;
};

static struct item *item_new(struct rrd_keyed_table *t,
                             const struct rrd_layout *layout,
                             const char *cluster, const char *name, int value) {
  struct item *it = calloc(1, sizeof(*it));
  assert_non_null(it);
  rrd_keyed_set(&it->key, layout, cluster, name);
  it->value = value;
  rrd_keyed_table_insert(t, &it->key);
  return it;
}

static int released;
static void release(struct rrd_keyed *k) {
  released++;
  free(k);
}

static int find_value(const struct rrd_keyed_table *t,
                      const struct rrd_layout *layout, const char *cluster,
                      const char *name) {
  const struct item *it =
      (const struct item *)rrd_keyed_table_find(t, layout, cluster, name);
  return it != NULL ? it->value : -1;
}

static void test_three_parts(void **state) {
  (void)state;
  struct rrd_keyed_table t;
  assert_int_equal(rrd_keyed_table_init(&t), 0);
  item_new(&t, &layout_pve_vm_9_0, "", "100", 1);
  item_new(&t, &layout_pve_node_9_0, "", "100", 2);
  item_new(&t, &layout_pve_vm_9_0, "prod", "100", 3);
  /* "a" + "bc" and "ab" + "c" are not one key */
  item_new(&t, &layout_pve_vm_9_0, "a", "bc", 4);
  item_new(&t, &layout_pve_vm_9_0, "ab", "c", 5);
  assert_int_equal(find_value(&t, &layout_pve_vm_9_0, "", "100"), 1);
  assert_int_equal(find_value(&t, &layout_pve_node_9_0, "", "100"), 2);
  assert_int_equal(find_value(&t, &layout_pve_vm_9_0, "prod", "100"), 3);
  assert_int_equal(find_value(&t, &layout_pve_vm_9_0, "a", "bc"), 4);
  assert_int_equal(find_value(&t, &layout_pve_vm_9_0, "ab", "c"), 5);
  assert_int_equal(find_value(&t, &layout_pve_vm_9_0, "lab", "100"), -1);
  assert_int_equal(t.entry_count, 5);
  released = 0;
  rrd_keyed_table_destroy(&t, release);
  assert_int_equal(released, 5);
  assert_null(t.buckets);
}

static int count_and_sum(struct rrd_keyed *k, void *ctx) {
  long *sum = ctx;
  sum[0]++;
  sum[1] += ((struct item *)k)->value;
  return 0;
}

static bool odd(const struct rrd_keyed *k, void *ctx) {
  (void)ctx;
  return ((const struct item *)k)->value % 2 == 1;
}

static void test_many(void **state) {
  (void)state;
  struct rrd_keyed_table t;
  assert_int_equal(rrd_keyed_table_init(&t), 0);
  char name[16];
  for (int i = 0; i < MANY; i++) {
    snprintf(name, sizeof(name), "%d", 100 + i);
    item_new(&t, &layout_pve_vm_9_0, i % 3 ? "" : "prod", name, i);
  }
  assert_int_equal(t.entry_count, MANY);
  assert_true(t.bucket_count >= MANY); /* grown: at most one per bucket */
  for (int i = 0; i < MANY; i++) {
    snprintf(name, sizeof(name), "%d", 100 + i);
    assert_int_equal(
        find_value(&t, &layout_pve_vm_9_0, i % 3 ? "" : "prod", name), i);
  }
  long sum[2] = {0, 0};
  assert_int_equal(rrd_keyed_table_each(&t, count_and_sum, sum), 0);
  assert_int_equal(sum[0], MANY);
  assert_int_equal(sum[1], (long)MANY * (MANY - 1) / 2);

  /* remove one, then drop the odd ones */
  struct rrd_keyed *k = rrd_keyed_table_find(&t, &layout_pve_vm_9_0, "", "101");
  assert_non_null(k);
  rrd_keyed_table_remove(&t, k);
  free(k);
  assert_int_equal(t.entry_count, MANY - 1);
  assert_int_equal(find_value(&t, &layout_pve_vm_9_0, "", "101"), -1);
  released = 0;
  assert_int_equal(rrd_keyed_table_drop(&t, odd, release, NULL), MANY / 2 - 1);
  assert_int_equal(released, MANY / 2 - 1);
  assert_int_equal(t.entry_count, MANY / 2);
  assert_int_equal(find_value(&t, &layout_pve_vm_9_0, "prod", "103"), -1);
  assert_int_equal(find_value(&t, &layout_pve_vm_9_0, "", "102"), 2);
  released = 0;
  rrd_keyed_table_destroy(&t, release);
  assert_int_equal(released, MANY / 2);
}

static int stop_at_third(struct rrd_keyed *k, void *ctx) {
  (void)k;
  return ++*(int *)ctx == 3 ? 7 : 0;
}

static void test_each_stops(void **state) {
  (void)state;
  struct rrd_keyed_table t;
  assert_int_equal(rrd_keyed_table_init(&t), 0);
  for (int i = 0; i < 10; i++) {
    char name[8];
    snprintf(name, sizeof(name), "n%d", i);
    item_new(&t, &layout_pve_node_9_0, "", name, i);
  }
  int seen = 0;
  assert_int_equal(rrd_keyed_table_each(&t, stop_at_third, &seen), 7);
  assert_int_equal(seen, 3);
  released = 0;
  rrd_keyed_table_destroy(&t, release);
  assert_int_equal(released, 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_three_parts),
      cmocka_unit_test(test_many),
      cmocka_unit_test(test_each_stops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

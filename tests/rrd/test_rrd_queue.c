/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/sink/rrd_queue.c: first in first out across the ring's end, the
 * bound, and rows that carry a copy of everything (the caller's buffers
 * are reused by collectd as soon as the write callback returns).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_queue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rrd_queued_row *row(time_t t) {
  double v[3] = {(double)t, 0.5, -1};
  char name[24];
  snprintf(name, sizeof(name), "%lld", (long long)t);
  return rrd_queued_row_new(&layout_pve_vm_9_0, NULL, name, t, v, 3);
}

static void test_copy(void **state) {
  (void)state;
  double v[2] = {1.25, 2.5};
  char name[] = "100";
  struct rrd_queued_row *r =
      rrd_queued_row_new(&layout_pve_vm_9_0, NULL, name, 42, v, 2);
  v[0] = 0;
  name[0] = 'x';
  assert_non_null(r);
  assert_ptr_equal(r->layout, &layout_pve_vm_9_0);
  assert_string_equal(r->name, "100");
  assert_int_equal(r->t, 42);
  assert_int_equal(r->n, 2);
  assert_true(r->values[0] == 1.25 && r->values[1] == 2.5);
  free(r);
  assert_null(rrd_queued_row_new(&layout_pve_vm_9_0, NULL, "1", 1, v,
                                 RRD_LAYOUT_DS_MAX + 1));
  assert_null(rrd_queued_row_new(&layout_pve_vm_9_0, NULL, NULL, 1, v, 1));
}

static void test_fifo_and_bound(void **state) {
  (void)state;
  struct rrd_queue q;
  assert_int_equal(rrd_queue_init(&q, 0), -EINVAL);
  assert_int_equal(rrd_queue_init(&q, 3), 0);
  assert_null(rrd_queue_peek(&q));
  assert_null(rrd_queue_pop(&q));
  time_t next_in = 1, next_out = 1;
  for (int round = 0; round < 5; round++) { /* wraps around the ring */
    while (q.count < 3)
      assert_int_equal(rrd_queue_push(&q, row(next_in++)), 0);
    struct rrd_queued_row *extra = row(99);
    assert_int_equal(rrd_queue_push(&q, extra), -ENOSPC);
    free(extra);
    for (int i = 0; i < 2; i++) {
      assert_int_equal(rrd_queue_peek(&q)->t, next_out);
      struct rrd_queued_row *r = rrd_queue_pop(&q);
      assert_int_equal(r->t, next_out++);
      free(r);
    }
  }
  assert_int_equal(q.count, 1);
  rrd_queue_destroy(&q); /* frees the row left */
  assert_null(q.slots);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_copy),
      cmocka_unit_test(test_fifo_and_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

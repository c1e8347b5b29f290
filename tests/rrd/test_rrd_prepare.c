/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * librrd 1.7 computes its NaN and infinity lazily and not thread-safely
 * (see rrd_file_prepare_librrd): two write threads making their first
 * librrd calls at once once created a file with "min must be less than
 * max" for a "U" maximum.  The store must compute both constants before it
 * is handed to any thread, that is, before rrd_store_new returns.
 *
 * This binary defines the two librrd functions itself, so it sees every
 * call to them -- from the store and from librrd alike -- and returns the
 * constants librrd would.  The race itself is a few instructions wide and
 * cannot be provoked on demand; what can fail here is the store no longer
 * computing them up front.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_fixture.h"
#include "pvecg/rrd_store.h"

#include <math.h>
#include <rrd.h>
#include <stdlib.h>

static int dnan_calls, dinf_calls;

double rrd_set_to_DNAN(void) {
  dnan_calls++;
  return NAN;
}

double rrd_set_to_DINF(void) {
  dinf_calls++;
  return INFINITY;
}

static void test_store_computes_constants_first(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("rrd-prepare");
  struct rrd_store_options o = {.data_dir = dir, .recheck_seconds = 60};
  struct rrd_store *store = NULL;
  assert_int_equal(dnan_calls, 0);
  assert_int_equal(dinf_calls, 0);
  assert_int_equal(rrd_store_new(&o, &store), 0);
  assert_int_equal(dnan_calls, 1);
  assert_int_equal(dinf_calls, 1);

  /* A file made through the store afterwards still has "U" as unknown. */
  double v[RRD_LAYOUT_DS_MAX];
  for (size_t i = 0; i < layout_pve_vm_9_0.ds_count; i++)
    v[i] = NAN;
  struct rrd_store_result res;
  assert_int_equal(rrd_store_write(store, &layout_pve_vm_9_0, NULL, "100",
                                   1800000000, v, layout_pve_vm_9_0.ds_count,
                                   1800000000, &res),
                   0);
  assert_int_equal(res.outcome, RRD_STORE_CREATED);
  rrd_store_free(store);
  fixture_remove(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_store_computes_constants_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

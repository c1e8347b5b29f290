/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of an interval's kept guest rows (src/row/guest_batch.c):
 * every row as guest_row_fill gives it, in order, past the first
 * growths; the whole samples and names only in whole runs, names that
 * survive the sampler's and the batch's memory moving; no memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/guest_batch.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- realloc, failing on demand (-Wl,--wrap=realloc) --------------------- */

void *__real_realloc(void *ptr, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static bool realloc_fails;

void *__wrap_realloc(void *ptr, size_t size) {
  if (realloc_fails)
    return NULL;
  return __real_realloc(ptr, size);
}

/* ---- samples ----------------------------------------------------------- */

#define GUESTS 300 /* past the first capacity (64) and two doublings */

static char names[GUESTS][24];

/* Guest i: VMID 100 + i, its memory and cpu pressure telling it apart. */
static struct guest_sample sample(int i) {
  struct guest_sample s;
  memset(&s, 0, sizeof(s));
  s.vmid = 100 + (uint32_t)i;
  s.type = i % 3 ? GUEST_QEMU : GUEST_LXC;
  s.memory_valid = true;
  s.memory_used = 1048576u * (uint64_t)(i + 1);
  s.psi_valid[PSI_CPU] = true;
  s.psi[PSI_CPU].some.avg10 = i / 4.0;
  s.psi[PSI_CPU].some.avg300 = 7.0; /* not a row column */
  snprintf(names[i], sizeof(names[i]), "guest-%d", i);
  s.name = names[i];
  return s;
}

static struct guest_row_map map;
static struct guest_batch batch;

static int setup(void **state) {
  (void)state;
  assert_int_equal(guest_row_map_init(&map, &layout_pve_vm_9_0), 0);
  guest_batch_init(&batch, &map);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  guest_batch_free(&batch);
  return 0;
}

static void fill(bool whole) {
  guest_batch_start(&batch, whole);
  for (int i = 0; i < GUESTS; i++) {
    struct guest_sample s = sample(i);
    assert_true(guest_batch_add(&batch, &s));
  }
  assert_int_equal(batch.len, GUESTS);
}

/* Row i is exactly guest_row_fill's row of guest i. */
static void assert_rows(void) {
  for (int i = 0; i < GUESTS; i++) {
    const struct batched_row *r = guest_batch_row(&batch, (size_t)i);
    struct guest_sample s = sample(i);
    double want[RRD_LAYOUT_DS_MAX];
    guest_row_fill(&map, &s, want);
    assert_int_equal(r->vmid, 100 + i);
    assert_int_equal(r->type, s.type);
    for (size_t c = 0; c < map.width; c++)
      assert_true(isnan(want[c]) ? isnan(r->values[c])
                                 : r->values[c] == want[c]);
  }
}

static void test_rows_only(void **state) {
  (void)state;
  assert_int_equal(batch.row_size, 8 + 17 * sizeof(double));
  fill(false);
  assert_rows();
  const struct batched_row *r = guest_batch_row(&batch, 4);
  assert_true(r->values[10] == 5.0 * 1048576); /* memhost of VM 104 */
  assert_true(r->values[11] == 1.0);           /* its cpu some avg10 */
  r = guest_batch_row(&batch, 3);
  assert_int_equal(r->type, GUEST_LXC);
  assert_true(isnan(r->values[10])); /* a container has no memhost */
  assert_null(guest_batch_sample(&batch, 0));
  assert_null(batch.samples); /* nothing but rows was written */
}

static void test_whole_samples(void **state) {
  (void)state;
  fill(true);
  memset(names, 'x', sizeof(names)); /* the sampler's names moved on */
  assert_rows();
  for (int i = 0; i < GUESTS; i++) {
    const struct guest_sample *s = guest_batch_sample(&batch, (size_t)i);
    char want[24];
    snprintf(want, sizeof(want), "guest-%d", i);
    assert_non_null(s);
    assert_int_equal(s->vmid, 100 + i);
    assert_true(s->psi[PSI_CPU].some.avg300 == 7.0);
    assert_string_equal(s->name, want);
  }
  /* A run that keeps rows only starts empty and gives no samples. */
  guest_batch_start(&batch, false);
  assert_int_equal(batch.len, 0);
  struct guest_sample s = sample(5);
  assert_true(guest_batch_add(&batch, &s));
  assert_int_equal(guest_batch_row(&batch, 0)->vmid, 105);
  assert_null(guest_batch_sample(&batch, 0));
}

/* A name as long as the config allows is cut, never overrun. */
static void test_long_name(void **state) {
  (void)state;
  guest_batch_start(&batch, true);
  char longname[2 * GUEST_CONFIG_NAME_SIZE];
  memset(longname, 'n', sizeof(longname) - 1);
  longname[sizeof(longname) - 1] = '\0';
  struct guest_sample s = sample(0);
  s.name = longname;
  assert_true(guest_batch_add(&batch, &s));
  s.name = NULL; /* a sample without a name */
  assert_true(guest_batch_add(&batch, &s));
  assert_int_equal(strlen(guest_batch_sample(&batch, 0)->name),
                   GUEST_CONFIG_NAME_SIZE - 1);
  assert_string_equal(guest_batch_sample(&batch, 1)->name, "");
}

/* Without memory a guest is not kept, and nothing kept before is lost. */
static void test_no_memory(void **state) {
  (void)state;
  guest_batch_start(&batch, true);
  struct guest_sample s = sample(0);
  realloc_fails = true;
  assert_false(guest_batch_add(&batch, &s));
  realloc_fails = false;
  assert_int_equal(batch.len, 0);
  for (int i = 0; i < 64; i++) {
    s = sample(i);
    assert_true(guest_batch_add(&batch, &s));
  }
  realloc_fails = true; /* the 65th needs both arrays to grow */
  s = sample(64);
  assert_false(guest_batch_add(&batch, &s));
  realloc_fails = false;
  assert_int_equal(batch.len, 64);
  assert_int_equal(guest_batch_row(&batch, 63)->vmid, 163);
  assert_string_equal(guest_batch_sample(&batch, 63)->name, "guest-63");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_rows_only, setup, teardown),
      cmocka_unit_test_setup_teardown(test_whole_samples, setup, teardown),
      cmocka_unit_test_setup_teardown(test_long_name, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_memory, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

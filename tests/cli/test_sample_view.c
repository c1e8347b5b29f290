/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/cli/sample_view.c: bytes in binary units at every boundary, the
 * exact table and JSON for samples with known, unknown and missing
 * values (a cpu.pressure without "full", no memory, swap known), names
 * copied (the sampler's string does not outlive its callback), and the
 * guests ordered by type and VMID.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sample_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_bytes(uint64_t bytes, const char *expected) {
  char buf[16];
  sample_format_bytes(bytes, buf, sizeof(buf));
  assert_string_equal(buf, expected);
}

static void test_bytes(void **state) {
  (void)state;
  check_bytes(0, "0 B");
  check_bytes(1023, "1023 B");
  check_bytes(1024, "1.0 KiB");
  check_bytes(1536, "1.5 KiB");
  check_bytes(1048575, "1.0 MiB"); /* not "1024.0 KiB" */
  check_bytes(1048576, "1.0 MiB");
  check_bytes(1073741824ull * 3 / 2, "1.5 GiB");
  check_bytes(1099511627776ull, "1.0 TiB");
  check_bytes(UINT64_MAX, "16.0 EiB");
}

static struct guest_sample sample(uint32_t vmid, enum guest_type type,
                                  const char *name) {
  struct guest_sample s = {.vmid = vmid, .type = type, .name = name};
  s.memory_valid = true;
  s.memory_used = 536870912;
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++) {
    s.psi_valid[r] = true;
    s.psi[r].some.avg10 = 1.25 * (r + 1);
    s.psi[r].full.avg10 = 0.5;
    s.psi[r].has_full = true;
  }
  return s;
}

/* Three guests visited out of order: an LXC with swap, a VM without a
 * cpu "full" line and with unknown memory, a VM with a name. */
static void fill(struct sample_view *v) {
  char name[] = "db";
  struct guest_sample ct = sample(200, GUEST_LXC, "");
  ct.memory_detail.valid = 1u << MEMORY_SWAP;
  ct.memory_detail.bytes[MEMORY_SWAP] = 4096;
  struct guest_sample vm = sample(101, GUEST_QEMU, "");
  vm.memory_valid = false;
  vm.psi[PSI_CPU].has_full = false;
  vm.psi_valid[PSI_IO] = false;
  struct guest_sample named = sample(100, GUEST_QEMU, name);
  assert_int_equal(sample_view_add(v, &ct), 0);
  assert_int_equal(sample_view_add(v, &vm), 0);
  assert_int_equal(sample_view_add(v, &named), 0);
  memset(name, 'X', 2); /* the view keeps its own copy */
  sample_view_sort(v);
  v->time = 1700000000;
  v->took_us = 42;
}

static char *render(const struct sample_view *v, bool json) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  assert_non_null(out);
  if (json)
    sample_view_json(v, out);
  else
    sample_view_table(v, out);
  assert_int_equal(fclose(out), 0);
  return text;
}

static void test_table(void **state) {
  (void)state;
  struct sample_view v = {0};
  fill(&v);
  char *text = render(&v, false);
  assert_string_equal(
      text,
      "     VMID TYPE NAME    MEMHOST CPU-SOME CPU-FULL  IO-SOME  IO-FULL "
      "MEM-SOME MEM-FULL       SWAP\n"
      "      100 qemu db    512.0 MiB     1.25     0.50     2.50     0.50     "
      "3.75     0.50          -\n"
      "      101 qemu -             -     1.25        -        -        -     "
      "3.75     0.50          -\n"
      "      200 lxc  -     512.0 MiB     1.25     0.50     2.50     0.50     "
      "3.75     0.50    4.0 KiB\n"
      "3 guests sampled in 42 us\n");
  free(text);
  sample_view_free(&v);
}

static void test_json(void **state) {
  (void)state;
  struct sample_view v = {0};
  fill(&v);
  char *text = render(&v, true);
  assert_string_equal(
      text,
      "{\"time\":1700000000,\"took_us\":42,\"guests\":["
      "{\"vmid\":100,\"type\":\"qemu\",\"name\":\"db\",\"memhost\":536870912,"
      "\"pressurecpusome\":1.25,\"pressurecpufull\":0.5,"
      "\"pressureiosome\":2.5,\"pressureiofull\":0.5,"
      "\"pressurememorysome\":3.75,\"pressurememoryfull\":0.5,"
      "\"swap\":null},"
      "{\"vmid\":101,\"type\":\"qemu\",\"name\":null,\"memhost\":null,"
      "\"pressurecpusome\":1.25,\"pressurecpufull\":null,"
      "\"pressureiosome\":null,\"pressureiofull\":null,"
      "\"pressurememorysome\":3.75,\"pressurememoryfull\":0.5,"
      "\"swap\":null},"
      "{\"vmid\":200,\"type\":\"lxc\",\"name\":null,\"memhost\":536870912,"
      "\"pressurecpusome\":1.25,\"pressurecpufull\":0.5,"
      "\"pressureiosome\":2.5,\"pressureiofull\":0.5,"
      "\"pressurememorysome\":3.75,\"pressurememoryfull\":0.5,"
      "\"swap\":4096}]}\n");
  free(text);
  /* Cleared, the view is empty and says so. */
  sample_view_clear(&v);
  v.took_us = 7;
  text = render(&v, false);
  assert_non_null(strstr(text, "\n0 guests sampled in 7 us\n"));
  free(text);
  sample_view_free(&v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bytes),
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

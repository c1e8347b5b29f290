/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the sample -> pve-vm-9.0 row mapping (src/row/guest_row.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/guest_row.h"

#include <math.h>
#include <string.h>

/* Column positions from Proxmox's definition, written out independently. */
enum {
  COL_MAXCPU = 0,
  COL_CPU = 1,
  COL_MAXMEM = 2,
  COL_MEM = 3,
  COL_MAXDISK = 4,
  COL_DISK = 5,
  COL_DISKREAD = 8,
  COL_DISKWRITE = 9,
  COL_NETIN = 6,
  COL_MEMHOST = 10,
  COL_CPU_SOME = 11,
  COL_CPU_FULL = 12,
  COL_IO_SOME = 13,
  COL_IO_FULL = 14,
  COL_MEMORY_SOME = 15,
  COL_MEMORY_FULL = 16,
  WIDTH = 17,
};

static struct guest_sample full_sample(enum guest_type type) {
  struct guest_sample s;
  memset(&s, 0, sizeof(s));
  s.vmid = 100;
  s.type = type;
  s.memory_valid = true;
  s.memory_used = 968884224;
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++) {
    s.psi_valid[r] = true;
    s.psi[r].has_full = true;
    s.psi[r].some.avg10 = 1.5 + r;
    s.psi[r].full.avg10 = 0.25 + r;
    s.psi[r].some.avg60 = 99; /* not a row column */
  }
  return s;
}

static void test_map_positions(void **state) {
  (void)state;
  struct guest_row_map map;
  assert_int_equal(guest_row_map_init(&map, &layout_pve_vm_9_0), 0);
  assert_int_equal(map.width, WIDTH);
  assert_int_equal(map.mem, COL_MEM);
  assert_int_equal(map.memhost, COL_MEMHOST);
  assert_int_equal(map.pressure_some[PSI_CPU], COL_CPU_SOME);
  assert_int_equal(map.pressure_full[PSI_CPU], COL_CPU_FULL);
  assert_int_equal(map.pressure_some[PSI_IO], COL_IO_SOME);
  assert_int_equal(map.pressure_full[PSI_IO], COL_IO_FULL);
  assert_int_equal(map.pressure_some[PSI_MEMORY], COL_MEMORY_SOME);
  assert_int_equal(map.pressure_full[PSI_MEMORY], COL_MEMORY_FULL);
}

static void test_qemu_row(void **state) {
  (void)state;
  struct guest_row_map map;
  double v[WIDTH];
  assert_int_equal(guest_row_map_init(&map, &layout_pve_vm_9_0), 0);
  struct guest_sample s = full_sample(GUEST_QEMU);
  guest_row_fill(&map, &s, v);
  assert_true(v[COL_MEMHOST] == 968884224.0);
  assert_true(v[COL_MEM] == 968884224.0);
  assert_true(v[COL_CPU_SOME] == 1.5);
  assert_true(v[COL_CPU_FULL] == 0.25);
  assert_true(v[COL_IO_SOME] == 2.5);
  assert_true(v[COL_MEMORY_FULL] == 2.25);
  /* Nothing known beyond memory and pressure in this sample. */
  for (int i = 0; i < COL_MEM; i++)
    assert_true(isnan(v[i]));
  for (int i = COL_MAXDISK; i < COL_MEMHOST; i++)
    assert_true(isnan(v[i]));
}

static void test_lxc_has_no_memhost(void **state) {
  (void)state;
  struct guest_row_map map;
  double v[WIDTH];
  assert_int_equal(guest_row_map_init(&map, &layout_pve_vm_9_0), 0);
  struct guest_sample s = full_sample(GUEST_LXC);
  guest_row_fill(&map, &s, v);
  assert_true(isnan(v[COL_MEMHOST]));
  assert_true(v[COL_MEM] == 968884224.0);
  assert_true(v[COL_MEMORY_SOME] == 3.5);
}

static void test_unknowns(void **state) {
  (void)state;
  struct guest_row_map map;
  double v[WIDTH];
  assert_int_equal(guest_row_map_init(&map, &layout_pve_vm_9_0), 0);
  struct guest_sample s = full_sample(GUEST_QEMU);
  s.memory_valid = false;
  s.psi_valid[PSI_IO] = false;
  s.psi[PSI_CPU].has_full = false;
  guest_row_fill(&map, &s, v);
  assert_true(isnan(v[COL_MEMHOST]));
  assert_true(isnan(v[COL_MEM]));
  assert_true(isnan(v[COL_IO_SOME]));
  assert_true(isnan(v[COL_IO_FULL]));
  assert_true(v[COL_CPU_SOME] == 1.5);
  assert_true(isnan(v[COL_CPU_FULL]));
  assert_true(v[COL_MEMORY_SOME] == 3.5);
}

static void test_cpu_limits_and_io(void **state) {
  (void)state;
  struct guest_row_map map;
  double v[WIDTH];
  assert_int_equal(guest_row_map_init(&map, &layout_pve_vm_9_0), 0);
  struct guest_sample s = full_sample(GUEST_QEMU);
  s.maxcpu_valid = true;
  s.maxcpu = 4;
  s.cpu_valid = true;
  s.cpu_busy = 1.5;
  s.maxmem_valid = true;
  s.maxmem = 4294967296u;
  s.io_valid = true;
  s.io.rbytes = 123456789012;
  s.io.wbytes = 42;
  guest_row_fill(&map, &s, v);
  assert_true(v[COL_MAXCPU] == 4.0);
  assert_true(v[COL_CPU] == 0.375); /* 1.5 busy CPUs of 4 */
  assert_true(v[COL_MAXMEM] == 4294967296.0);
  assert_true(v[COL_DISKREAD] == 123456789012.0);
  assert_true(v[COL_DISKWRITE] == 42.0);
  assert_true(isnan(v[COL_MAXDISK]));
  assert_true(isnan(v[COL_DISK]));
  assert_true(isnan(v[COL_NETIN]));
  /* cpu needs maxcpu. */
  s.maxcpu_valid = false;
  guest_row_fill(&map, &s, v);
  assert_true(isnan(v[COL_MAXCPU]));
  assert_true(isnan(v[COL_CPU]));
}

static void test_layout_without_columns(void **state) {
  (void)state;
  struct guest_row_map map;
  /* The legacy layout has no memhost or pressure columns. */
  assert_true(guest_row_map_init(&map, &layout_pve2_vm) < 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_map_positions),
      cmocka_unit_test(test_qemu_row),
      cmocka_unit_test(test_lxc_has_no_memhost),
      cmocka_unit_test(test_unknowns),
      cmocka_unit_test(test_cpu_limits_and_io),
      cmocka_unit_test(test_layout_without_columns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

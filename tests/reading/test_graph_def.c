/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/reading/graph_def.c: every graph draws data sources its layout
 * has (and the node's pressure graph has no cpu full), and the librrd arguments
 * come out exactly, with the legacy file's lines, the x100 of cpu/iowait and
 * ':' escaped in file names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/graph_def.h"

#include <errno.h>
#include <string.h>

static void test_what_parse(void **state) {
  (void)state;
  enum graph_what w = GRAPH_CPU;
  assert_int_equal(graph_what_parse("memory", &w), 0);
  assert_int_equal(w, GRAPH_MEMORY);
  assert_int_equal(graph_what_parse("disk", &w), 0);
  assert_int_equal(w, GRAPH_DISK);
  assert_int_equal(graph_what_parse("mem", &w), -EINVAL);
  assert_int_equal(graph_what_parse(NULL, &w), -EINVAL);
  assert_int_equal(w, GRAPH_DISK);
}

static void check_layout(bool node, const struct rrd_layout *layout) {
  for (int w = GRAPH_MEMORY; w <= GRAPH_DISK; w++) {
    const struct graph_def *def = graph_def_get((enum graph_what)w, node);
    assert_non_null(def);
    assert_in_range(def->line_count, 1, GRAPH_LINES_MAX);
    for (size_t k = 0; k < def->line_count; k++)
      assert_true(rrd_layout_ds_index(layout, def->lines[k].ds) >= 0);
  }
}

static void test_series_exist(void **state) {
  (void)state;
  check_layout(false, &layout_pve_vm_9_0);
  check_layout(true, &layout_pve_node_9_0);
  assert_int_equal(graph_def_get(GRAPH_PRESSURE, false)->line_count, 6);
  assert_int_equal(graph_def_get(GRAPH_PRESSURE, true)->line_count, 5);
  const struct graph_def *mem = graph_def_get(GRAPH_MEMORY, false);
  assert_string_equal(mem->lines[0].ds, "maxmem");
  assert_string_equal(mem->lines[1].ds, "mem");
  assert_string_equal(mem->lines[2].ds, "memhost");
  assert_int_equal(mem->base, 1024);
}

static void check_args(const struct graph_args *args,
                       const char *const *expected, int n) {
  assert_int_equal(args->argc, n);
  for (int i = 0; i < n; i++)
    assert_string_equal(args->argv[i], expected[i]);
  assert_null(args->argv[n]);
}

static void test_guest_memory_with_legacy(void **state) {
  (void)state;
  struct graph_request req = {
      .out = "/o/m.png",
      .path = "/d:x/pve-vm-9.0/100",
      .name = "100",
      .timeframe = "day",
      .cf = RRD_CF_MAX,
      .start = 1699913580,
      .end = 1699999980,
      .step = 60,
      .width = 640,
      .height = 200,
      .daemon = "unix:/s",
      .legacy_path = "/d:x/pve2-vm/100",
      .legacy_layout = &layout_pve2_vm,
      .legacy_last = 1699950000,
  };
  struct graph_args args;
  assert_int_equal(
      graph_args_build(graph_def_get(GRAPH_MEMORY, false), &req, &args), 0);
  static const char *const expected[] = {
      "graphv",
      "/o/m.png",
      "--imgformat=PNG",
      "--full-size-mode",
      "--width=640",
      "--height=200",
      "--start=1699913580",
      "--end=1699999980",
      "--step=60",
      "--title=Memory usage - 100 (day, MAX)",
      "--vertical-label=bytes",
      "--base=1024",
      "--lower-limit=0",
      "--daemon=unix:/s",
      "DEF:v0=/d\\:x/pve-vm-9.0/100:maxmem:MAX:start=1699950000",
      "LINE2:v0#115fa6:Total",
      "DEF:o0=/d\\:x/pve2-vm/100:maxmem:MAX",
      "LINE2:o0#115fa6",
      "DEF:v1=/d\\:x/pve-vm-9.0/100:mem:MAX:start=1699950000",
      "LINE2:v1#94ae0a:RAM usage",
      "DEF:o1=/d\\:x/pve2-vm/100:mem:MAX",
      "LINE2:o1#94ae0a",
      /* the legacy layout has no memhost */
      "DEF:v2=/d\\:x/pve-vm-9.0/100:memhost:MAX",
      "LINE2:v2#ff8809:Host memory usage",
  };
  check_args(&args, expected, sizeof(expected) / sizeof(expected[0]));
  graph_args_free(&args);
  assert_int_equal(args.argc, 0);
  assert_null(args.argv);
}

static void test_node_cpu_percent(void **state) {
  (void)state;
  struct graph_request req = {
      .out = "c.png",
      .path = "pve-node-9.0/n1",
      .name = "n1",
      .timeframe = "hour",
      .cf = RRD_CF_AVERAGE,
      .start = 100,
      .end = 3700,
      .step = 60,
      .width = 800,
      .height = 300,
  };
  struct graph_args args;
  assert_int_equal(
      graph_args_build(graph_def_get(GRAPH_CPU, true), &req, &args), 0);
  static const char *const expected[] = {
      "graphv",
      "c.png",
      "--imgformat=PNG",
      "--full-size-mode",
      "--width=800",
      "--height=300",
      "--start=100",
      "--end=3700",
      "--step=60",
      "--title=CPU usage - n1 (hour, AVERAGE)",
      "--vertical-label=%",
      "--base=1000",
      "--lower-limit=0",
      "DEF:v0=pve-node-9.0/n1:cpu:AVERAGE",
      "CDEF:v0p=v0,100,*",
      "LINE2:v0p#115fa6:CPU usage",
      "DEF:v1=pve-node-9.0/n1:iowait:AVERAGE",
      "CDEF:v1p=v1,100,*",
      "LINE2:v1p#a61120:IO delay",
  };
  check_args(&args, expected, sizeof(expected) / sizeof(expected[0]));
  graph_args_free(&args);
}

/* A legacy file updated at (or after) the graph's last row: the 9.0 lines
 * still start before the end, as librrd requires. */
static void test_legacy_after_the_end(void **state) {
  (void)state;
  struct graph_request req = {
      .out = "c.png",
      .path = "pve-vm-9.0/100",
      .name = "100",
      .timeframe = "decade",
      .start = 1354752000,
      .end = 1699488000,
      .step = 604800,
      .width = 800,
      .height = 300,
      .legacy_path = "pve2-vm/100",
      .legacy_layout = &layout_pve2_vm,
      .legacy_last = 1699950000,
  };
  struct graph_args args;
  assert_int_equal(
      graph_args_build(graph_def_get(GRAPH_CPU, false), &req, &args), 0);
  assert_string_equal(args.argv[13],
                      "DEF:v0=pve-vm-9.0/100:cpu:AVERAGE:start=1698883200");
  assert_string_equal(args.argv[16], "DEF:o0=pve2-vm/100:cpu:AVERAGE");
  graph_args_free(&args);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_what_parse),
      cmocka_unit_test(test_series_exist),
      cmocka_unit_test(test_guest_memory_with_legacy),
      cmocka_unit_test(test_node_cpu_percent),
      cmocka_unit_test(test_legacy_after_the_end),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

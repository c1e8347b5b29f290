/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_openmetrics.c: a file's rows gathered and
 * written metric by metric as OpenMetrics (promtool's input) or
 * Prometheus' text format (VictoriaMetrics'), compared as exact text.
 * Covered: HELP and TYPE before each metric's run of samples and none for
 * a metric without a known value, `_total` on counters beside
 * prometheus-pve-exporter's deprecated gauge of the same values (its HELP
 * texts; in OpenMetrics the counter's family `unknown`), the id label of
 * prometheus-pve-exporter (qemu/100, lxc/101, node/pve1) with '"', '\'
 * and newlines escaped, pressure as a ratio (percent / 100), seconds for
 * OpenMetrics and milliseconds for Prometheus, "# EOF" only for
 * OpenMetrics, a legacy pve2-vm row leaving the newer columns unknown,
 * rows forgotten after a write, and a series growing past its first
 * 1024 rows.  pvecg's stall counters (already in seconds) under /metrics'
 * names, node_exporter's: some as waiting, full as stalled, with id and
 * cluster labels only; a guest's pve_guest_info
 * with /metrics' labels at each row with a known value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "text_capture.h"

#include "export_openmetrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U NAN
#define T 1700000060

/* Writes the gathered rows and compares text and counts. */
static void check_write(struct export_series *s, enum export_format f,
                        const struct export_source *src, const char *expected,
                        size_t lines) {
  struct capture c;
  capture_open(&c);
  struct export_count n = {99, 99};
  assert_int_equal(export_series_write(s, f, src, c.out, &n), 0);
  capture_check(&c, expected);
  assert_int_equal(n.lines, lines);
  assert_int_equal(n.values, lines);
}

static struct export_source source(enum export_kind kind, const char *object,
                                   const char *name,
                                   const struct rrd_layout *layout) {
  return (struct export_source){.kind = kind,
                                .name = name,
                                .file = "x",
                                .prefix = "pve",
                                .layout = layout,
                                .names = EXPORT_NAMES_PVE,
                                .object = object,
                                .nodename = "pve1",
                                .title = ""};
}

/* Makes the first n values of a row unknown. */
static void set_row(double *row, size_t n) {
  for (size_t i = 0; i < n; i++)
    row[i] = U;
}

/* pve-vm-9.0: maxcpu(0) cpu(1) mem(3) netin(6) pressurecpusome(11). */
static void add_vm_rows(struct export_series *s) {
  double row[17];
  set_row(row, 17);
  row[0] = 2;
  row[1] = 0.5;
  row[3] = 1073741824;
  row[6] = 0;
  row[11] = 2.5;
  assert_int_equal(export_series_add(s, T, row, 17), 0);
  row[1] = 0.25;
  row[3] = U;
  row[6] = 1536;
  row[11] = 12.5;
  assert_int_equal(export_series_add(s, T + 60, row, 17), 0);
}

/* prometheus-pve-exporter 3.8's HELP (collector/cluster.py) of the
 * counter and of the deprecated gauge beside it. */
#define RECEIVE_HELP                                                           \
  "The amount of traffic in bytes that was sent to the guest over the "        \
  "network since it was started. (for types 'qemu' and 'lxc')"
#define RECEIVE_OLDER_HELP                                                     \
  RECEIVE_HELP " DEPRECATED: Use pve_network_receive_bytes_total instead.\n"
#define TRANSMIT_HELP                                                          \
  "The amount of traffic in bytes that was sent from the guest over the "      \
  "network since it was started. (for types 'qemu' and 'lxc')"
#define TRANSMIT_OLDER_HELP                                                    \
  TRANSMIT_HELP " DEPRECATED: Use pve_network_transmit_bytes_total instead.\n"

#define PSI_CPU_SOME_HELP                                                      \
  "# HELP pve_pressure_cpu_some_ratio Share of the last 10 s in which some "   \
  "tasks were stalled on CPU (pressure stall information, avg10)\n"

static void test_guest_openmetrics(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  add_vm_rows(&s);
  struct export_source src =
      source(EXPORT_VM, "qemu", "100", &layout_pve_vm_9_0);
  check_write(&s, EXPORT_OPENMETRICS, &src,
              "# HELP pve_cpu_usage_limit Number of available CPUs\n"
              "# TYPE pve_cpu_usage_limit gauge\n"
              "pve_cpu_usage_limit{id=\"qemu/100\"} 2 1700000060\n"
              "pve_cpu_usage_limit{id=\"qemu/100\"} 2 1700000120\n"
              "# HELP pve_cpu_usage_ratio CPU utilization\n"
              "# TYPE pve_cpu_usage_ratio gauge\n"
              "pve_cpu_usage_ratio{id=\"qemu/100\"} 0.5 1700000060\n"
              "pve_cpu_usage_ratio{id=\"qemu/100\"} 0.25 1700000120\n"
              "# HELP pve_memory_usage_bytes Used memory in bytes\n"
              "# TYPE pve_memory_usage_bytes gauge\n"
              "pve_memory_usage_bytes{id=\"qemu/100\"} 1073741824 1700000060\n"
              "# HELP pve_network_receive_bytes_total " RECEIVE_HELP "\n"
              "# TYPE pve_network_receive_bytes_total unknown\n"
              "pve_network_receive_bytes_total{id=\"qemu/100\"} 0 1700000060\n"
              "pve_network_receive_bytes_total{id=\"qemu/100\"} 1536 "
              "1700000120\n"
              "# HELP pve_network_receive_bytes " RECEIVE_OLDER_HELP
              "# TYPE pve_network_receive_bytes gauge\n"
              "pve_network_receive_bytes{id=\"qemu/100\"} 0 1700000060\n"
              "pve_network_receive_bytes{id=\"qemu/100\"} 1536 "
              "1700000120\n" PSI_CPU_SOME_HELP
              "# TYPE pve_pressure_cpu_some_ratio gauge\n"
              "pve_pressure_cpu_some_ratio{id=\"qemu/100\"} 0.025 1700000060\n"
              "pve_pressure_cpu_some_ratio{id=\"qemu/100\"} 0.125 1700000120\n",
              11);
  /* The rows are gone after a write. */
  assert_int_equal(s.count, 0);
  check_write(&s, EXPORT_OPENMETRICS, &src, "", 0);

  struct capture c;
  capture_open(&c);
  export_series_end(EXPORT_OPENMETRICS, c.out);
  capture_check(&c, "# EOF\n");
  export_series_free(&s);
}

/* The same rows in Prometheus' text format: milliseconds, no "# EOF". */
static void test_guest_prometheus(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  add_vm_rows(&s);
  struct export_source src =
      source(EXPORT_VM, "qemu", "100", &layout_pve_vm_9_0);
  check_write(&s, EXPORT_PROMETHEUS, &src,
              "# HELP pve_cpu_usage_limit Number of available CPUs\n"
              "# TYPE pve_cpu_usage_limit gauge\n"
              "pve_cpu_usage_limit{id=\"qemu/100\"} 2 1700000060000\n"
              "pve_cpu_usage_limit{id=\"qemu/100\"} 2 1700000120000\n"
              "# HELP pve_cpu_usage_ratio CPU utilization\n"
              "# TYPE pve_cpu_usage_ratio gauge\n"
              "pve_cpu_usage_ratio{id=\"qemu/100\"} 0.5 1700000060000\n"
              "pve_cpu_usage_ratio{id=\"qemu/100\"} 0.25 1700000120000\n"
              "# HELP pve_memory_usage_bytes Used memory in bytes\n"
              "# TYPE pve_memory_usage_bytes gauge\n"
              "pve_memory_usage_bytes{id=\"qemu/100\"} 1073741824 "
              "1700000060000\n"
              "# HELP pve_network_receive_bytes_total " RECEIVE_HELP "\n"
              "# TYPE pve_network_receive_bytes_total counter\n"
              "pve_network_receive_bytes_total{id=\"qemu/100\"} 0 "
              "1700000060000\n"
              "pve_network_receive_bytes_total{id=\"qemu/100\"} 1536 "
              "1700000120000\n"
              "# HELP pve_network_receive_bytes " RECEIVE_OLDER_HELP
              "# TYPE pve_network_receive_bytes gauge\n"
              "pve_network_receive_bytes{id=\"qemu/100\"} 0 1700000060000\n"
              "pve_network_receive_bytes{id=\"qemu/100\"} 1536 "
              "1700000120000\n" PSI_CPU_SOME_HELP
              "# TYPE pve_pressure_cpu_some_ratio gauge\n"
              "pve_pressure_cpu_some_ratio{id=\"qemu/100\"} 0.025 "
              "1700000060000\n"
              "pve_pressure_cpu_some_ratio{id=\"qemu/100\"} 0.125 "
              "1700000120000\n",
              11);
  struct capture c;
  capture_open(&c);
  export_series_end(EXPORT_PROMETHEUS, c.out);
  capture_check(&c, "");
  export_series_free(&s);
}

/* A legacy file's row has the first 10 columns of pve-vm-9.0: the rest
 * are unknown, whatever lies past n in the caller's array. */
static void test_legacy_row(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  double old[17];
  for (size_t i = 0; i < 17; i++)
    old[i] = 7;
  set_row(old, 10);
  old[1] = 0.5;
  assert_int_equal(export_series_add(&s, T, old, layout_pve2_vm.ds_count), 0);
  double now[17];
  set_row(now, 17);
  now[10] = 3; /* memhost */
  assert_int_equal(export_series_add(&s, T + 60, now, 17), 0);
  struct export_source src =
      source(EXPORT_VM, "lxc", "101", &layout_pve_vm_9_0);
  check_write(&s, EXPORT_OPENMETRICS, &src,
              "# HELP pve_cpu_usage_ratio CPU utilization\n"
              "# TYPE pve_cpu_usage_ratio gauge\n"
              "pve_cpu_usage_ratio{id=\"lxc/101\"} 0.5 1700000060\n"
              "# HELP pve_memory_host_bytes Host memory the guest's cgroup "
              "uses, page cache excluded (memory.current - memory.stat file)\n"
              "# TYPE pve_memory_host_bytes gauge\n"
              "pve_memory_host_bytes{id=\"lxc/101\"} 3 1700000120\n",
              2);
  export_series_free(&s);
}

/* A node: its own names, a counter, pressure as a ratio; each file repeats
 * HELP and TYPE. */
static void test_node(void **state) {
  (void)state;
  struct export_series s = {0};
  double row[19];
  set_row(row, 19);
  row[0] = 0.75;  /* loadavg */
  row[11] = 2048; /* netout */
  row[16] = 50;   /* pressureiofull */
  const char *expected =
      "# HELP pve_load1 Load average over 1 minute\n"
      "# TYPE pve_load1 gauge\n"
      "pve_load1{id=\"node/pve1\"} 0.75 1700000060\n"
      "# HELP pve_network_transmit_bytes_total " TRANSMIT_HELP "\n"
      "# TYPE pve_network_transmit_bytes_total unknown\n"
      "pve_network_transmit_bytes_total{id=\"node/pve1\"} 2048 1700000060\n"
      "# HELP pve_network_transmit_bytes " TRANSMIT_OLDER_HELP
      "# TYPE pve_network_transmit_bytes gauge\n"
      "pve_network_transmit_bytes{id=\"node/pve1\"} 2048 1700000060\n"
      "# HELP pve_pressure_io_full_ratio Share of the last 10 s in which all "
      "tasks were stalled on IO (pressure stall information, avg10)\n"
      "# TYPE pve_pressure_io_full_ratio gauge\n"
      "pve_pressure_io_full_ratio{id=\"node/pve1\"} 0.5 1700000060\n";
  struct export_source src =
      source(EXPORT_NODE, "nodes", "pve1", &layout_pve_node_9_0);
  for (int file = 0; file < 2; file++) {
    export_series_begin(&s, &layout_pve_node_9_0);
    assert_int_equal(export_series_add(&s, T, row, 19), 0);
    check_write(&s, EXPORT_OPENMETRICS, &src, expected, 4);
  }
  export_series_free(&s);
}

/* A node name with '"', '\' and a newline: a label value escapes them. */
static void test_label_escaping(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_node_9_0);
  double row[19];
  set_row(row, 19);
  row[2] = 0.125; /* cpu */
  assert_int_equal(export_series_add(&s, -60, row, 19), 0);
  struct export_source src =
      source(EXPORT_NODE, "nodes", "a\"b\\c\nd", &layout_pve_node_9_0);
  check_write(&s, EXPORT_PROMETHEUS, &src,
              "# HELP pve_cpu_usage_ratio CPU utilization\n"
              "# TYPE pve_cpu_usage_ratio gauge\n"
              "pve_cpu_usage_ratio{id=\"node/a\\\"b\\\\c\\nd\"} 0.125 -60000\n",
              1);
  export_series_free(&s);
}

/* A named cluster's file: cluster="..." after id, escaped the same way;
 * none for the data directory's own. */
static void test_cluster_label(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_node_9_0);
  double row[19];
  set_row(row, 19);
  row[2] = 0.125; /* cpu */
  assert_int_equal(export_series_add(&s, 60, row, 19), 0);
  struct export_source src =
      source(EXPORT_NODE, "nodes", "pve1", &layout_pve_node_9_0);
  src.cluster = "pr\"od";
  check_write(&s, EXPORT_OPENMETRICS, &src,
              "# HELP pve_cpu_usage_ratio CPU utilization\n"
              "# TYPE pve_cpu_usage_ratio gauge\n"
              "pve_cpu_usage_ratio{id=\"node/pve1\",cluster=\"pr\\\"od\"} "
              "0.125 60\n",
              1);
  assert_int_equal(export_series_add(&s, 60, row, 19), 0);
  src.cluster = "";
  check_write(&s, EXPORT_PROMETHEUS, &src,
              "# HELP pve_cpu_usage_ratio CPU utilization\n"
              "# TYPE pve_cpu_usage_ratio gauge\n"
              "pve_cpu_usage_ratio{id=\"node/pve1\"} 0.125 60000\n",
              1);
  export_series_free(&s);
}

/* node_exporter's HELP in spirit: some is waiting, full is stalled. */
#define WAITING(what)                                                          \
  "Seconds in which at least one task waited for " what                        \
  " (the kernel's PSI some total)\n"
#define STALLED(what)                                                          \
  "Seconds in which all non-idle tasks were stalled on " what                  \
  " at once (the kernel's PSI full total)\n"
#define WAITING_CPU WAITING("CPU")
#define STALLED_CPU STALLED("CPU")
#define WAITING_IO WAITING("IO")
#define STALLED_IO STALLED("IO")
#define STALLED_MEMORY STALLED("memory")

/* A stall file's rows, counters in seconds already: some under
 * node_exporter's waiting name, full under its stalled name, each its own
 * family with no label beside id and cluster. */
static void test_stall(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pvecg_pressure_vm_1_0);
  /* cpu some, cpu full, io some, io full, memory some, memory full */
  assert_int_equal(export_series_add(&s, T, (double[6]){0, 0, U, U, U, 0}, 6),
                   0);
  assert_int_equal(
      export_series_add(&s, T + 60, (double[6]){15, 0.5, U, U, U, U}, 6), 0);
  struct export_source src =
      source(EXPORT_VM, "qemu", "100", &layout_pvecg_pressure_vm_1_0);
  src.cluster = "prod";
  check_write(&s, EXPORT_PROMETHEUS, &src,
              "# HELP pve_pressure_cpu_waiting_seconds_total " WAITING_CPU
              "# TYPE pve_pressure_cpu_waiting_seconds_total counter\n"
              "pve_pressure_cpu_waiting_seconds_total{id=\"qemu/100\","
              "cluster=\"prod\"} 0 1700000060000\n"
              "pve_pressure_cpu_waiting_seconds_total{id=\"qemu/100\","
              "cluster=\"prod\"} 15 1700000120000\n"
              "# HELP pve_pressure_cpu_stalled_seconds_total " STALLED_CPU
              "# TYPE pve_pressure_cpu_stalled_seconds_total counter\n"
              "pve_pressure_cpu_stalled_seconds_total{id=\"qemu/100\","
              "cluster=\"prod\"} 0 1700000060000\n"
              "pve_pressure_cpu_stalled_seconds_total{id=\"qemu/100\","
              "cluster=\"prod\"} 0.5 1700000120000\n"
              "# HELP pve_pressure_memory_stalled_seconds_total " STALLED_MEMORY
              "# TYPE pve_pressure_memory_stalled_seconds_total counter\n"
              "pve_pressure_memory_stalled_seconds_total{id=\"qemu/100\","
              "cluster=\"prod\"} 0 1700000060000\n",
              5);
  /* OpenMetrics: the families without _total, the same series. */
  assert_int_equal(export_series_add(&s, T, (double[6]){U, U, 4, 5, U, U}, 6),
                   0);
  src.cluster = NULL;
  check_write(&s, EXPORT_OPENMETRICS, &src,
              "# HELP pve_pressure_io_waiting_seconds " WAITING_IO
              "# TYPE pve_pressure_io_waiting_seconds counter\n"
              "pve_pressure_io_waiting_seconds_total{id=\"qemu/100\"} 4 "
              "1700000060\n"
              "# HELP pve_pressure_io_stalled_seconds " STALLED_IO
              "# TYPE pve_pressure_io_stalled_seconds counter\n"
              "pve_pressure_io_stalled_seconds_total{id=\"qemu/100\"} 5 "
              "1700000060\n",
              2);
  export_series_free(&s);
}

/* A guest's info at each row with a known value, its labels escaped. */
static void test_guest_info(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  double row[17];
  set_row(row, 17);
  assert_int_equal(export_series_add(&s, T, row, 17), 0); /* all unknown */
  row[1] = 0.5;
  assert_int_equal(export_series_add(&s, T + 60, row, 17), 0);
  assert_int_equal(export_series_add(&s, T + 120, row, 17), 0);
  struct export_source src =
      source(EXPORT_VM, "lxc", "101", &layout_pve_vm_9_0);
  src.cluster = "lab";
  struct export_guest_info info = {
      .node = "pve1", .name = "a \"b\"", .tags = "x;y", .template = true};
  struct capture c;
  capture_open(&c);
  assert_int_equal(
      export_series_write_info(&s, EXPORT_PROMETHEUS, &src, &info, c.out), 2);
  capture_check(&c, "# HELP pve_guest_info VM/CT info\n"
                    "# TYPE pve_guest_info gauge\n"
                    "pve_guest_info{id=\"lxc/101\",cluster=\"lab\",node="
                    "\"pve1\",name=\"a \\\"b\\\"\",type=\"lxc\",template="
                    "\"1\",tags=\"x;y\"} 1 1700000120000\n"
                    "pve_guest_info{id=\"lxc/101\",cluster=\"lab\",node="
                    "\"pve1\",name=\"a \\\"b\\\"\",type=\"lxc\",template="
                    "\"1\",tags=\"x;y\"} 1 1700000180000\n");
  /* The rows stay for the values; none known: no info either. */
  check_write(&s, EXPORT_OPENMETRICS, &src,
              "# HELP pve_cpu_usage_ratio CPU utilization\n"
              "# TYPE pve_cpu_usage_ratio gauge\n"
              "pve_cpu_usage_ratio{id=\"lxc/101\",cluster=\"lab\"} 0.5 "
              "1700000120\n"
              "pve_cpu_usage_ratio{id=\"lxc/101\",cluster=\"lab\"} 0.5 "
              "1700000180\n",
              2);
  set_row(row, 17);
  assert_int_equal(export_series_add(&s, T, row, 17), 0);
  capture_open(&c);
  assert_int_equal(
      export_series_write_info(&s, EXPORT_OPENMETRICS, &src, &info, c.out), 0);
  capture_check(&c, "");
  export_series_free(&s);
}

/* Rows without a known value give no metric at all, not even HELP. */
static void test_unknown(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  double row[17];
  set_row(row, 17);
  for (int i = 0; i < 3; i++)
    assert_int_equal(export_series_add(&s, T + 60 * i, row, 17), 0);
  struct export_source src =
      source(EXPORT_VM, "qemu", "100", &layout_pve_vm_9_0);
  check_write(&s, EXPORT_OPENMETRICS, &src, "", 0);
  /* Nothing gathered at all. */
  check_write(&s, EXPORT_PROMETHEUS, &src, "", 0);
  export_series_free(&s);
  /* Freed twice, or never filled: nothing to free. */
  export_series_free(&s);
}

/* 2500 rows: past the first 1024 and the next 2048, every one kept. */
static void test_growth(void **state) {
  (void)state;
  enum { ROWS = 2500 };
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  double row[17];
  set_row(row, 17);
  for (int i = 0; i < ROWS; i++) {
    row[1] = i / 4.0; /* exact */
    assert_int_equal(export_series_add(&s, T + 60 * (time_t)i, row, 17), 0);
  }
  assert_int_equal(s.count, ROWS);
  assert_true(s.capacity >= ROWS);

  char *expected = NULL;
  size_t size = 0;
  FILE *e = open_memstream(&expected, &size);
  assert_non_null(e);
  fputs("# HELP pve_cpu_usage_ratio CPU utilization\n"
        "# TYPE pve_cpu_usage_ratio gauge\n",
        e);
  for (int i = 0; i < ROWS; i++)
    fprintf(e, "pve_cpu_usage_ratio{id=\"lxc/101\"} %g %lld\n", i / 4.0,
            (long long)T + 60LL * i);
  assert_int_equal(fclose(e), 0);

  struct export_source src =
      source(EXPORT_VM, "lxc", "101", &layout_pve_vm_9_0);
  check_write(&s, EXPORT_OPENMETRICS, &src, expected, ROWS);
  free(expected);

  /* The next file reuses the room. */
  size_t capacity = s.capacity;
  export_series_begin(&s, &layout_pve_vm_9_0);
  row[1] = 1;
  assert_int_equal(export_series_add(&s, T, row, 17), 0);
  assert_int_equal(s.capacity, capacity);
  check_write(&s, EXPORT_OPENMETRICS, &src,
              "# HELP pve_cpu_usage_ratio CPU utilization\n"
              "# TYPE pve_cpu_usage_ratio gauge\n"
              "pve_cpu_usage_ratio{id=\"lxc/101\"} 1 1700000060\n",
              1);
  export_series_free(&s);
  assert_null(s.time);
  assert_null(s.value);
  assert_int_equal(s.capacity, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_guest_openmetrics),
      cmocka_unit_test(test_guest_prometheus),
      cmocka_unit_test(test_legacy_row),
      cmocka_unit_test(test_node),
      cmocka_unit_test(test_label_escaping),
      cmocka_unit_test(test_cluster_label),
      cmocka_unit_test(test_stall),
      cmocka_unit_test(test_guest_info),
      cmocka_unit_test(test_unknown),
      cmocka_unit_test(test_growth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

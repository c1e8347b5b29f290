/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/metrics_text.c: a scrape's text from files' newest
 * rows, compared byte for byte.  Covered: a node and two guests sharing
 * families (pve_memory_usage_bytes holds the node's memused and the
 * guests' mem), each family once with its HELP and TYPE before all its
 * samples, unknown values left out and a family without any known value
 * left out entirely, pressure percent as a ratio, counters with `_total`,
 * times in milliseconds for Prometheus and seconds for OpenMetrics, "# EOF"
 * only for OpenMetrics, and label values with '\', '"' and newlines.
 * Each counter's family is followed by the same values as a gauge under
 * prometheus-pve-exporter's older name, both with the exporter's HELP
 * (the gauge's saying DEPRECATED), and in OpenMetrics is typed
 * `unknown` under its _total name (a counter family would own the older
 * name); pve_up 1 for a fresh file and 0 for a stale one, whose values are
 * left out; pve_node_info with empty level and nodeid; pve_guest_info with
 * template and tags.  Stall files' counters: microseconds as seconds,
 * some named waiting and full stalled, counters in both formats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "text_capture.h"

#include "pvecg/metrics_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* prometheus-pve-exporter 3.8's HELP (collector/cluster.py) of the
 * counter and of the deprecated gauge beside it. */
#define RECEIVE_HELP                                                           \
  "The amount of traffic in bytes that was sent to the guest over the "        \
  "network since it was started. (for types 'qemu' and 'lxc')"
#define RECEIVE_OLDER_HELP                                                     \
  RECEIVE_HELP " DEPRECATED: Use pve_network_receive_bytes_total instead.\n"
#include <string.h>

#define U NAN

/* A row of layout with every value unknown but those named. */
struct row {
  double values[RRD_LAYOUT_DS_MAX];
};

static void set(struct row *r, const struct rrd_layout *layout,
                const char *name, double v) {
  int i = rrd_layout_ds_index(layout, name);
  assert_true(i >= 0);
  r->values[i] = v;
}

static void clear(struct row *r) {
  for (size_t i = 0; i < RRD_LAYOUT_DS_MAX; i++)
    r->values[i] = U;
}

/* The node pve1 and the guests qemu/100 and lxc/101, each row at its own
 * time. */
struct scrape {
  struct row node, vm, ct;
  struct metrics_file files[3];
};

static void make_scrape(struct scrape *s) {
  const struct rrd_layout *n = &layout_pve_node_9_0, *g = &layout_pve_vm_9_0;
  clear(&s->node);
  set(&s->node, n, "loadavg", 1.5);
  set(&s->node, n, "memused", 8589934592);
  set(&s->node, n, "netin", 123456);
  set(&s->node, n, "pressurecpusome", 12.5);
  clear(&s->vm);
  set(&s->vm, g, "cpu", U); /* left out */
  set(&s->vm, g, "mem", 1073741824);
  set(&s->vm, g, "netin", 1000);
  set(&s->vm, g, "pressurecpusome", 50);
  clear(&s->ct);
  set(&s->ct, g, "cpu", 0.25);
  set(&s->ct, g, "mem", 536870912);
  set(&s->ct, g, "pressurecpufull", 2.5);
  s->files[0] = (struct metrics_file){
      EXPORT_NODE, "node/pve1", n, 1700000060, s->node.values, false, false};
  s->files[1] = (struct metrics_file){
      EXPORT_VM, "qemu/100", g, 1700000070, s->vm.values, false, false};
  s->files[2] = (struct metrics_file){EXPORT_VM,    "lxc/101", g,    1700000080,
                                      s->ct.values, false,     false};
}

static void test_files_prometheus(void **state) {
  (void)state;
  struct scrape s;
  make_scrape(&s);
  struct capture c;
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_PROMETHEUS, s.files, 3);
  metrics_text_end(c.out, EXPORT_PROMETHEUS);
  capture_check(
      &c,
      "# HELP pve_load1 Load average over 1 minute\n"
      "# TYPE pve_load1 gauge\n"
      "pve_load1{id=\"node/pve1\"} 1.5 1700000060000\n"
      "# HELP pve_cpu_usage_ratio CPU utilization\n"
      "# TYPE pve_cpu_usage_ratio gauge\n"
      "pve_cpu_usage_ratio{id=\"lxc/101\"} 0.25 1700000080000\n"
      "# HELP pve_memory_usage_bytes Used memory in bytes\n"
      "# TYPE pve_memory_usage_bytes gauge\n"
      "pve_memory_usage_bytes{id=\"node/pve1\"} 8589934592 1700000060000\n"
      "pve_memory_usage_bytes{id=\"qemu/100\"} 1073741824 1700000070000\n"
      "pve_memory_usage_bytes{id=\"lxc/101\"} 536870912 1700000080000\n"
      "# HELP pve_network_receive_bytes_total " RECEIVE_HELP "\n"
      "# TYPE pve_network_receive_bytes_total counter\n"
      "pve_network_receive_bytes_total{id=\"node/pve1\"} 123456 "
      "1700000060000\n"
      "pve_network_receive_bytes_total{id=\"qemu/100\"} 1000 1700000070000\n"
      "# HELP pve_network_receive_bytes " RECEIVE_OLDER_HELP
      "# TYPE pve_network_receive_bytes gauge\n"
      "pve_network_receive_bytes{id=\"node/pve1\"} 123456 1700000060000\n"
      "pve_network_receive_bytes{id=\"qemu/100\"} 1000 1700000070000\n"
      "# HELP pve_pressure_cpu_some_ratio Share of the last 10 s in which "
      "some tasks were stalled on CPU (pressure stall information, avg10)\n"
      "# TYPE pve_pressure_cpu_some_ratio gauge\n"
      "pve_pressure_cpu_some_ratio{id=\"node/pve1\"} 0.125 1700000060000\n"
      "pve_pressure_cpu_some_ratio{id=\"qemu/100\"} 0.5 1700000070000\n"
      "# HELP pve_pressure_cpu_full_ratio Share of the last 10 s in which "
      "all tasks were stalled on CPU (pressure stall information, avg10)\n"
      "# TYPE pve_pressure_cpu_full_ratio gauge\n"
      "pve_pressure_cpu_full_ratio{id=\"lxc/101\"} 0.025 1700000080000\n");
}

static void test_files_openmetrics(void **state) {
  (void)state;
  struct scrape s;
  make_scrape(&s);
  struct capture c;
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_OPENMETRICS, s.files, 3);
  metrics_text_end(c.out, EXPORT_OPENMETRICS);
  capture_check(
      &c,
      "# HELP pve_load1 Load average over 1 minute\n"
      "# TYPE pve_load1 gauge\n"
      "pve_load1{id=\"node/pve1\"} 1.5 1700000060\n"
      "# HELP pve_cpu_usage_ratio CPU utilization\n"
      "# TYPE pve_cpu_usage_ratio gauge\n"
      "pve_cpu_usage_ratio{id=\"lxc/101\"} 0.25 1700000080\n"
      "# HELP pve_memory_usage_bytes Used memory in bytes\n"
      "# TYPE pve_memory_usage_bytes gauge\n"
      "pve_memory_usage_bytes{id=\"node/pve1\"} 8589934592 1700000060\n"
      "pve_memory_usage_bytes{id=\"qemu/100\"} 1073741824 1700000070\n"
      "pve_memory_usage_bytes{id=\"lxc/101\"} 536870912 1700000080\n"
      "# HELP pve_network_receive_bytes_total " RECEIVE_HELP "\n"
      "# TYPE pve_network_receive_bytes_total unknown\n"
      "pve_network_receive_bytes_total{id=\"node/pve1\"} 123456 1700000060\n"
      "pve_network_receive_bytes_total{id=\"qemu/100\"} 1000 1700000070\n"
      "# HELP pve_network_receive_bytes " RECEIVE_OLDER_HELP
      "# TYPE pve_network_receive_bytes gauge\n"
      "pve_network_receive_bytes{id=\"node/pve1\"} 123456 1700000060\n"
      "pve_network_receive_bytes{id=\"qemu/100\"} 1000 1700000070\n"
      "# HELP pve_pressure_cpu_some_ratio Share of the last 10 s in which "
      "some tasks were stalled on CPU (pressure stall information, avg10)\n"
      "# TYPE pve_pressure_cpu_some_ratio gauge\n"
      "pve_pressure_cpu_some_ratio{id=\"node/pve1\"} 0.125 1700000060\n"
      "pve_pressure_cpu_some_ratio{id=\"qemu/100\"} 0.5 1700000070\n"
      "# HELP pve_pressure_cpu_full_ratio Share of the last 10 s in which "
      "all tasks were stalled on CPU (pressure stall information, avg10)\n"
      "# TYPE pve_pressure_cpu_full_ratio gauge\n"
      "pve_pressure_cpu_full_ratio{id=\"lxc/101\"} 0.025 1700000080\n"
      "# EOF\n");
}

/* The guests first: the families in the guest layout's order, a guest's
 * HELP for a family both have. */
static void test_files_guest_first(void **state) {
  (void)state;
  struct scrape s;
  make_scrape(&s);
  struct metrics_file files[] = {s.files[1], s.files[0]};
  struct capture c;
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_OPENMETRICS, files, 2);
  capture_check(
      &c,
      "# HELP pve_memory_usage_bytes Used memory in bytes\n"
      "# TYPE pve_memory_usage_bytes gauge\n"
      "pve_memory_usage_bytes{id=\"qemu/100\"} 1073741824 1700000070\n"
      "pve_memory_usage_bytes{id=\"node/pve1\"} 8589934592 1700000060\n"
      "# HELP pve_network_receive_bytes_total " RECEIVE_HELP "\n"
      "# TYPE pve_network_receive_bytes_total unknown\n"
      "pve_network_receive_bytes_total{id=\"qemu/100\"} 1000 1700000070\n"
      "pve_network_receive_bytes_total{id=\"node/pve1\"} 123456 1700000060\n"
      "# HELP pve_network_receive_bytes " RECEIVE_OLDER_HELP
      "# TYPE pve_network_receive_bytes gauge\n"
      "pve_network_receive_bytes{id=\"qemu/100\"} 1000 1700000070\n"
      "pve_network_receive_bytes{id=\"node/pve1\"} 123456 1700000060\n"
      "# HELP pve_pressure_cpu_some_ratio Share of the last 10 s in which "
      "some tasks were stalled on CPU (pressure stall information, avg10)\n"
      "# TYPE pve_pressure_cpu_some_ratio gauge\n"
      "pve_pressure_cpu_some_ratio{id=\"qemu/100\"} 0.5 1700000070\n"
      "pve_pressure_cpu_some_ratio{id=\"node/pve1\"} 0.125 1700000060\n"
      "# HELP pve_load1 Load average over 1 minute\n"
      "# TYPE pve_load1 gauge\n"
      "pve_load1{id=\"node/pve1\"} 1.5 1700000060\n");
}

/* Nothing known: no family at all, not even HELP and TYPE. */
static void test_files_nothing_known(void **state) {
  (void)state;
  struct row r;
  clear(&r);
  struct metrics_file files[] = {
      {EXPORT_VM, "qemu/100", &layout_pve_vm_9_0, 1700000060, r.values, false,
       false},
      {EXPORT_NODE, "node/pve1", &layout_pve_node_9_0, 1700000060, r.values,
       false, false},
  };
  struct capture c;
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_PROMETHEUS, files, 2);
  metrics_text_end(c.out, EXPORT_PROMETHEUS);
  capture_check(&c, "");
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_OPENMETRICS, files, 0);
  metrics_text_end(c.out, EXPORT_OPENMETRICS);
  capture_check(&c, "# EOF\n");
}

/* A legacy pve2-vm file next to a pve-vm-9.0 one: the newer columns come
 * from the newer file only. */
static void test_files_legacy_layout(void **state) {
  (void)state;
  struct row old, now;
  clear(&old);
  clear(&now);
  set(&old, &layout_pve2_vm, "mem", 1024);
  set(&now, &layout_pve_vm_9_0, "mem", 2048);
  set(&now, &layout_pve_vm_9_0, "memhost", 4096);
  struct metrics_file files[] = {
      {EXPORT_VM, "qemu/100", &layout_pve2_vm, 1700000060, old.values, false,
       false},
      {EXPORT_VM, "qemu/101", &layout_pve_vm_9_0, 1700000060, now.values, false,
       false},
      {EXPORT_VM, "qemu/102", &layout_pve2_vm, 1700000060, old.values, false,
       false},
  };
  struct capture c;
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_OPENMETRICS, files, 3);
  capture_check(&c,
                "# HELP pve_memory_usage_bytes Used memory in bytes\n"
                "# TYPE pve_memory_usage_bytes gauge\n"
                "pve_memory_usage_bytes{id=\"qemu/100\"} 1024 1700000060\n"
                "pve_memory_usage_bytes{id=\"qemu/101\"} 2048 1700000060\n"
                "pve_memory_usage_bytes{id=\"qemu/102\"} 1024 1700000060\n"
                "# HELP pve_memory_host_bytes Host memory the guest's cgroup "
                "uses, page cache excluded (memory.current - memory.stat "
                "file)\n"
                "# TYPE pve_memory_host_bytes gauge\n"
                "pve_memory_host_bytes{id=\"qemu/101\"} 4096 1700000060\n");
}

/* KSM files beside the pve files: their families under the same id, a
 * guest's and a node's ksmzero in one family, a negative profit kept, U
 * left out; no pve_up or pve_node_info of their own; a stale one gives
 * nothing. */
static void test_files_ksm_beside(void **state) {
  (void)state;
  struct row vm, gk, nk, old;
  const struct rrd_layout *kv = &layout_pvecg_ksm_vm_1_0,
                          *kn = &layout_pvecg_ksm_node_1_0;
  clear(&vm);
  clear(&gk);
  clear(&nk);
  clear(&old);
  set(&vm, &layout_pve_vm_9_0, "memhost", 4096);
  set(&gk, kv, "ksmmerging", 300);
  set(&gk, kv, "ksmzero", 2);
  set(&gk, kv, "ksmprofit", -8192);
  set(&gk, kv, "ksmsaved", U);
  set(&nk, kn, "ksmzero", 7);
  set(&nk, kn, "ksmsaved", 1228800);
  set(&old, kv, "ksmsaved", 1);
  struct metrics_file files[] = {
      {EXPORT_VM, "qemu/100", &layout_pve_vm_9_0, 1700000060, vm.values, false,
       false},
      {EXPORT_NODE, "node/pve1", kn, 1700000060, nk.values, false, true},
      {EXPORT_VM, "qemu/100", kv, 1700000070, gk.values, false, true},
      {EXPORT_VM, "qemu/101", kv, 1700000070, old.values, true, true},
  };
  struct capture c;
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_OPENMETRICS, files, 4);
  metrics_text_up(c.out, files, 4);
  metrics_text_nodes(c.out, files, 4);
  capture_check(
      &c,
      "# HELP pve_memory_host_bytes Host memory the guest's cgroup uses, "
      "page cache excluded (memory.current - memory.stat file)\n"
      "# TYPE pve_memory_host_bytes gauge\n"
      "pve_memory_host_bytes{id=\"qemu/100\"} 4096 1700000060\n"
      "# HELP pve_ksm_zero_pages Pages KSM merged with the zero page\n"
      "# TYPE pve_ksm_zero_pages gauge\n"
      "pve_ksm_zero_pages{id=\"node/pve1\"} 7 1700000060\n"
      "pve_ksm_zero_pages{id=\"qemu/100\"} 2 1700000070\n"
      "# HELP pve_ksm_profit_bytes KSM's profit on the node: merged bytes "
      "minus its bookkeeping (general_profit)\n"
      "# TYPE pve_ksm_profit_bytes gauge\n"
      "pve_ksm_profit_bytes{id=\"qemu/100\"} -8192 1700000070\n"
      "# HELP pve_memory_ksm_saved_bytes Memory KSM saves on the node: "
      "(pages_sharing + ksm_zero_pages) pages\n"
      "# TYPE pve_memory_ksm_saved_bytes gauge\n"
      "pve_memory_ksm_saved_bytes{id=\"node/pve1\"} 1228800 1700000060\n"
      "# HELP pve_ksm_merging_pages Pages of the guest's QEMU process merged "
      "by KSM\n"
      "# TYPE pve_ksm_merging_pages gauge\n"
      "pve_ksm_merging_pages{id=\"qemu/100\"} 300 1700000070\n"
      "# HELP pve_up Whether the guest's or node's RRD file gets fresh rows "
      "(1) or has stopped (0)\n"
      "# TYPE pve_up gauge\n"
      "pve_up{id=\"qemu/100\"} 1\n");
}

/* Stall files beside the pve files: the kernel's microseconds as seconds,
 * some as node_exporter's waiting and full as its stalled, a node's and a
 * guest's in one family, HELP and TYPE once; U and a stale file left out; a
 * counter in both formats, its OpenMetrics family named without _total. */
static void stall_files(struct row *node, struct row *vm, struct row *old,
                        struct metrics_file files[3]) {
  const struct rrd_layout *sv = &layout_pvecg_pressure_vm_1_0,
                          *sn = &layout_pvecg_pressure_node_1_0;
  clear(node);
  clear(vm);
  clear(old);
  set(node, sn, "stallcpusome", 123456789012);
  set(node, sn, "stallcpufull", 0);
  set(node, sn, "stallmemoryfull", 2500000);
  set(vm, sv, "stallcpusome", 60000000);
  set(vm, sv, "stalliofull", 1);
  set(vm, sv, "stallmemorysome", 5000001);
  set(old, sv, "stallcpusome", 7);
  files[0] = (struct metrics_file){EXPORT_NODE,  "node/pve1", sn,  1700000060,
                                   node->values, false,       true};
  files[1] = (struct metrics_file){EXPORT_VM,  "qemu/100", sv,  1700000040,
                                   vm->values, false,      true};
  files[2] = (struct metrics_file){EXPORT_VM,   "qemu/101", sv,  1700000040,
                                   old->values, true,       true};
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
#define STALLED_IO STALLED("IO")
#define WAITING_MEMORY WAITING("memory")
#define STALLED_MEMORY STALLED("memory")

static void test_files_stall_beside(void **state) {
  (void)state;
  struct row node, vm, old;
  struct metrics_file files[3];
  stall_files(&node, &vm, &old, files);
  struct capture c;
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_PROMETHEUS, files, 3);
  capture_check(
      &c, "# HELP pve_pressure_cpu_waiting_seconds_total " WAITING_CPU
          "# TYPE pve_pressure_cpu_waiting_seconds_total counter\n"
          "pve_pressure_cpu_waiting_seconds_total{id=\"node/pve1\"} "
          "123456.789012 1700000060000\n"
          "pve_pressure_cpu_waiting_seconds_total{id=\"qemu/100\"} "
          "60 1700000040000\n"
          "# HELP pve_pressure_cpu_stalled_seconds_total " STALLED_CPU
          "# TYPE pve_pressure_cpu_stalled_seconds_total counter\n"
          "pve_pressure_cpu_stalled_seconds_total{id=\"node/pve1\"} "
          "0 1700000060000\n"
          "# HELP pve_pressure_io_stalled_seconds_total " STALLED_IO
          "# TYPE pve_pressure_io_stalled_seconds_total counter\n"
          "pve_pressure_io_stalled_seconds_total{id=\"qemu/100\"} "
          "1e-06 1700000040000\n"
          "# HELP pve_pressure_memory_waiting_seconds_total " WAITING_MEMORY
          "# TYPE pve_pressure_memory_waiting_seconds_total counter\n"
          "pve_pressure_memory_waiting_seconds_total{id=\"qemu/100\"} "
          "5.000001 1700000040000\n"
          "# HELP pve_pressure_memory_stalled_seconds_total " STALLED_MEMORY
          "# TYPE pve_pressure_memory_stalled_seconds_total counter\n"
          "pve_pressure_memory_stalled_seconds_total{id=\"node/pve1\"} "
          "2.5 1700000060000\n");
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_OPENMETRICS, files, 3);
  capture_check(&c,
                "# HELP pve_pressure_cpu_waiting_seconds " WAITING_CPU
                "# TYPE pve_pressure_cpu_waiting_seconds counter\n"
                "pve_pressure_cpu_waiting_seconds_total{id=\"node/pve1\"} "
                "123456.789012 1700000060\n"
                "pve_pressure_cpu_waiting_seconds_total{id=\"qemu/100\"} "
                "60 1700000040\n"
                "# HELP pve_pressure_cpu_stalled_seconds " STALLED_CPU
                "# TYPE pve_pressure_cpu_stalled_seconds counter\n"
                "pve_pressure_cpu_stalled_seconds_total{id=\"node/pve1\"} "
                "0 1700000060\n"
                "# HELP pve_pressure_io_stalled_seconds " STALLED_IO
                "# TYPE pve_pressure_io_stalled_seconds counter\n"
                "pve_pressure_io_stalled_seconds_total{id=\"qemu/100\"} "
                "1e-06 1700000040\n"
                "# HELP pve_pressure_memory_waiting_seconds " WAITING_MEMORY
                "# TYPE pve_pressure_memory_waiting_seconds counter\n"
                "pve_pressure_memory_waiting_seconds_total{id=\"qemu/100\"} "
                "5.000001 1700000040\n"
                "# HELP pve_pressure_memory_stalled_seconds " STALLED_MEMORY
                "# TYPE pve_pressure_memory_stalled_seconds counter\n"
                "pve_pressure_memory_stalled_seconds_total{id=\"node/pve1\"} "
                "2.5 1700000060\n");
}

static void test_guests(void **state) {
  (void)state;
  struct metrics_guest guests[] = {
      {"qemu/100", "pve1", "web", "qemu", false, "db;prod", 2147483648.0},
      {"lxc/101", "pve1", "a\\b\"c\nd", "lxc", true, NULL, U},
      {"qemu/102", "pve1", "off", "qemu", false, "", 0},
  };
  struct capture c;
  capture_open(&c);
  metrics_text_guests(c.out, guests, 3);
  capture_check(&c, "# HELP pve_guest_info VM/CT info\n"
                    "# TYPE pve_guest_info gauge\n"
                    "pve_guest_info{id=\"qemu/100\",node=\"pve1\","
                    "name=\"web\",type=\"qemu\",template=\"0\","
                    "tags=\"db;prod\"} 1\n"
                    "pve_guest_info{id=\"lxc/101\",node=\"pve1\","
                    "name=\"a\\\\b\\\"c\\nd\",type=\"lxc\","
                    "template=\"1\",tags=\"\"} 1\n"
                    "pve_guest_info{id=\"qemu/102\",node=\"pve1\","
                    "name=\"off\",type=\"qemu\",template=\"0\","
                    "tags=\"\"} 1\n"
                    "# HELP pve_guest_balloon_min_bytes The VM's configured "
                    "balloon minimum in bytes (balloon; 0: ballooning off; "
                    "without one, its memory)\n"
                    "# TYPE pve_guest_balloon_min_bytes gauge\n"
                    "pve_guest_balloon_min_bytes{id=\"qemu/100\"} "
                    "2147483648\n"
                    "pve_guest_balloon_min_bytes{id=\"qemu/102\"} 0\n");
  capture_open(&c);
  metrics_text_guests(c.out, guests, 0);
  capture_check(&c, "");
}

static void test_gauge(void **state) {
  (void)state;
  const char *keys[] = {"pve-vm-9.0/100", "odd\"\\\n"};
  const double values[] = {120, 0.5};
  struct capture c;
  capture_open(&c);
  metrics_text_gauge(c.out, "pvecg_file_age_seconds", "Age of the newest row",
                     "file", keys, values, 2);
  metrics_text_end(c.out, EXPORT_PROMETHEUS);
  capture_check(&c, "# HELP pvecg_file_age_seconds Age of the newest row\n"
                    "# TYPE pvecg_file_age_seconds gauge\n"
                    "pvecg_file_age_seconds{file=\"pve-vm-9.0/100\"} 120\n"
                    "pvecg_file_age_seconds{file=\"odd\\\"\\\\\\n\"} 0.5\n");
}

/* One scrape, as the server puts it together: a node, a guest and a
 * stale guest, whose values are left out but whose pve_up is 0. */
static void test_whole_scrape(void **state) {
  (void)state;
  struct scrape s;
  make_scrape(&s);
  s.files[2].stale = true;
  struct metrics_guest guest = {"qemu/100", "pve1", "web", "qemu",
                                false,      "",     U};
  const char *keys[] = {"up"};
  const double values[] = {1};
  struct capture c;
  capture_open(&c);
  metrics_text_files(c.out, EXPORT_OPENMETRICS, s.files + 1, 2);
  metrics_text_up(c.out, s.files, 3);
  metrics_text_nodes(c.out, s.files, 3);
  metrics_text_guests(c.out, &guest, 1);
  metrics_text_gauge(c.out, "pvecg_up", "Whether it works", "what", keys,
                     values, 1);
  metrics_text_end(c.out, EXPORT_OPENMETRICS);
  capture_check(
      &c, "# HELP pve_memory_usage_bytes Used memory in bytes\n"
          "# TYPE pve_memory_usage_bytes gauge\n"
          "pve_memory_usage_bytes{id=\"qemu/100\"} 1073741824 1700000070\n"
          "# HELP pve_network_receive_bytes_total " RECEIVE_HELP "\n"
          "# TYPE pve_network_receive_bytes_total unknown\n"
          "pve_network_receive_bytes_total{id=\"qemu/100\"} 1000 1700000070\n"
          "# HELP pve_network_receive_bytes " RECEIVE_OLDER_HELP
          "# TYPE pve_network_receive_bytes gauge\n"
          "pve_network_receive_bytes{id=\"qemu/100\"} 1000 1700000070\n"
          "# HELP pve_pressure_cpu_some_ratio Share of the last 10 s in which "
          "some tasks were stalled on CPU (pressure stall information, avg10)\n"
          "# TYPE pve_pressure_cpu_some_ratio gauge\n"
          "pve_pressure_cpu_some_ratio{id=\"qemu/100\"} 0.5 1700000070\n"
          "# HELP pve_up Whether the guest's or node's RRD file gets fresh "
          "rows (1) or has stopped (0)\n"
          "# TYPE pve_up gauge\n"
          "pve_up{id=\"node/pve1\"} 1\n"
          "pve_up{id=\"qemu/100\"} 1\n"
          "pve_up{id=\"lxc/101\"} 0\n"
          "# HELP pve_node_info Node info\n"
          "# TYPE pve_node_info gauge\n"
          "pve_node_info{id=\"node/pve1\",level=\"\",name=\"pve1\","
          "nodeid=\"\"} 1\n"
          "# HELP pve_guest_info VM/CT info\n"
          "# TYPE pve_guest_info gauge\n"
          "pve_guest_info{id=\"qemu/100\",node=\"pve1\",name=\"web\","
          "type=\"qemu\",template=\"0\",tags=\"\"} 1\n"
          "# HELP pvecg_up Whether it works\n"
          "# TYPE pvecg_up gauge\n"
          "pvecg_up{what=\"up\"} 1\n"
          "# EOF\n");
  capture_open(&c);
  metrics_text_up(c.out, s.files, 0);
  metrics_text_nodes(c.out, s.files + 1, 2);
  capture_check(&c, ""); /* no file, no node: no family */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_files_prometheus),
      cmocka_unit_test(test_files_openmetrics),
      cmocka_unit_test(test_files_guest_first),
      cmocka_unit_test(test_files_nothing_known),
      cmocka_unit_test(test_files_legacy_layout),
      cmocka_unit_test(test_files_ksm_beside),
      cmocka_unit_test(test_files_stall_beside),
      cmocka_unit_test(test_guests),
      cmocka_unit_test(test_gauge),
      cmocka_unit_test(test_whole_scrape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

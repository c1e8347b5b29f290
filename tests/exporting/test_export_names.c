/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_names.c: the parse of --names, and the
 * Proxmox names of RRD columns.  These names are what makes a backfill
 * land in the series a Proxmox metric server or prometheus-pve-exporter
 * already fills, so a few columns of each kind are checked field by field:
 * the guest's maxcpu (pvestatd calls it cpus), the node's cpustat, memory
 * and nics groups (netin is the "physical" interface's receive counter),
 * pressure as a percent in `system`, and columns looked up by name so that
 * the legacy pve2 layouts and any order of columns get the same names;
 * the stall totals under node_exporter's PSI names (waiting: some,
 * stalled: full), and prometheus-pve-exporter 3.8's byte counters with
 * the deprecated gauges beside them, names and HELP as the exporter's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/export_names.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void test_parse(void **state) {
  (void)state;
  enum export_names n = EXPORT_NAMES_PVECG;
  assert_int_equal(export_names_parse("pve", &n), 0);
  assert_int_equal(n, EXPORT_NAMES_PVE);
  assert_int_equal(export_names_parse("pvecg", &n), 0);
  assert_int_equal(n, EXPORT_NAMES_PVECG);
  /* Refused, and *ret left alone. */
  assert_int_equal(export_names_parse("PVE", &n), -EINVAL);
  assert_int_equal(export_names_parse("", &n), -EINVAL);
  assert_int_equal(export_names_parse("pve ", &n), -EINVAL);
  assert_int_equal(export_names_parse("proxmox", &n), -EINVAL);
  assert_int_equal(export_names_parse(NULL, &n), -EINVAL);
  assert_int_equal(n, EXPORT_NAMES_PVECG);
}

/* Every field of one naming. */
static void check_metric(const struct export_metric *m, const char *ds,
                         const char *measurement, const char *instance,
                         const char *field, const char *prom, bool counter,
                         bool percent) {
  assert_non_null(m);
  assert_string_equal(m->ds, ds);
  assert_string_equal(m->measurement, measurement);
  if (instance == NULL)
    assert_null(m->instance);
  else
    assert_string_equal(m->instance, instance);
  assert_string_equal(m->field, field);
  assert_string_equal(m->prom, prom);
  assert_non_null(m->help);
  assert_true(m->help[0] != '\0');
  assert_int_equal(m->counter, counter);
  assert_int_equal(m->percent, percent);
}

static void test_guest(void **state) {
  (void)state;
  const struct rrd_layout *l = &layout_pve_vm_9_0;
  assert_int_equal(l->ds_count, 17);
  check_metric(export_metric_of(l, false, 0), "maxcpu", "system", NULL, "cpus",
               "pve_cpu_usage_limit", false, false);
  check_metric(export_metric_of(l, false, 1), "cpu", "system", NULL, "cpu",
               "pve_cpu_usage_ratio", false, false);
  check_metric(export_metric_of(l, false, 3), "mem", "system", NULL, "mem",
               "pve_memory_usage_bytes", false, false);
  check_metric(export_metric_of(l, false, 6), "netin", "system", NULL, "netin",
               "pve_network_receive_bytes", true, false);
  check_metric(export_metric_of(l, false, 9), "diskwrite", "system", NULL,
               "diskwrite", "pve_disk_written_bytes", true, false);
  check_metric(export_metric_of(l, false, 10), "memhost", "system", NULL,
               "memhost", "pve_memory_host_bytes", false, false);
  check_metric(export_metric_of(l, false, 12), "pressurecpufull", "system",
               NULL, "pressurecpufull", "pve_pressure_cpu_full_ratio", false,
               true);
  check_metric(export_metric_of(l, false, 16), "pressurememoryfull", "system",
               NULL, "pressurememoryfull", "pve_pressure_memory_full_ratio",
               false, true);
  /* Every column of the layout has a name. */
  for (size_t i = 0; i < l->ds_count; i++)
    assert_string_equal(export_metric_of(l, false, i)->ds, l->ds[i].name);
  /* Past the last column. */
  assert_null(export_metric_of(l, false, 17));
  assert_null(export_metric_of(l, false, (size_t)-1));
}

static void test_node(void **state) {
  (void)state;
  const struct rrd_layout *l = &layout_pve_node_9_0;
  assert_int_equal(l->ds_count, 19);
  check_metric(export_metric_of(l, true, 0), "loadavg", "cpustat", NULL, "avg1",
               "pve_load1", false, false);
  check_metric(export_metric_of(l, true, 1), "maxcpu", "cpustat", NULL, "cpus",
               "pve_cpu_usage_limit", false, false);
  check_metric(export_metric_of(l, true, 3), "iowait", "cpustat", NULL, "wait",
               "pve_cpu_iowait_ratio", false, false);
  check_metric(export_metric_of(l, true, 4), "memtotal", "memory", NULL,
               "memtotal", "pve_memory_size_bytes", false, false);
  check_metric(export_metric_of(l, true, 8), "roottotal", "blockstat", NULL,
               "blocks", "pve_disk_size_bytes", false, false);
  check_metric(export_metric_of(l, true, 9), "rootused", "blockstat", NULL,
               "used", "pve_disk_usage_bytes", false, false);
  check_metric(export_metric_of(l, true, 10), "netin", "nics", "physical",
               "receive", "pve_network_receive_bytes", true, false);
  check_metric(export_metric_of(l, true, 11), "netout", "nics", "physical",
               "transmit", "pve_network_transmit_bytes", true, false);
  check_metric(export_metric_of(l, true, 13), "arcsize", "memory", NULL,
               "arcsize", "pve_zfs_arc_size_bytes", false, false);
  check_metric(export_metric_of(l, true, 14), "pressurecpusome", "system", NULL,
               "pressurecpusome", "pve_pressure_cpu_some_ratio", false, true);
  check_metric(export_metric_of(l, true, 16), "pressureiofull", "system", NULL,
               "pressureiofull", "pve_pressure_io_full_ratio", false, true);
  for (size_t i = 0; i < l->ds_count; i++)
    assert_string_equal(export_metric_of(l, true, i)->ds, l->ds[i].name);
  assert_null(export_metric_of(l, true, 19));
  /* A guest's column read as a node's: the node's naming of the same name,
   * or none where nodes have no such column. */
  check_metric(export_metric_of(&layout_pve_vm_9_0, true, 0), "maxcpu",
               "cpustat", NULL, "cpus", "pve_cpu_usage_limit", false, false);
  assert_null(export_metric_of(&layout_pve_vm_9_0, true, 3));  /* mem */
  assert_null(export_metric_of(&layout_pve_vm_9_0, true, 12)); /* cpufull */
  /* and a node's as a guest's */
  assert_null(export_metric_of(l, false, 0)); /* loadavg */
}

/* pvecg's KSM files: beside Proxmox's values, a guest's in `system`, a
 * node's in `memory`; a name shared where the meaning is. */
static void test_ksm(void **state) {
  (void)state;
  const struct rrd_layout *v = &layout_pvecg_ksm_vm_1_0;
  const struct rrd_layout *n = &layout_pvecg_ksm_node_1_0;
  check_metric(export_metric_of(v, false, 0), "ksmmerging", "system", NULL,
               "ksmmerging", "pve_ksm_merging_pages", false, false);
  check_metric(export_metric_of(v, false, 1), "ksmzero", "system", NULL,
               "ksmzero", "pve_ksm_zero_pages", false, false);
  check_metric(export_metric_of(v, false, 2), "ksmprofit", "system", NULL,
               "ksmprofit", "pve_ksm_profit_bytes", false, false);
  check_metric(export_metric_of(v, false, 3), "ksmsaved", "system", NULL,
               "ksmsaved", "pve_memory_ksm_saved_bytes", false, false);
  check_metric(export_metric_of(n, true, 0), "ksmrun", "memory", NULL, "ksmrun",
               "pve_ksm_run_state", false, false);
  check_metric(export_metric_of(n, true, 1), "ksmshared", "memory", NULL,
               "ksmshared", "pve_ksm_shared_pages", false, false);
  check_metric(export_metric_of(n, true, 2), "ksmsharing", "memory", NULL,
               "ksmsharing", "pve_ksm_sharing_pages", false, false);
  check_metric(export_metric_of(n, true, 5), "ksmsaved", "memory", NULL,
               "ksmsaved", "pve_memory_ksm_saved_bytes", false, false);
  for (size_t i = 0; i < v->ds_count; i++)
    assert_string_equal(export_metric_of(v, false, i)->ds, v->ds[i].name);
  for (size_t i = 0; i < n->ds_count; i++)
    assert_string_equal(export_metric_of(n, true, i)->ds, n->ds[i].name);
}

/* pvecg's stall files, named as node_exporter and cAdvisor name PSI: the
 * some line's total is waiting, the full line's stalled; a guest's and a
 * node's alike, counters of seconds in `system` under the RRD's names. */
static void test_stall(void **state) {
  (void)state;
  static const char *const prom[] = {"pve_pressure_cpu_waiting_seconds",
                                     "pve_pressure_cpu_stalled_seconds",
                                     "pve_pressure_io_waiting_seconds",
                                     "pve_pressure_io_stalled_seconds",
                                     "pve_pressure_memory_waiting_seconds",
                                     "pve_pressure_memory_stalled_seconds"};
  const struct rrd_layout *layouts[] = {&layout_pvecg_pressure_vm_1_0,
                                        &layout_pvecg_pressure_node_1_0};
  for (size_t l = 0; l < 2; l++) {
    assert_int_equal(layouts[l]->ds_count, 6);
    for (size_t i = 0; i < 6; i++) {
      const char *ds = layouts[l]->ds[i].name;
      const struct export_metric *m = export_metric_of(layouts[l], l == 1, i);
      check_metric(m, ds, "system", NULL, ds, prom[i], true, false);
      assert_true(m->micro);
      assert_null(m->older);
      assert_non_null(
          strstr(m->help, i % 2 == 0 ? "at least one task waited for"
                                     : "all non-idle tasks were stalled on"));
    }
  }
}

/* prometheus-pve-exporter 3.8's byte counters and the gauges it still
 * serves beside them, deprecated: names and HELP as collector/cluster.py
 * has them. */
static void test_older(void **state) {
  (void)state;
  static const struct {
    size_t ds;
    const char *prom, *older, *help;
  } want[] = {
      {6, "pve_network_receive_bytes", "pve_network_receive_bytes",
       "The amount of traffic in bytes that was sent to the guest over the "
       "network since it was started. (for types 'qemu' and 'lxc')"},
      {7, "pve_network_transmit_bytes", "pve_network_transmit_bytes",
       "The amount of traffic in bytes that was sent from the guest over the "
       "network since it was started. (for types 'qemu' and 'lxc')"},
      {8, "pve_disk_read_bytes", "pve_disk_read_bytes",
       "The amount of bytes the guest read from its block devices since the "
       "guest was started. This info is not available for all storage types. "
       "(for types 'qemu' and 'lxc')"},
      {9, "pve_disk_written_bytes", "pve_disk_write_bytes",
       "The amount of bytes the guest wrote to its block devices since the "
       "guest was started. This info is not available for all storage types. "
       "(for types 'qemu' and 'lxc')"},
  };
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
    const struct export_metric *m =
        export_metric_of(&layout_pve_vm_9_0, false, want[i].ds);
    assert_non_null(m);
    assert_true(m->counter);
    assert_string_equal(m->prom, want[i].prom);
    assert_string_equal(m->older, want[i].older);
    assert_string_equal(m->help, want[i].help);
    char help[512], expected[512];
    export_metric_older_help(m, help, sizeof(help));
    snprintf(expected, sizeof(expected), "%s DEPRECATED: Use %s_total instead.",
             want[i].help, want[i].prom);
    assert_string_equal(help, expected);
  }
  /* a node's NICs share the families, and their HELP */
  const struct export_metric *n =
      export_metric_of(&layout_pve_node_9_0, true, 10);
  assert_string_equal(n->ds, "netin");
  assert_string_equal(n->older, "pve_network_receive_bytes");
  assert_string_equal(n->help, want[0].help);
}

/* The legacy layouts are prefixes of the current ones: the same names for
 * the same columns, none past their last. */
static void test_legacy(void **state) {
  (void)state;
  assert_int_equal(layout_pve2_vm.ds_count, 10);
  for (size_t i = 0; i < layout_pve2_vm.ds_count; i++)
    assert_ptr_equal(export_metric_of(&layout_pve2_vm, false, i),
                     export_metric_of(&layout_pve_vm_9_0, false, i));
  assert_null(export_metric_of(&layout_pve2_vm, false, 10));
  check_metric(export_metric_of(&layout_pve2_vm, false, 7), "netout", "system",
               NULL, "netout", "pve_network_transmit_bytes", true, false);

  assert_int_equal(layout_pve2_node.ds_count, 12);
  for (size_t i = 0; i < layout_pve2_node.ds_count; i++)
    assert_ptr_equal(export_metric_of(&layout_pve2_node, true, i),
                     export_metric_of(&layout_pve_node_9_0, true, i));
  assert_null(export_metric_of(&layout_pve2_node, true, 12));
}

/* Looked up by the column's name, not its position. */
/* Each column's group is the first column of the same measurement and
 * instance: one InfluxDB line per group. */
static void test_columns(void **state) {
  (void)state;
  struct export_columns c;
  export_columns_of(&layout_pve_vm_9_0, false, &c);
  for (size_t i = 0; i < layout_pve_vm_9_0.ds_count; i++) {
    assert_ptr_equal(c.metric[i],
                     export_metric_of(&layout_pve_vm_9_0, false, i));
    assert_int_equal(c.group[i], 0); /* all of a guest's are `system` */
  }
  /* cpustat, memory, blockstat, nics/physical, memory again, system */
  static const unsigned char node[] = {0,  0,  0, 0, 4,  4,  4,  4,  8, 8,
                                       10, 10, 4, 4, 14, 14, 14, 14, 14};
  assert_int_equal(layout_pve_node_9_0.ds_count, sizeof(node));
  export_columns_of(&layout_pve_node_9_0, true, &c);
  for (size_t i = 0; i < sizeof(node); i++) {
    assert_ptr_equal(c.metric[i],
                     export_metric_of(&layout_pve_node_9_0, true, i));
    assert_int_equal(c.group[i], node[i]);
  }
}

static void test_by_name(void **state) {
  (void)state;
  static const struct rrd_ds_def ds[] = {
      {"netout", RRD_DS_DERIVE, false},
      {"nosuch", RRD_DS_GAUGE, false},
      {"maxcpu", RRD_DS_GAUGE, false},
      {"iowait", RRD_DS_GAUGE, false},
  };
  static const struct rrd_layout mixed = {
      .name = "mixed", .ds = ds, .ds_count = 4};
  check_metric(export_metric_of(&mixed, false, 0), "netout", "system", NULL,
               "netout", "pve_network_transmit_bytes", true, false);
  assert_null(export_metric_of(&mixed, false, 1));
  check_metric(export_metric_of(&mixed, false, 2), "maxcpu", "system", NULL,
               "cpus", "pve_cpu_usage_limit", false, false);
  assert_null(export_metric_of(&mixed, false, 3)); /* guests have no iowait */
  check_metric(export_metric_of(&mixed, true, 0), "netout", "nics", "physical",
               "transmit", "pve_network_transmit_bytes", true, false);
  assert_null(export_metric_of(&mixed, true, 1));
  check_metric(export_metric_of(&mixed, true, 3), "iowait", "cpustat", NULL,
               "wait", "pve_cpu_iowait_ratio", false, false);
  assert_null(export_metric_of(&mixed, true, 4));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse),   cmocka_unit_test(test_guest),
      cmocka_unit_test(test_node),    cmocka_unit_test(test_legacy),
      cmocka_unit_test(test_by_name), cmocka_unit_test(test_ksm),
      cmocka_unit_test(test_columns), cmocka_unit_test(test_stall),
      cmocka_unit_test(test_older),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checks the layout tables of src/layout/rrd_layout.c against the PVE layouts
 * as Proxmox defines them (pve-cluster status.c).  The expected names, types
 * and archives are typed out here a second time on purpose: a slip in the table
 * must not be able to hide behind the test reading the same table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_layout.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "name:TYPE" in file order, as in Proxmox's definitions. */
static const char *const vm_9_0_ds[] = {
    "maxcpu:GAUGE",
    "cpu:GAUGE",
    "maxmem:GAUGE",
    "mem:GAUGE",
    "maxdisk:GAUGE",
    "disk:GAUGE",
    "netin:DERIVE",
    "netout:DERIVE",
    "diskread:DERIVE",
    "diskwrite:DERIVE",
    "memhost:GAUGE",
    "pressurecpusome:GAUGE",
    "pressurecpufull:GAUGE",
    "pressureiosome:GAUGE",
    "pressureiofull:GAUGE",
    "pressurememorysome:GAUGE",
    "pressurememoryfull:GAUGE",
};

static const char *const node_9_0_ds[] = {
    "loadavg:GAUGE",
    "maxcpu:GAUGE",
    "cpu:GAUGE",
    "iowait:GAUGE",
    "memtotal:GAUGE",
    "memused:GAUGE",
    "swaptotal:GAUGE",
    "swapused:GAUGE",
    "roottotal:GAUGE",
    "rootused:GAUGE",
    "netin:DERIVE",
    "netout:DERIVE",
    "memavailable:GAUGE",
    "arcsize:GAUGE",
    "pressurecpusome:GAUGE",
    "pressureiosome:GAUGE",
    "pressureiofull:GAUGE",
    "pressurememorysome:GAUGE",
    "pressurememoryfull:GAUGE",
};

static const char *const pve2_vm_ds[] = {
    "maxcpu:GAUGE",    "cpu:GAUGE",        "maxmem:GAUGE", "mem:GAUGE",
    "maxdisk:GAUGE",   "disk:GAUGE",       "netin:DERIVE", "netout:DERIVE",
    "diskread:DERIVE", "diskwrite:DERIVE",
};

static const char *const pve2_node_ds[] = {
    "loadavg:GAUGE",   "maxcpu:GAUGE",   "cpu:GAUGE",       "iowait:GAUGE",
    "memtotal:GAUGE",  "memused:GAUGE",  "swaptotal:GAUGE", "swapused:GAUGE",
    "roottotal:GAUGE", "rootused:GAUGE", "netin:DERIVE",    "netout:DERIVE",
};

/* "CF:steps:rows" in file order. */
static const char *const rra_9_0[] = {
    "AVERAGE:1:1440",    "AVERAGE:30:1440", "AVERAGE:360:1440",
    "AVERAGE:10080:570", "MAX:1:1440",      "MAX:30:1440",
    "MAX:360:1440",      "MAX:10080:570",
};

static const char *const rra_pve2[] = {
    "AVERAGE:1:70",     "AVERAGE:30:70", "AVERAGE:180:70", "AVERAGE:720:70",
    "AVERAGE:10080:70", "MAX:1:70",      "MAX:30:70",      "MAX:180:70",
    "MAX:720:70",       "MAX:10080:70",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void assert_layout(const struct rrd_layout *layout, const char *name,
                          const char *type_name, const char *const *ds,
                          size_t ds_count, const char *const *rra,
                          size_t rra_count) {
  assert_string_equal(layout->name, name);
  assert_string_equal(layout->type_name, type_name);
  assert_int_equal(layout->step, 60);
  assert_int_equal(layout->heartbeat, 120);
  assert_true(layout->xff == 0.5);
  assert_int_equal(layout->ds_count, ds_count);
  for (size_t i = 0; i < ds_count; i++) {
    char have[64];
    snprintf(have, sizeof(have), "%s:%s", layout->ds[i].name,
             rrd_ds_type_name(layout->ds[i].type));
    assert_string_equal(have, ds[i]);
  }
  assert_int_equal(layout->rra_count, rra_count);
  for (size_t i = 0; i < rra_count; i++) {
    char have[64];
    snprintf(have, sizeof(have), "%s:%lu:%lu", rrd_cf_name(layout->rra[i].cf),
             layout->rra[i].steps, layout->rra[i].rows);
    assert_string_equal(have, rra[i]);
  }
}

static void test_pve_vm_9_0(void **state) {
  (void)state;
  assert_layout(&layout_pve_vm_9_0, "pve-vm-9.0", "pve_vm_9_0", vm_9_0_ds,
                COUNT(vm_9_0_ds), rra_9_0, COUNT(rra_9_0));
  assert_int_equal(COUNT(vm_9_0_ds), 17);
}

static void test_pve_node_9_0(void **state) {
  (void)state;
  assert_layout(&layout_pve_node_9_0, "pve-node-9.0", "pve_node_9_0",
                node_9_0_ds, COUNT(node_9_0_ds), rra_9_0, COUNT(rra_9_0));
  assert_int_equal(COUNT(node_9_0_ds), 19);
  assert_int_equal(rrd_layout_ds_index(&layout_pve_node_9_0, "pressurecpufull"),
                   -ENOENT);
}

static void test_pve2_vm(void **state) {
  (void)state;
  assert_layout(&layout_pve2_vm, "pve2-vm", "pve2_vm", pve2_vm_ds,
                COUNT(pve2_vm_ds), rra_pve2, COUNT(rra_pve2));
}

static void test_pve2_node(void **state) {
  (void)state;
  assert_layout(&layout_pve2_node, "pve2-node", "pve2_node", pve2_node_ds,
                COUNT(pve2_node_ds), rra_pve2, COUNT(rra_pve2));
}

/* pvecg's KSM layouts: their own columns, Proxmox's steps and archives,
 * and whom their files are of. */
static void test_ksm_layouts(void **state) {
  (void)state;
  const char *vm[] = {"ksmmerging", "ksmzero", "ksmprofit", "ksmsaved"};
  const char *node[] = {"ksmrun",  "ksmshared", "ksmsharing",
                        "ksmzero", "ksmprofit", "ksmsaved"};
  const struct rrd_layout *v = &layout_pvecg_ksm_vm_1_0;
  const struct rrd_layout *n = &layout_pvecg_ksm_node_1_0;
  assert_string_equal(v->name, "pvecg-ksm-vm-1.0");
  assert_string_equal(n->name, "pvecg-ksm-node-1.0");
  assert_int_equal(v->ds_count, COUNT(vm));
  assert_int_equal(n->ds_count, COUNT(node));
  for (size_t i = 0; i < COUNT(vm); i++) {
    assert_string_equal(v->ds[i].name, vm[i]);
    assert_int_equal(v->ds[i].type, RRD_DS_GAUGE);
  }
  for (size_t i = 0; i < COUNT(node); i++) {
    assert_string_equal(n->ds[i].name, node[i]);
    assert_int_equal(n->ds[i].type, RRD_DS_GAUGE);
  }
  assert_ptr_equal(v->rra, layout_pve_vm_9_0.rra);
  assert_ptr_equal(n->rra, layout_pve_vm_9_0.rra);
  assert_int_equal(v->step, 60);
  assert_int_equal(v->heartbeat, 120);
  assert_int_equal(v->kind, RRD_LAYOUT_GUEST);
  assert_int_equal(n->kind, RRD_LAYOUT_NODE);
  assert_int_equal(layout_pve_vm_9_0.kind, RRD_LAYOUT_GUEST);
  assert_int_equal(layout_pve2_vm.kind, RRD_LAYOUT_GUEST);
  assert_int_equal(layout_pve_node_9_0.kind, RRD_LAYOUT_NODE);
  assert_int_equal(layout_pve2_node.kind, RRD_LAYOUT_NODE);
}

/* pvecg's stall-time layouts: six DERIVE counters, min 0, the same for
 * guests and nodes, Proxmox's steps and archives. */
static void test_pressure_layouts(void **state) {
  (void)state;
  const char *want[] = {"stallcpusome", "stallcpufull",    "stalliosome",
                        "stalliofull",  "stallmemorysome", "stallmemoryfull"};
  const struct rrd_layout *v = &layout_pvecg_pressure_vm_1_0;
  const struct rrd_layout *n = &layout_pvecg_pressure_node_1_0;
  assert_string_equal(v->name, "pvecg-pressure-vm-1.0");
  assert_string_equal(n->name, "pvecg-pressure-node-1.0");
  assert_string_equal(v->type_name, "pvecg_pressure_vm_1_0");
  assert_string_equal(n->type_name, "pvecg_pressure_node_1_0");
  assert_int_equal(v->ds_count, COUNT(want));
  assert_ptr_equal(v->ds, n->ds);
  for (size_t i = 0; i < COUNT(want); i++) {
    assert_string_equal(v->ds[i].name, want[i]);
    assert_int_equal(v->ds[i].type, RRD_DS_DERIVE);
    assert_false(v->ds[i].negative);
  }
  assert_ptr_equal(v->rra, layout_pve_vm_9_0.rra);
  assert_ptr_equal(n->rra, layout_pve_vm_9_0.rra);
  assert_int_equal(v->step, 60);
  assert_int_equal(n->heartbeat, 120);
  assert_int_equal(v->kind, RRD_LAYOUT_GUEST);
  assert_int_equal(n->kind, RRD_LAYOUT_NODE);
}

/* The legacy layouts are prefixes of the 9.0 column tables, not copies. */
static void test_legacy_share_columns(void **state) {
  (void)state;
  assert_ptr_equal(layout_pve2_vm.ds, layout_pve_vm_9_0.ds);
  assert_ptr_equal(layout_pve2_node.ds, layout_pve_node_9_0.ds);
  assert_ptr_equal(layout_pve_vm_9_0.rra, layout_pve_node_9_0.rra);
  assert_ptr_equal(layout_pve2_vm.rra, layout_pve2_node.rra);
}

static void test_layout_list(void **state) {
  (void)state;
  const struct rrd_layout *want[] = {&layout_pve_vm_9_0,
                                     &layout_pve_node_9_0,
                                     &layout_pve2_vm,
                                     &layout_pve2_node,
                                     &layout_pvecg_ksm_vm_1_0,
                                     &layout_pvecg_ksm_node_1_0,
                                     &layout_pvecg_pressure_vm_1_0,
                                     &layout_pvecg_pressure_node_1_0};
  assert_int_equal(rrd_layouts_count, 8);
  for (size_t i = 0; i < COUNT(want); i++) {
    int seen = 0;
    for (size_t j = 0; j < rrd_layouts_count; j++)
      seen += rrd_layouts[j] == want[i];
    assert_int_equal(seen, 1);
  }
}

static void test_by_type(void **state) {
  (void)state;
  assert_ptr_equal(rrd_layout_by_type("pve_vm_9_0"), &layout_pve_vm_9_0);
  assert_ptr_equal(rrd_layout_by_type("pve_node_9_0"), &layout_pve_node_9_0);
  assert_ptr_equal(rrd_layout_by_type("pve2_vm"), &layout_pve2_vm);
  assert_ptr_equal(rrd_layout_by_type("pve2_node"), &layout_pve2_node);
  assert_ptr_equal(rrd_layout_by_type("pvecg_ksm_vm_1_0"),
                   &layout_pvecg_ksm_vm_1_0);
  assert_ptr_equal(rrd_layout_by_type("pvecg_ksm_node_1_0"),
                   &layout_pvecg_ksm_node_1_0);
  assert_null(rrd_layout_by_type("pve-vm-9.0")); /* the name, not the type */
  assert_null(rrd_layout_by_type(""));
  assert_null(rrd_layout_by_type(NULL));
}

static void test_ds_index(void **state) {
  (void)state;
  assert_int_equal(rrd_layout_ds_index(&layout_pve_vm_9_0, "maxcpu"), 0);
  assert_int_equal(rrd_layout_ds_index(&layout_pve_vm_9_0, "memhost"), 10);
  assert_int_equal(
      rrd_layout_ds_index(&layout_pve_vm_9_0, "pressurememoryfull"), 16);
  assert_int_equal(rrd_layout_ds_index(&layout_pve_node_9_0, "memavailable"),
                   12);
  /* beyond the legacy prefix */
  assert_int_equal(rrd_layout_ds_index(&layout_pve2_vm, "memhost"), -ENOENT);
  assert_int_equal(rrd_layout_ds_index(&layout_pve2_vm, "diskwrite"), 9);
  assert_int_equal(rrd_layout_ds_index(&layout_pve_vm_9_0, "memfree"), -ENOENT);
  assert_int_equal(rrd_layout_ds_index(&layout_pve_vm_9_0, ""), -ENOENT);
  assert_int_equal(rrd_layout_ds_index(&layout_pve_vm_9_0, NULL), -ENOENT);
  assert_int_equal(rrd_layout_ds_index(NULL, "cpu"), -ENOENT);
}

static void test_names(void **state) {
  (void)state;
  assert_string_equal(rrd_ds_type_name(RRD_DS_GAUGE), "GAUGE");
  assert_string_equal(rrd_ds_type_name(RRD_DS_DERIVE), "DERIVE");
  assert_string_equal(rrd_cf_name(RRD_CF_AVERAGE), "AVERAGE");
  assert_string_equal(rrd_cf_name(RRD_CF_MAX), "MAX");
  assert_non_null(rrd_ds_type_name((enum rrd_ds_type)99));
  assert_non_null(rrd_cf_name((enum rrd_cf)99));
}

/* rrd accepts DS names of 1..19 characters from [A-Za-z0-9_]. */
static void test_ds_names_valid_for_rrd(void **state) {
  (void)state;
  for (size_t l = 0; l < rrd_layouts_count; l++) {
    const struct rrd_layout *layout = rrd_layouts[l];
    assert_true(layout->ds_count <= RRD_LAYOUT_DS_MAX);
    for (size_t i = 0; i < layout->ds_count; i++) {
      size_t len = strlen(layout->ds[i].name);
      assert_true(len >= 1 && len <= 19);
      assert_int_equal(strspn(layout->ds[i].name,
                              "abcdefghijklmnopqrstuvwxyz"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
                       len);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pve_vm_9_0),
      cmocka_unit_test(test_pve_node_9_0),
      cmocka_unit_test(test_pve2_vm),
      cmocka_unit_test(test_pve2_node),
      cmocka_unit_test(test_legacy_share_columns),
      cmocka_unit_test(test_layout_list),
      cmocka_unit_test(test_ksm_layouts),
      cmocka_unit_test(test_pressure_layouts),
      cmocka_unit_test(test_by_type),
      cmocka_unit_test(test_ds_index),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_ds_names_valid_for_rrd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

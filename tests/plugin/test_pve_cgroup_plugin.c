/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the pve_cgroup plugin's collectd glue: configuration
 * errors, what is dispatched for a fixture tree (one row list per guest,
 * its identity and exact values), the select list and PressureDetails.
 * The plugin source runs against the collectd stand-in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "collectd_stub.h"
#include "fixture_tree.h"
#include "net_dev_sample.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/stall_counter.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void module_register(void);

static char root[256]; /* short: paths below it fit PATH_MAX */

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-plugin");
  fixture_guest(root, "cg/qemu.slice/100.scope", "1073741824\n", "104857600");
  fixture_guest(root, "cg/qemu.slice/101.scope", "5000\n", "1000");
  fixture_guest(root, "cg/lxc/200", "314572800\n", "52428800");
  fixture_mkdir(root, "proc/net");
  fixture_write(root, "proc/net/dev", net_dev_sample);
  fixture_mkdir(root, "pve/qemu-server");
  fixture_write(root, "pve/qemu-server/100.conf",
                "sockets: 2\ncores: 2\nmemory: 4096\nname: web\n");
  stub_reset_records();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  stub.shutdown();
  fixture_remove(root);
  return 0;
}

static oconfig_item_t *base_config(void) {
  char cg[PATH_MAX + 8];
  snprintf(cg, sizeof(cg), "%s/cg", root);
  oconfig_item_t *c = stub_config_new();
  stub_config_add_strings(c, "CgroupRoot", 1, cg);
  stub_config_add_strings(c, "MemoryCgroupRoot", 1, "");
  char pve[PATH_MAX + 8];
  snprintf(pve, sizeof(pve), "%s/pve", root);
  stub_config_add_strings(c, "PveConfigDir", 1, pve);
  snprintf(pve, sizeof(pve), "%s/proc", root);
  stub_config_add_strings(c, "ProcRoot", 1, pve);
  /* No KSM below it: `KSM auto` stays off whatever the host does. */
  snprintf(pve, sizeof(pve), "%s/sys", root);
  stub_config_add_strings(c, "SysRoot", 1, pve);
  stub_config_add_boolean(c, "Node", false); /* test_node_row has it on */
  /* the stall-time rows have tests of their own */
  stub_config_add_boolean(c, "StallTime", false);
  stub_config_add_boolean(c, "GuestNames", true);
  return c;
}

static int configure(oconfig_item_t *c) {
  int rc = stub.config(c);
  stub_config_free(c);
  return rc;
}

static const struct stub_value_list *
find(const char *instance, const char *type, const char *type_instance) {
  for (int i = 0; i < stub.dispatched_count; i++) {
    const value_list_t *vl = &stub.dispatched[i].vl;
    if (strcmp(vl->plugin_instance, instance) == 0 &&
        strcmp(vl->type, type) == 0 &&
        strcmp(vl->type_instance, type_instance) == 0)
      return &stub.dispatched[i];
  }
  return NULL;
}

static void test_registers_row_type(void **state) {
  (void)state;
  assert_int_equal(configure(base_config()), 0);
  assert_int_equal(stub.init(), 0);
  assert_int_equal(stub.init(), 0);
  /* Registered once: the row, and KSM's, which `KSM auto` may need. */
  assert_int_equal(stub.data_set_count, 2);
  stub.shutdown();
  oconfig_item_t *c = base_config();
  stub_config_add_boolean(c, "StallTime", true);
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  assert_non_null(stub_data_set("pvecg_pressure_vm_1_0"));
  assert_non_null(stub_data_set("pvecg_ksm_vm_1_0"));
  const data_set_t *ds = stub_data_set("pve_vm_9_0");
  assert_non_null(ds);
  assert_int_equal(ds->ds_num, 17);
  assert_string_equal(ds->ds[0].name, "maxcpu");
  assert_string_equal(ds->ds[10].name, "memhost");
  assert_string_equal(ds->ds[16].name, "pressurememoryfull");
  for (size_t i = 0; i < ds->ds_num; i++) {
    assert_int_equal(ds->ds[i].type, DS_TYPE_GAUGE);
    assert_true(ds->ds[i].min == 0.0);
    assert_true(isnan(ds->ds[i].max));
  }
}

static void expect_config_error(oconfig_item_t *c, const char *message) {
  assert_int_not_equal(configure(c), 0);
  assert_non_null(stub_log_find(message));
}

static void test_config_errors(void **state) {
  (void)state;
  oconfig_item_t *c = base_config();
  stub_config_add_strings(c, "CgroupRot", 1, "/x");
  expect_config_error(c, "unknown config option \"CgroupRot\"");
  c = base_config();
  stub_config_add_strings(c, "Guests", 2, "qemu", "kvm");
  expect_config_error(c, "\"Guests\" takes one or more of");
  c = base_config();
  stub_config_add_strings(c, "VMID", 1, "0100");
  expect_config_error(c, "\"0100\" is neither a VMID");
  c = base_config();
  stub_config_add_strings(c, "VMID", 1, "/[/");
  expect_config_error(c, "invalid regular expression /[/");
  c = stub_config_new();
  stub_config_add_strings(c, "CgroupRoot", 1, "sys/fs/cgroup");
  expect_config_error(c, "\"CgroupRoot\" must be an absolute path");
  c = base_config();
  stub_config_add_strings(c, "IgnoreSelected", 1, "yes");
  expect_config_error(c, "\"IgnoreSelected\" option requires exactly one");
}

static void test_init_fails_without_root(void **state) {
  (void)state;
  oconfig_item_t *c = stub_config_new();
  stub_config_add_strings(c, "CgroupRoot", 1, "/nonexistent/pvecg");
  assert_int_equal(configure(c), 0);
  assert_int_not_equal(stub.init(), 0);
  assert_non_null(stub_log_find("\"/nonexistent/pvecg\" is not a directory"));
  /* A read after a failed init does nothing and says so by failing. */
  assert_int_not_equal(stub.read(), 0);
  assert_int_equal(stub.dispatched_count, 0);
}

static void test_one_row_per_guest(void **state) {
  (void)state;
  assert_int_equal(configure(base_config()), 0);
  assert_int_equal(stub.init(), 0);
  assert_int_equal(stub.read(), 0);
  assert_int_equal(stub.dispatched_count, 3);
  const struct stub_value_list *r = find("100", "pve_vm_9_0", "qemu");
  assert_non_null(r);
  assert_string_equal(r->vl.plugin, "pve_cgroup");
  assert_int_equal(r->vl.values_len, 17);
  assert_true(r->values[10].gauge == 968884224.0); /* memhost */
  assert_true(r->values[3].gauge == 968884224.0);  /* mem */
  assert_true(r->values[11].gauge == 1.5);         /* pressurecpusome */
  assert_true(r->values[12].gauge == 0.25);        /* pressurecpufull */
  assert_true(r->values[15].gauge == 3.0);         /* pressurememorysome */
  assert_true(r->values[0].gauge == 4.0);          /* maxcpu: 2 x 2 */
  assert_true(isnan(r->values[1].gauge));          /* cpu: first sample */
  assert_true(r->values[2].gauge == 4294967296.0); /* maxmem: 4096 MiB */
  assert_true(r->values[8].gauge == 5096.0);       /* diskread */
  assert_true(r->values[9].gauge == 8192.0);       /* diskwrite */
  assert_true(r->values[6].gauge == 43000.0);      /* netin: tap tx */
  assert_true(r->values[7].gauge == 21000.0);      /* netout: tap rx */
  assert_true(isnan(r->values[4].gauge));          /* maxdisk */
  assert_string_equal(r->meta_pve_name, "web");    /* name: from the config */
  r = find("101", "pve_vm_9_0", "qemu");
  assert_non_null(r);
  assert_string_equal(r->meta_pve_name, "");
  assert_true(r->values[0].gauge == (double)sysconf(_SC_NPROCESSORS_ONLN));
  assert_true(isnan(r->values[2].gauge)); /* no config, no memory.max */
  assert_true(r->values[6].gauge == 0.0); /* no interfaces */
  r = find("200", "pve_vm_9_0", "lxc");
  assert_non_null(r);
  assert_true(r->values[6].gauge == 600.0); /* veth200i0 */
  r = find("200", "pve_vm_9_0", "lxc");
  assert_non_null(r);
  assert_true(isnan(r->values[10].gauge));
  assert_true(r->values[3].gauge == 262144000.0);
  /* Every row of one interval carries the same time. */
  assert_int_equal(stub.dispatched[0].vl.time, stub.dispatched[2].vl.time);
  /* Second interval: cpu.stat unchanged, so exactly 0 busy. */
  stub_reset_records();
  assert_int_equal(stub.read(), 0);
  r = find("100", "pve_vm_9_0", "qemu");
  assert_non_null(r);
  assert_true(r->values[1].gauge == 0.0);
}

static void test_select_list(void **state) {
  (void)state;
  oconfig_item_t *c = base_config();
  stub_config_add_strings(c, "VMID", 2, "/^1/", "200");
  stub_config_add_boolean(c, "IgnoreSelected", true);
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  assert_int_equal(stub.read(), 0);
  assert_int_equal(stub.dispatched_count, 0);
  stub.shutdown();
  c = base_config();
  stub_config_add_strings(c, "VMID", 1, "101");
  stub_config_add_strings(c, "Guests", 1, "qemu");
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  assert_int_equal(stub.read(), 0);
  assert_int_equal(stub.dispatched_count, 1);
  assert_non_null(find("101", "pve_vm_9_0", "qemu"));
}

/* Reads at second t; returns how many lists were dispatched. */
static int lists_at(double t) {
  stub_reset_records();
  stub.now = DOUBLE_TO_CDTIME_T(t);
  assert_int_equal(stub.read(), 0);
  return stub.dispatched_count;
}

/* Between the first runs of two minutes (which send KSM and stall time)
 * only the row is kept of a guest: its values are the whole sample's. */
static void test_rows_between_minutes(void **state) {
  (void)state;
  oconfig_item_t *c = base_config();
  stub_config_add_boolean(c, "GuestNames", false);
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  assert_int_equal(lists_at(60000.0), 3);
  assert_int_equal(lists_at(60010.0), 3);
  const struct stub_value_list *r = find("100", "pve_vm_9_0", "qemu");
  assert_non_null(r);
  assert_int_equal(r->vl.values_len, 17);
  assert_true(r->values[0].gauge == 4.0);          /* maxcpu */
  assert_true(r->values[1].gauge == 0.0);          /* cpu: unchanged */
  assert_true(r->values[10].gauge == 968884224.0); /* memhost */
  assert_true(r->values[15].gauge == 3.0);         /* pressurememorysome */
  assert_true(r->values[16].gauge == 0.25);        /* pressurememoryfull */
  assert_string_equal(r->meta_pve_name, "");       /* GuestNames off */
  r = find("200", "pve_vm_9_0", "lxc");
  assert_non_null(r);
  assert_true(r->values[3].gauge == 262144000.0);
  stub.now = 0;
}

static void test_pressure_details(void **state) {
  (void)state;
  oconfig_item_t *c = base_config();
  stub_config_add_strings(c, "Guests", 1, "qemu");
  stub_config_add_strings(c, "VMID", 1, "100");
  stub_config_add_boolean(c, "PressureDetails", true);
  stub_config_add_boolean(c, "GuestNames", false); /* it sends more too */
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  /* Every interval, not only in the first of a minute: the row plus 3
   * resources x some/full x avg60/avg300/total. */
  assert_int_equal(lists_at(60000.0), 1 + 18);
  assert_int_equal(lists_at(60010.0), 1 + 18);
  stub.now = 0;
  const struct stub_value_list *r =
      find("100", "percent", "pressure-io-some-avg60");
  assert_non_null(r);
  assert_true(r->values[0].gauge == 0.5);
  r = find("100", "percent", "pressure-memory-full-avg300");
  assert_non_null(r);
  assert_true(r->values[0].gauge == 0.01);
  r = find("100", "derive", "pressure-cpu-full-total");
  assert_non_null(r);
  assert_int_equal(r->values[0].derive, 500);
}

static void test_extra_stats(void **state) {
  (void)state;
  fixture_write(root, "cg/qemu.slice/100.scope/memory.events",
                "low 0\nhigh 0\nmax 0\noom 4\noom_kill 3\n");
  fixture_write(root, "cg/qemu.slice/100.scope/memory.swap.current", "8192\n");
  oconfig_item_t *c = base_config();
  stub_config_add_strings(c, "VMID", 1, "100");
  stub_config_add_boolean(c, "ExtraStats", true);
  stub_config_add_boolean(c, "GuestNames", false); /* it sends more too */
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  assert_int_equal(lists_at(60000.0), 1 + 4 + 2);
  assert_int_equal(lists_at(60010.0), 1 + 4 + 2); /* every interval */
  stub.now = 0;
  /* The row; anon, file, file_mapped, swap (the fixture's memory.stat has
   * no other keys); oom and oom_kill.  Without a shmem key there is no
   * host_with_shmem. */
  assert_int_equal(stub.dispatched_count, 1 + 4 + 2);
  const struct stub_value_list *r = find("100", "memory", "file");
  assert_non_null(r);
  assert_true(r->values[0].gauge == 104857600.0);
  r = find("100", "memory", "swap");
  assert_non_null(r);
  assert_true(r->values[0].gauge == 8192.0);
  r = find("100", "memory", "file_mapped");
  assert_non_null(r);
  assert_true(r->values[0].gauge == 77.0);
  assert_null(find("100", "memory", "host_with_shmem"));
  r = find("100", "derive", "oom_kill");
  assert_non_null(r);
  assert_int_equal(r->values[0].derive, 3);
}

static void test_file_problem_logged_once(void **state) {
  (void)state;
  fixture_write(root, "cg/qemu.slice/101.scope/io.pressure", "bogus\n");
  assert_int_equal(configure(base_config()), 0);
  assert_int_equal(stub.init(), 0);
  for (int i = 0; i < 3; i++)
    assert_int_equal(stub.read(), 0);
  int lines = 0;
  for (int i = 0; i < stub.log_count; i++)
    lines += strstr(stub.log[i], "qemu 101: io.pressure: malformed") != NULL;
  assert_int_equal(lines, 1);
  fixture_psi(root, "cg/qemu.slice/101.scope", "io.pressure", "1.00");
  assert_int_equal(stub.read(), 0);
  assert_non_null(stub_log_find("qemu 101: io.pressure is readable again"));
}

/* The node name is checked by rrd_file_name_problem, as pve_rrd checks the
 * name of the file it writes: a name one refuses the other does too. */
static void test_node_names(void **state) {
  (void)state;
  char longer[66];
  memset(longer, 'n', sizeof(longer) - 1);
  longer[sizeof(longer) - 1] = '\0';
  const char *refused[] = {"..", ".", "a/b", "node\\1", "a\tb", longer};
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
    oconfig_item_t *c = base_config();
    stub_config_add_boolean(c, "Node", true);
    stub_config_add_strings(c, "NodeName", 1, refused[i]);
    assert_int_equal(configure(c), 0);
    assert_int_not_equal(stub.init(), 0);
    char line[128];
    snprintf(line, sizeof(line), "\"%s\" cannot be a node name", refused[i]);
    assert_non_null(stub_log_find(line));
    stub.shutdown();
    stub_reset_records();
  }
  longer[64] = '\0'; /* 64 bytes is a name */
  oconfig_item_t *c = base_config();
  stub_config_add_boolean(c, "Node", true);
  stub_config_add_strings(c, "NodeName", 1, longer);
  assert_int_equal(configure(c), 0);
  stub.init();
  assert_null(stub_log_find("cannot be a node name"));
}

/* KSM below root/sys: run and pages_sharing as given. */
static void ksm_node_files(const char *run, const char *sharing) {
  fixture_mkdir(root, "sys/kernel/mm/ksm");
  fixture_write(root, "sys/kernel/mm/ksm/run", run);
  fixture_write(root, "sys/kernel/mm/ksm/pages_shared", "0\n");
  fixture_write(root, "sys/kernel/mm/ksm/pages_sharing", sharing);
  fixture_write(root, "sys/kernel/mm/ksm/general_profit", "0\n");
}

/* VM 100's QEMU process, pid 4242, with 2048 pages merged. */
static void qemu_process(void) {
  fixture_mkdir(root, "run/qemu-server");
  fixture_write(root, "run/qemu-server/100.pid", "4242\n");
  fixture_mkdir(root, "proc/4242");
  fixture_write(root, "proc/4242/cgroup", "0::/qemu.slice/100.scope\n");
  fixture_write(root, "proc/4242/stat",
                "4242 (kvm) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 "
                "9 0 5000 1000 50\n");
  fixture_write(root, "proc/4242/ksm_stat",
                "ksm_rmap_items 10\nksm_zero_pages 0\nksm_merging_pages 2048\n"
                "ksm_process_profit 8384512\n");
}

static oconfig_item_t *ksm_config(void) {
  oconfig_item_t *c = base_config();
  char run[PATH_MAX + 8];
  snprintf(run, sizeof(run), "%s/run", root);
  stub_config_add_strings(c, "RunDir", 1, run);
  return c;
}

/* KSM rows dispatched by a read at second t. */
static int ksm_rows_at(double t) {
  stub_reset_records();
  stub.now = DOUBLE_TO_CDTIME_T(t);
  assert_int_equal(stub.read(), 0);
  int rows = 0;
  for (int i = 0; i < stub.dispatched_count; i++)
    rows += strcmp(stub.dispatched[i].vl.type, "pvecg_ksm_vm_1_0") == 0;
  return rows;
}

/* KSM auto: off while the host runs no KSM, on (and logged) once it does;
 * read in the first interval of each minute only. */
static void test_ksm_auto_once_a_minute(void **state) {
  (void)state;
  ksm_node_files("0\n", "0\n");
  qemu_process();
  assert_int_equal(configure(ksm_config()), 0);
  assert_int_equal(stub.init(), 0);
  assert_non_null(stub_log_find("KSM statistics off for now"));
  assert_int_equal(ksm_rows_at(60000.0), 0);
  fixture_write(root, "sys/kernel/mm/ksm/run", "1\n");
  assert_int_equal(ksm_rows_at(60010.0), 0); /* looked at once a minute */
  assert_int_equal(ksm_rows_at(60060.0), 2); /* the two VMs, not the CT */
  assert_non_null(stub_log_find("KSM statistics on: this host runs KSM now"));
  const struct stub_value_list *r = find("100", "pvecg_ksm_vm_1_0", "");
  assert_non_null(r);
  assert_true(r->values[0].gauge == 2048.0);    /* pages merged */
  assert_true(r->values[2].gauge == 8384512.0); /* profit */
  assert_int_equal(r->vl.interval, TIME_T_TO_CDTIME_T(60));
  r = find("101", "pvecg_ksm_vm_1_0", "");
  assert_non_null(r);
  assert_true(isnan(r->values[0].gauge)); /* no QEMU process found */
  assert_int_equal(ksm_rows_at(60070.0), 0);
  assert_int_equal(ksm_rows_at(60119.9), 0);
  /* ksmd stopped again with pages merged: still on. */
  fixture_write(root, "sys/kernel/mm/ksm/run", "0\n");
  fixture_write(root, "sys/kernel/mm/ksm/pages_sharing", "5\n");
  assert_int_equal(ksm_rows_at(60120.0), 2);
  stub.now = 0;
}

/* Merged pages left by a stopped ksmd count as running KSM at start;
 * KSMInterval 0 reads every interval; KSM false never. */
static void test_ksm_modes(void **state) {
  (void)state;
  ksm_node_files("0\n", "10252\n");
  qemu_process();
  oconfig_item_t *c = ksm_config();
  stub_config_add_number(c, "KSMInterval", 0);
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  assert_non_null(stub_log_find("KSM statistics on: this host runs KSM ("));
  assert_int_equal(ksm_rows_at(60000.0), 2);
  assert_int_equal(ksm_rows_at(60001.0), 2);
  stub.shutdown();
  c = ksm_config();
  stub_config_add_boolean(c, "KSM", false);
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  assert_int_equal(ksm_rows_at(60060.0), 0);
  stub.now = 0;
  c = base_config();
  stub_config_add_strings(c, "KSM", 1, "sometimes");
  expect_config_error(c, "\"KSM\" takes true, false or \"auto\"");
}

/* A KSMInterval above the KSM files' heartbeat (120 s) would make every
 * KSM row unknown: refused with one ERROR line; 120 itself is taken. */
static void test_ksm_interval_above_heartbeat(void **state) {
  (void)state;
  oconfig_item_t *c = base_config();
  stub_config_add_number(c, "KSMInterval", 120.5);
  expect_config_error(c, "");
  assert_int_equal(stub.log_count, 1);
  assert_int_equal(stub.log_level[0], LOG_ERR);
  assert_string_equal(
      stub.log[0],
      "pve_cgroup plugin: \"KSMInterval\" 120.5 is above 120 seconds, the "
      "heartbeat of the KSM files: every KSM row would be stored as "
      "unknown.");
  stub_reset_records();
  c = base_config();
  stub_config_add_number(c, "KSMInterval", 120);
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.log_count, 0);
}

/* 101's cpu.pressure with the given totals (microseconds). */
static void cpu_totals(const char *some, const char *full) {
  char text[256];
  snprintf(text, sizeof(text),
           "some avg10=1.00 avg60=0.50 avg300=0.05 total=%s\n"
           "full avg10=0.25 avg60=0.10 avg300=0.01 total=%s\n",
           some, full);
  fixture_write(root, "cg/qemu.slice/101.scope/cpu.pressure", text);
}

/* VM id's stall-time row dispatched by a read at second t, or NULL; how
 * many stall-time rows there were in *rows. */
static const struct stub_value_list *stall_row_at(double t, const char *id,
                                                  int *rows) {
  stub_reset_records();
  stub.now = DOUBLE_TO_CDTIME_T(t);
  assert_int_equal(stub.read(), 0);
  *rows = 0;
  for (int i = 0; i < stub.dispatched_count; i++)
    *rows += strcmp(stub.dispatched[i].vl.type, "pvecg_pressure_vm_1_0") == 0;
  return find(id, "pvecg_pressure_vm_1_0", "qemu");
}

/* StallTime (the default): the kernel's totals as counters, once a
 * minute; an advance a little above the minute recorded as the minute,
 * one far above it or backwards a restart, logged once.  The restart's jump
 * is above the stall files' max over their whole heartbeat. */
static void test_stall_time_rows(void **state) {
  (void)state;
  cpu_totals("1000", "500");
  oconfig_item_t *c = base_config();
  stub_config_add_boolean(c, "StallTime", true);
  assert_int_equal(configure(c), 0);
  assert_int_equal(stub.init(), 0);
  assert_true((double)STALL_RESTART_JUMP_US >
              (double)layout_pvecg_pressure_vm_1_0.heartbeat *
                  (double)layout_pvecg_pressure_vm_1_0.ds_max);
  assert_true((double)STALL_RESTART_JUMP_US >
              (double)layout_pvecg_pressure_node_1_0.heartbeat *
                  (double)layout_pvecg_pressure_node_1_0.ds_max);
  int rows;
  const struct stub_value_list *r = stall_row_at(60000.0, "101", &rows);
  assert_int_equal(rows, 3); /* 100, 101 and the container 200 */
  assert_non_null(r);
  assert_int_equal(r->vl.values_len, 6);
  assert_true(r->values[0].gauge == 1000.0); /* cpu some: the kernel's */
  assert_true(r->values[1].gauge == 500.0);  /* cpu full */
  assert_true(r->values[2].gauge == 1000.0); /* io some (fixture_psi) */
  assert_int_equal(r->vl.interval, TIME_T_TO_CDTIME_T(60));
  assert_non_null(find("200", "pvecg_pressure_vm_1_0", "lxc"));
  cpu_totals("31000", "500");
  assert_null(stall_row_at(60010.0, "101", &rows)); /* once a minute */
  assert_int_equal(rows, 0);
  r = stall_row_at(60060.0, "101", &rows);
  assert_true(r->values[0].gauge == 31000.0);
  /* 60.3 s stalled in 60 s: the clocks' jitter, recorded as 60 s */
  cpu_totals("60331000", "500");
  r = stall_row_at(60120.0, "101", &rows);
  assert_true(r->values[0].gauge == 31000.0 + 60e6);
  assert_null(stub_log_find("stall total"));
  /* 120 s in 60 s: not stall time, a restart: the counter jumps above the
   * files' max, one unknown row */
  cpu_totals("180331000", "500");
  r = stall_row_at(60180.0, "101", &rows);
  assert_true(r->values[0].gauge == 180331000.0 + 240e6);
  assert_true(r->values[1].gauge == 500.0);
  assert_non_null(stub_log_find(
      "qemu 101: the kernel's cpu some stall total went back or ran ahead of "
      "the time elapsed; its stall time is unknown for one minute."));
  cpu_totals("180331000", "100");
  r = stall_row_at(60240.0, "101", &rows);
  /* nothing stalled meanwhile */
  assert_true(r->values[0].gauge == 180331000.0 + 240e6);
  assert_true(r->values[1].gauge ==
              100.0); /* backwards: as the kernel has it */
  /* a file that cannot be read: its two columns unknown */
  fixture_write(root, "cg/qemu.slice/101.scope/cpu.pressure", "bogus\n");
  r = stall_row_at(60300.0, "101", &rows);
  assert_true(isnan(r->values[0].gauge) && isnan(r->values[1].gauge));
  assert_true(r->values[2].gauge == 1000.0);
  stub.now = 0;
}

static size_t log_lines_with(const char *text) {
  size_t n = 0;
  for (int i = 0; i < stub.log_count; i++)
    n += strstr(stub.log[i], text) != NULL;
  return n;
}

/* Which guests are reported is logged once, and again when it changes:
 * without pmxcfs' .version every guest, with it this node's only. */
static void test_scope_logged(void **state) {
  (void)state;
  assert_int_equal(configure(base_config()), 0);
  assert_int_equal(stub.init(), 0);
  assert_int_equal(stub.read(), 0);
  assert_int_equal(stub.read(), 0);
  assert_int_equal(stub.dispatched_count, 6);
  assert_int_equal(log_lines_with("(no .version): every guest found is "
                                  "reported."),
                   1);
  fixture_write(root, "pve/.version", "{\n\"vmlist\": 4,\n");
  stub_reset_records();
  assert_int_equal(stub.read(), 0);
  assert_int_equal(stub.read(), 0);
  assert_int_equal(stub.dispatched_count, 2); /* 100, the one configured */
  assert_string_equal(stub.dispatched[0].vl.plugin_instance, "100");
  assert_int_equal(log_lines_with("reporting the guests whose configuration "
                                  "is on this node"),
                   1);
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/pve/.version", root);
  assert_int_equal(unlink(path), 0);
  stub_reset_records();
  assert_int_equal(stub.read(), 0);
  assert_int_equal(stub.dispatched_count, 3);
  assert_int_equal(log_lines_with("the Proxmox VE cluster file system is gone"),
                   1);
}

int main(void) {
  module_register();
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_registers_row_type),
      T(test_config_errors),
      T(test_init_fails_without_root),
      T(test_one_row_per_guest),
      T(test_select_list),
      T(test_rows_between_minutes),
      T(test_pressure_details),
      T(test_extra_stats),
      T(test_file_problem_logged_once),
      T(test_node_names),
      T(test_ksm_auto_once_a_minute),
      T(test_ksm_modes),
      T(test_ksm_interval_above_heartbeat),
      T(test_stall_time_rows),
      T(test_scope_logged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_pve.c: rows in the InfluxDB and Graphite
 * forms Proxmox's own metric server plugins write, compared as exact text,
 * since a backfill only joins a dashboard's series when every measurement,
 * tag, field and path is spelt as pvestatd spells it.  Covered: a guest's
 * `system` line with and without a name (a name with a space, a comma and
 * an '=' escaped; no host tag without one), a node's row split into its
 * cpustat/memory/blockstat/nics/system lines in the layout's order (the
 * memory group gathering columns that are not neighbours), unknown values
 * left out and groups or rows without a known value giving no line,
 * nanosecond times up to the end of int64 and -ERANGE past it, names line
 * protocol cannot carry refused without output, Graphite's paths, and the
 * plain decimals Graphite.pm requires (no exponent, shortest form that
 * reads back, -ERANGE for a short buffer).  A named cluster's rows: the
 * tag cluster after the others (escaped), the path level after the prefix
 * (its dots and spaces made '_', as a node name's), nothing for "" or
 * NULL, and a cluster line protocol cannot carry refused.  pvecg's stall
 * files: a guest's and a node's counters (in seconds already) as fields
 * stallcpusome..stallmemoryfull of `system`, where the node's pressure
 * goes too, and their Graphite paths (the node's without `system`).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "text_capture.h"

#include "export_pve.h"
#include "pvecg/export_format.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U NAN
#define T 1700000060

/* Writes one row and compares text and counts. */
static void check_row(enum export_format f, const struct export_source *src,
                      time_t t, const double *values, const char *expected,
                      size_t lines, size_t count) {
  struct capture c;
  capture_open(&c);
  struct export_count n = {99, 99};
  assert_int_equal(
      export_pve_row(f == EXPORT_INFLUX, src, t, values, c.out, &n), 0);
  capture_check(&c, expected);
  assert_int_equal(n.lines, lines);
  assert_int_equal(n.values, count);
}

/* The row is refused with err and nothing is written. */
static void check_refused(enum export_format f, const struct export_source *src,
                          time_t t, const double *values, int err) {
  struct capture c;
  capture_open(&c);
  struct export_count n = {99, 99};
  assert_int_equal(
      export_pve_row(f == EXPORT_INFLUX, src, t, values, c.out, &n), err);
  capture_check(&c, "");
}

/* ---- sources and rows ---------------------------------------------------- */

static struct export_source guest(const char *object, const char *vmid,
                                  const char *nodename, const char *title) {
  return (struct export_source){.kind = EXPORT_VM,
                                .name = vmid,
                                .file = "pve-vm-9.0/x",
                                .prefix = "proxmox",
                                .layout = &layout_pve_vm_9_0,
                                .names = EXPORT_NAMES_PVE,
                                .object = object,
                                .nodename = nodename,
                                .title = title};
}

static struct export_source node(const char *name) {
  return (struct export_source){.kind = EXPORT_NODE,
                                .name = name,
                                .file = "pve-node-9.0/x",
                                .prefix = "proxmox",
                                .layout = &layout_pve_node_9_0,
                                .names = EXPORT_NAMES_PVE,
                                .object = "nodes",
                                .nodename = "",
                                .title = ""};
}

/* pve-vm-9.0: maxcpu cpu maxmem mem maxdisk disk netin netout diskread
 * diskwrite memhost pressure{cpu,io,memory}{some,full} */
static const double vm_row[17] = {
    4,      0.25,      4294967296, 1073741824, 34359738368, U, 0,     1e15, U,
    123456, 536870912, 1.5,        U,          0,           U, 0.125, U};

/* pve-node-9.0: loadavg maxcpu cpu iowait memtotal memused swaptotal
 * swapused roottotal rootused netin netout memavailable arcsize
 * pressurecpusome pressureiosome pressureiofull pressurememorysome
 * pressurememoryfull */
static const double node_row[19] = {
    0.5,  8,       0.125, 0,   16777216, 8388608, U, 0, 100000000000, U, 0,
    4096, 4194304, U,     2.5, U,        0.75,    U, U};

static const double all_unknown[19] = {U, U, U, U, U, U, U, U, U, U,
                                       U, U, U, U, U, U, U, U, U};

/* ---- InfluxDB ----------------------------------------------------------- */

static void test_influx_guest(void **state) {
  (void)state;
  struct export_source vm = guest("qemu", "100", "pve1", "web 1,a=b");
  check_row(EXPORT_INFLUX, &vm, T, vm_row,
            "system,object=qemu,vmid=100,nodename=pve1,host=web\\ 1\\,a\\=b "
            "cpus=4,cpu=0.25,maxmem=4294967296,mem=1073741824,"
            "maxdisk=34359738368,netin=0,netout=1e+15,diskwrite=123456,"
            "memhost=536870912,pressurecpusome=1.5,pressureiosome=0,"
            "pressurememorysome=0.125 1700000060000000000\n",
            1, 12);
  /* A container without a name: no host tag at all. */
  struct export_source ct = guest("lxc", "101", "pve2", "");
  double ct_row[17];
  memcpy(ct_row, all_unknown, sizeof(ct_row));
  ct_row[1] = 0.5;
  ct_row[3] = 2048;
  check_row(EXPORT_INFLUX, &ct, T, ct_row,
            "system,object=lxc,vmid=101,nodename=pve2 cpu=0.5,mem=2048 "
            "1700000060000000000\n",
            1, 2);
  /* A row of unknowns writes nothing. */
  check_row(EXPORT_INFLUX, &vm, T, all_unknown, "", 0, 0);
  check_row(EXPORT_INFLUX, &ct, T, all_unknown, "", 0, 0);
}

static void test_influx_node(void **state) {
  (void)state;
  struct export_source n = node("pve1");
  /* memavailable joins the memory line begun by memtotal, after swapused. */
  check_row(EXPORT_INFLUX, &n, T, node_row,
            "cpustat,object=nodes,host=pve1 avg1=0.5,cpus=8,cpu=0.125,wait=0 "
            "1700000060000000000\n"
            "memory,object=nodes,host=pve1 memtotal=16777216,memused=8388608,"
            "swapused=0,memavailable=4194304 1700000060000000000\n"
            "blockstat,object=nodes,host=pve1 blocks=100000000000 "
            "1700000060000000000\n"
            "nics,object=nodes,host=pve1,instance=physical receive=0,"
            "transmit=4096 1700000060000000000\n"
            "system,object=nodes,host=pve1 pressurecpusome=2.5,"
            "pressureiofull=0.75 1700000060000000000\n",
            5, 13);
  /* Groups without a known value give no line: here only memory's second
   * half (memavailable, arcsize) and nics' transmit are known. */
  double v[19];
  memcpy(v, all_unknown, sizeof(v));
  v[11] = 7;
  v[13] = 65536;
  struct export_source spaced = node("my node");
  check_row(EXPORT_INFLUX, &spaced, 0, v,
            "memory,object=nodes,host=my\\ node arcsize=65536 0\n"
            "nics,object=nodes,host=my\\ node,instance=physical transmit=7 0\n",
            2, 2);
  check_row(EXPORT_INFLUX, &n, T, all_unknown, "", 0, 0);
}

/* The legacy layouts have only the first columns. */
static void test_influx_legacy(void **state) {
  (void)state;
  struct export_source n = node("pve1");
  n.layout = &layout_pve2_node;
  check_row(EXPORT_INFLUX, &n, T, node_row,
            "cpustat,object=nodes,host=pve1 avg1=0.5,cpus=8,cpu=0.125,wait=0 "
            "1700000060000000000\n"
            "memory,object=nodes,host=pve1 memtotal=16777216,memused=8388608,"
            "swapused=0 1700000060000000000\n"
            "blockstat,object=nodes,host=pve1 blocks=100000000000 "
            "1700000060000000000\n"
            "nics,object=nodes,host=pve1,instance=physical receive=0,"
            "transmit=4096 1700000060000000000\n",
            4, 10);
  struct export_source vm = guest("qemu", "100", "pve1", "");
  vm.layout = &layout_pve2_vm;
  check_row(EXPORT_INFLUX, &vm, T, vm_row,
            "system,object=qemu,vmid=100,nodename=pve1 cpus=4,cpu=0.25,"
            "maxmem=4294967296,mem=1073741824,maxdisk=34359738368,netin=0,"
            "netout=1e+15,diskwrite=123456 1700000060000000000\n",
            1, 8);
}

static void test_influx_time(void **state) {
  (void)state;
  struct export_source n = node("pve1");
  double v[19];
  memcpy(v, all_unknown, sizeof(v));
  v[0] = 1;
  check_row(EXPORT_INFLUX, &n, 0, v,
            "cpustat,object=nodes,host=pve1 avg1=1 0\n", 1, 1);
  check_row(EXPORT_INFLUX, &n, -1, v,
            "cpustat,object=nodes,host=pve1 avg1=1 -1000000000\n", 1, 1);
  /* The last seconds whose nanoseconds fit int64, and the first that do
   * not, on both sides. */
  check_row(EXPORT_INFLUX, &n, (time_t)9223372036LL, v,
            "cpustat,object=nodes,host=pve1 avg1=1 9223372036000000000\n", 1,
            1);
  check_row(EXPORT_INFLUX, &n, (time_t)-9223372036LL, v,
            "cpustat,object=nodes,host=pve1 avg1=1 -9223372036000000000\n", 1,
            1);
  check_refused(EXPORT_INFLUX, &n, (time_t)9223372037LL, v, -ERANGE);
  check_refused(EXPORT_INFLUX, &n, (time_t)-9223372037LL, v, -ERANGE);
  struct export_source vm = guest("qemu", "100", "pve1", "web");
  check_refused(EXPORT_INFLUX, &vm, (time_t)9223372037LL, vm_row, -ERANGE);
}

/* Names line protocol cannot carry: a newline, an empty tag value, a
 * trailing backslash.  Refused before a byte is written. */
/* A stall file's row of counters, in seconds (export_counter.h). */
static const double stall_row[6] = {15, 0.5, U, 0, 1e-06, 123456.789};

static void test_stall(void **state) {
  (void)state;
  struct export_source vm = guest("qemu", "100", "pve1", "web");
  vm.layout = &layout_pvecg_pressure_vm_1_0;
/* The fields, and the Graphite leaves, of stall_row. */
#define STALL_FIELDS                                                           \
  " stallcpusome=15,stallcpufull=0.5,stalliofull=0,stallmemorysome=1e-06,"     \
  "stallmemoryfull=123456.789 1700000060000000000\n"
#define STALL_LEAVES(path)                                                     \
  path ".stallcpusome 15 1700000060\n" path                                    \
       ".stallcpufull 0.5 1700000060\n" path                                   \
       ".stalliofull 0 1700000060\n" path                                      \
       ".stallmemorysome 0.000001 1700000060\n" path                           \
       ".stallmemoryfull 123456.789 1700000060\n"
  check_row(EXPORT_INFLUX, &vm, T, stall_row,
            "system,object=qemu,vmid=100,nodename=pve1,host=web" STALL_FIELDS,
            1, 5);
  struct export_source n = node("pve1");
  n.layout = &layout_pvecg_pressure_node_1_0;
  check_row(EXPORT_INFLUX, &n, T, stall_row,
            "system,object=nodes,host=pve1" STALL_FIELDS, 1, 5);
  check_row(EXPORT_GRAPHITE, &vm, T, stall_row,
            STALL_LEAVES("proxmox.qemu.100"), 5, 5);
  check_row(EXPORT_GRAPHITE, &n, T, stall_row,
            STALL_LEAVES("proxmox.nodes.pve1"), 5, 5);
#undef STALL_FIELDS
#undef STALL_LEAVES
}

static void test_influx_refused(void **state) {
  (void)state;
  struct export_source n = node("pve\n1");
  check_refused(EXPORT_INFLUX, &n, T, node_row, -EINVAL);
  n = node("");
  check_refused(EXPORT_INFLUX, &n, T, node_row, -EINVAL);
  n = node("pve1\\");
  check_refused(EXPORT_INFLUX, &n, T, node_row, -EINVAL);

  struct export_source vm = guest("qemu", "100", "pve1", "web\nserver");
  check_refused(EXPORT_INFLUX, &vm, T, vm_row, -EINVAL);
  vm = guest("qemu", "100", "pve\n1", "web");
  check_refused(EXPORT_INFLUX, &vm, T, vm_row, -EINVAL);
  vm = guest("qemu", "10\n0", "pve1", "web");
  check_refused(EXPORT_INFLUX, &vm, T, vm_row, -EINVAL);
  vm = guest("qemu", "100", "", "web");
  check_refused(EXPORT_INFLUX, &vm, T, vm_row, -EINVAL);
  vm = guest("", "100", "pve1", "web");
  check_refused(EXPORT_INFLUX, &vm, T, vm_row, -EINVAL);
  vm = guest("qemu", "100", "pve1", "web\\");
  check_refused(EXPORT_INFLUX, &vm, T, vm_row, -EINVAL);
  /* Even a row with nothing to write. */
  vm = guest("qemu", "100", "pve1", "a\tb");
  check_refused(EXPORT_INFLUX, &vm, T, all_unknown, -EINVAL);
}

/* ---- Graphite ------------------------------------------------------------ */

static void test_graphite_guest(void **state) {
  (void)state;
  /* The name is no part of a path; values are plain decimals. */
  struct export_source vm = guest("qemu", "100", "pve1", "web 1,a=b");
  check_row(EXPORT_GRAPHITE, &vm, T, vm_row,
            "proxmox.qemu.100.cpus 4 1700000060\n"
            "proxmox.qemu.100.cpu 0.25 1700000060\n"
            "proxmox.qemu.100.maxmem 4294967296 1700000060\n"
            "proxmox.qemu.100.mem 1073741824 1700000060\n"
            "proxmox.qemu.100.maxdisk 34359738368 1700000060\n"
            "proxmox.qemu.100.netin 0 1700000060\n"
            "proxmox.qemu.100.netout 1000000000000000 1700000060\n"
            "proxmox.qemu.100.diskwrite 123456 1700000060\n"
            "proxmox.qemu.100.memhost 536870912 1700000060\n"
            "proxmox.qemu.100.pressurecpusome 1.5 1700000060\n"
            "proxmox.qemu.100.pressureiosome 0 1700000060\n"
            "proxmox.qemu.100.pressurememorysome 0.125 1700000060\n",
            12, 12);
  struct export_source ct = guest("lxc", "101", "pve2", "");
  ct.prefix = "site.pve";
  double v[17];
  memcpy(v, all_unknown, sizeof(v));
  v[16] = 1e-05;
  check_row(EXPORT_GRAPHITE, &ct, -5, v,
            "site.pve.lxc.101.pressurememoryfull 0.00001 -5\n", 1, 1);
  check_row(EXPORT_GRAPHITE, &vm, T, all_unknown, "", 0, 0);
}

static void test_graphite_node(void **state) {
  (void)state;
  /* Graphite has no groups: one path per value, in the layout's order;
   * `system` is no level of a node's path. */
  struct export_source n = node("pve1");
  check_row(EXPORT_GRAPHITE, &n, T, node_row,
            "proxmox.nodes.pve1.cpustat.avg1 0.5 1700000060\n"
            "proxmox.nodes.pve1.cpustat.cpus 8 1700000060\n"
            "proxmox.nodes.pve1.cpustat.cpu 0.125 1700000060\n"
            "proxmox.nodes.pve1.cpustat.wait 0 1700000060\n"
            "proxmox.nodes.pve1.memory.memtotal 16777216 1700000060\n"
            "proxmox.nodes.pve1.memory.memused 8388608 1700000060\n"
            "proxmox.nodes.pve1.memory.swapused 0 1700000060\n"
            "proxmox.nodes.pve1.blockstat.blocks 100000000000 1700000060\n"
            "proxmox.nodes.pve1.nics.physical.receive 0 1700000060\n"
            "proxmox.nodes.pve1.nics.physical.transmit 4096 1700000060\n"
            "proxmox.nodes.pve1.memory.memavailable 4194304 1700000060\n"
            "proxmox.nodes.pve1.pressurecpusome 2.5 1700000060\n"
            "proxmox.nodes.pve1.pressureiofull 0.75 1700000060\n",
            13, 13);
  /* A node name's dots, spaces and newlines would change the path. */
  struct export_source odd = node("pve1.example com\n");
  double v[19];
  memcpy(v, all_unknown, sizeof(v));
  v[14] = 1.5e+20;
  check_row(EXPORT_GRAPHITE, &odd, T, v,
            "proxmox.nodes.pve1_example_com_.pressurecpusome "
            "150000000000000000000 1700000060\n",
            1, 1);
  check_row(EXPORT_GRAPHITE, &n, T, all_unknown, "", 0, 0);
}

static void test_graphite_refused(void **state) {
  (void)state;
  struct export_source n = node("");
  check_refused(EXPORT_GRAPHITE, &n, T, node_row, -EINVAL);
  n = node("pve1");
  n.prefix = "a..b";
  check_refused(EXPORT_GRAPHITE, &n, T, node_row, -EINVAL);
  n.prefix = "";
  check_refused(EXPORT_GRAPHITE, &n, T, node_row, -EINVAL);
  struct export_source vm = guest("", "100", "pve1", "");
  check_refused(EXPORT_GRAPHITE, &vm, T, vm_row, -EINVAL);
  vm = guest("qemu", "", "pve1", "");
  check_refused(EXPORT_GRAPHITE, &vm, T, vm_row, -EINVAL);
}

/* ---- plain decimals ------------------------------------------------------ */

/* v in EXPORT_PLAIN_SIZE gives exactly expected, which reads back as v. */
static void check_plain(double v, const char *expected) {
  char buf[EXPORT_PLAIN_SIZE];
  memset(buf, 'x', sizeof(buf));
  assert_int_equal(export_plain_number(v, buf, sizeof(buf)),
                   (int)strlen(expected));
  assert_string_equal(buf, expected);
  assert_true(strtod(buf, NULL) == v);
}

/* "0." and zeros, then digits. */
static void small_text(char *buf, size_t size, const char *sign, int zeros,
                       const char *digits) {
  int n = snprintf(buf, size, "%s0.", sign);
  for (int i = 0; i < zeros; i++)
    buf[n++] = '0';
  snprintf(buf + n, size - (size_t)n, "%s", digits);
}

/* ---- clusters ------------------------------------------------------------ */

static void test_cluster_influx(void **state) {
  (void)state;
  double v[19];
  memcpy(v, all_unknown, sizeof(v));
  v[1] = 0.25;
  struct export_source vm = guest("qemu", "196", "pve1", "db");
  vm.cluster = "prod";
  check_row(EXPORT_INFLUX, &vm, T, v,
            "system,object=qemu,vmid=196,nodename=pve1,host=db,cluster=prod "
            "cpu=0.25 1700000060000000000\n",
            1, 1);
  vm.cluster = "site a,b=c";
  check_row(EXPORT_INFLUX, &vm, T, v,
            "system,object=qemu,vmid=196,nodename=pve1,host=db,"
            "cluster=site\\ a\\,b\\=c cpu=0.25 1700000060000000000\n",
            1, 1);
  /* The data directory's own files, with or without named clusters. */
  vm.cluster = "";
  check_row(EXPORT_INFLUX, &vm, T, v,
            "system,object=qemu,vmid=196,nodename=pve1,host=db cpu=0.25 "
            "1700000060000000000\n",
            1, 1);
  struct export_source n = node("pve1");
  n.cluster = "lab";
  double nv[19];
  memcpy(nv, all_unknown, sizeof(nv));
  nv[10] = 7;
  check_row(EXPORT_INFLUX, &n, T, nv,
            "nics,object=nodes,host=pve1,instance=physical,cluster=lab "
            "receive=7 1700000060000000000\n",
            1, 1);
  vm.cluster = "ends\\";
  check_refused(EXPORT_INFLUX, &vm, T, v, -EINVAL);
}

static void test_cluster_graphite(void **state) {
  (void)state;
  double v[19];
  memcpy(v, all_unknown, sizeof(v));
  v[1] = 0.25;
  struct export_source vm = guest("qemu", "196", "pve1", "db");
  vm.cluster = "prod";
  check_row(EXPORT_GRAPHITE, &vm, T, v,
            "proxmox.prod.qemu.196.cpu 0.25 1700000060\n", 1, 1);
  vm.cluster = "site.a b";
  vm.prefix = "x.y";
  check_row(EXPORT_GRAPHITE, &vm, T, v,
            "x.y.site_a_b.qemu.196.cpu 0.25 1700000060\n", 1, 1);
  vm.cluster = "";
  check_row(EXPORT_GRAPHITE, &vm, T, v, "x.y.qemu.196.cpu 0.25 1700000060\n", 1,
            1);
  struct export_source n = node("pve1");
  n.cluster = "lab";
  check_row(EXPORT_GRAPHITE, &n, T, v,
            "proxmox.lab.nodes.pve1.cpustat.cpus 0.25 1700000060\n", 1, 1);
}

static void test_plain(void **state) {
  (void)state;
  check_plain(0, "0");
  check_plain(1e-05, "0.00001");
  check_plain(1.25e-05, "0.0000125");
  check_plain(-2.5e-07, "-0.00000025");
  check_plain(0.1, "0.1");
  check_plain(123.25, "123.25");
  check_plain(-0.5, "-0.5");
  check_plain(1.5e+20, "150000000000000000000");
  check_plain(1e15, "1000000000000000");
  check_plain(-1e15, "-1000000000000000");
  check_plain(1.2345e18, "1234500000000000000");
  /* 2^53 + 1 is no double: it is 2^53; 2^53 + 2 is. */
  check_plain(9007199254740993.0, "9007199254740992");
  check_plain(9007199254740994.0, "9007199254740994");
  /* 17 significant digits, padded with zeros. */
  check_plain(123456789012345678.0, "123456789012345680");

  /* The long ones, and that EXPORT_PLAIN_SIZE holds the longest. */
  char want[EXPORT_PLAIN_SIZE];
  small_text(want, sizeof(want), "", 299, "1");
  assert_int_equal(strlen(want), 302);
  check_plain(1e-300, want);
  small_text(want, sizeof(want), "-", 307, "22250738585072014");
  check_plain(-2.2250738585072014e-308, want);
  assert_int_equal(strlen(want), 327);
  /* The least subnormal: its 15 significant digits read back, and values
   * start at 15 digits (export_value_text), though "5" alone would do. */
  small_text(want, sizeof(want), "-", 323, "494065645841247");
  check_plain(-4.9406564584124654e-324, want);
  snprintf(want, sizeof(want), "17976931348623157");
  memset(want + 17, '0', 292);
  want[309] = '\0';
  check_plain(1.7976931348623157e308, want); /* DBL_MAX */
}

static void test_plain_short(void **state) {
  (void)state;
  char buf[EXPORT_PLAIN_SIZE];
  /* The text and its NUL must fit: one byte less is -ERANGE. */
  assert_int_equal(export_plain_number(1e-05, buf, 7), -ERANGE);
  assert_int_equal(export_plain_number(1e-05, buf, 8), 7);
  assert_string_equal(buf, "0.00001");
  assert_int_equal(export_plain_number(123.25, buf, 6), -ERANGE);
  assert_int_equal(export_plain_number(123.25, buf, 7), 6);
  assert_string_equal(buf, "123.25");
  assert_int_equal(export_plain_number(1.5e+20, buf, 21), -ERANGE);
  assert_int_equal(export_plain_number(1.5e+20, buf, 22), 21);
  assert_string_equal(buf, "150000000000000000000");
  assert_int_equal(export_plain_number(-2.5e-07, buf, 11), -ERANGE);
  assert_int_equal(export_plain_number(-2.5e-07, buf, 12), 11);
  assert_string_equal(buf, "-0.00000025");
  assert_int_equal(export_plain_number(1e-300, buf, 302), -ERANGE);
  assert_int_equal(export_plain_number(1e-300, buf, 303), 302);
  assert_int_equal(export_plain_number(1, buf, 1), -ERANGE);
  assert_int_equal(export_plain_number(1, buf, 0), -ERANGE);
  assert_int_equal(export_plain_number(1e-05, buf, 0), -ERANGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_influx_guest),
      cmocka_unit_test(test_influx_node),
      cmocka_unit_test(test_influx_legacy),
      cmocka_unit_test(test_influx_time),
      cmocka_unit_test(test_influx_refused),
      cmocka_unit_test(test_stall),
      cmocka_unit_test(test_graphite_guest),
      cmocka_unit_test(test_graphite_node),
      cmocka_unit_test(test_graphite_refused),
      cmocka_unit_test(test_cluster_influx),
      cmocka_unit_test(test_cluster_graphite),
      cmocka_unit_test(test_plain),
      cmocka_unit_test(test_plain_short),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

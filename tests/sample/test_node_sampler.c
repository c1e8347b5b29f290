/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the node sampler (src/sample/node_sampler.c) on fixture /proc and
 * /sys trees built in a temp dir: every one of the 19 values exact, cpu and
 * iowait from known counter deltas (first run unknown, counters reset or
 * going backwards unknown, never negative), arcstats missing (0), malformed
 * (unknown) and appearing later, memory figures that would go negative,
 * interfaces that must and must not count, failure masks, descriptors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/node_sample.h"

#include "exact_buffer.h"
#include "node_fixture.h"
#include "node_samples.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#define PCI "pci0000:00/0000:00:03.0"
#define PCI2 "pci0000:00/0000:00:1c.0/0000:02:00.0"
#define KIB 1024.0
#define ALL_VALUES ((1u << NODE_VALUE_COUNT) - 1)
#define BIT(v) (1u << (v))

static char root[256];

/* The fixture's /proc/stat counters: user nice system idle iowait irq
 * softirq steal guest guest_nice. */
#define STAT_RUN1 "100 10 50 1000 20 5 5 10 0 0"
/* +50 user (30 of it guest), +10 system, +120 idle, +20 iowait: 200 ticks
 * passed, 60 busy (cpu 0.3), 20 waiting (iowait 0.1). */
#define STAT_RUN2 "150 10 60 1120 40 5 5 10 30 0"

static void write_meminfo(const char *total, const char *avail,
                          const char *swap_total, const char *swap_free) {
  char text[512];

  snprintf(text, sizeof(text),
           "MemTotal:       %s kB\nMemFree:         1000 kB\n"
           "MemAvailable:   %s kB\nBuffers:          100 kB\n"
           "SwapCached:         0 kB\nSwapTotal:      %s kB\n"
           "SwapFree:       %s kB\nHugePages_Total:       0\n",
           total, avail, swap_total, swap_free);
  fixture_write(root, "proc/meminfo", text);
}

static void write_pressure(const char *name, const char *some,
                           const char *full) {
  char rel[64], text[256];

  snprintf(rel, sizeof(rel), "proc/pressure/%s", name);
  snprintf(text, sizeof(text),
           "some avg10=%s avg60=9.00 avg300=9.00 total=1\n"
           "full avg10=%s avg60=9.00 avg300=9.00 total=1\n",
           some, full);
  fixture_write(root, rel, text);
}

static void make_proc(void) {
  fixture_mkdir(root, "proc/pressure");
  fixture_mkdir(root, "proc/spl/kstat/zfs");
  node_fixture_stat(root, STAT_RUN1);
  write_meminfo("16384000", "12288000", "8192", "2048");
  fixture_write(root, "proc/loadavg", "1.25 0.75 0.50 3/250 4242\n");
  write_pressure("cpu", "1.50", "0.00");
  write_pressure("io", "2.25", "0.75");
  write_pressure("memory", "3.00", "1.13");
  fixture_write(root, "proc/spl/kstat/zfs/arcstats", arcstats_sample);
}

/* Two NICs that count, and a bridge and a tap above them that do not. */
static void make_sys(void) {
  fixture_mkdir(root, "sys/class/net");
  node_fixture_nic(root, "eno1", PCI, NIC_ETHER, 1000, 2000);
  node_fixture_nic(root, "enp2s0", PCI2, NIC_ETHER, 500, 700);
  node_fixture_nic(root, "vmbr0", NIC_VIRTUAL, NIC_ETHER, 99999, 99999);
  node_fixture_nic(root, "tap100i0", NIC_VIRTUAL, NIC_ETHER, 77777, 77777);
  node_fixture_nic(root, "lo", NIC_VIRTUAL, NIC_LOOPBACK, 55555, 55555);
}

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-node");
  make_proc();
  make_sys();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static struct node_sampler *make_sampler(unsigned nic_rescan_runs) {
  struct node_sampler_config c;
  struct node_sampler *s;

  node_sampler_config_init(&c);
  node_fixture_path(c.proc_root, "%s/proc", root);
  node_fixture_path(c.sys_root, "%s/sys", root);
  node_fixture_path(c.root_path, "%s", root);
  c.nic_rescan_runs = nic_rescan_runs;
  assert_int_equal(node_sampler_new(&c, &s), 0);
  return s;
}

static struct node_sample run(struct node_sampler *s) {
  struct node_sample x;

  memset(&x, 0xa5, sizeof(x));
  assert_int_equal(node_sampler_run(s, &x), 0);
  return x;
}

static void check_value(const struct node_sample *x, enum node_value v,
                        double want) {
  assert_true(node_sample_has(x, v));
  assert_double_identical(x->value[v], want);
}

static void check_unknown(const struct node_sample *x, enum node_value v) {
  assert_false(node_sample_has(x, v));
  assert_double_identical(x->value[v], 0.0);
}

static bool same_statvfs(const struct statvfs *a, const struct statvfs *b) {
  return a->f_blocks == b->f_blocks && a->f_bfree == b->f_bfree &&
         a->f_frsize == b->f_frsize;
}

/* The file system of the fixture as statvfs saw it just before and just
 * after a run. */
struct root_bounds {
  struct statvfs before, after;
};

static double used_bytes(const struct statvfs *st) {
  return (double)(st->f_blocks - st->f_bfree) * (double)st->f_frsize;
}

/* The two calls agree and so does the sampler's own call between them. */
static bool quiet_run(const struct root_bounds *b,
                      const struct node_sample *x) {
  return same_statvfs(&b->before, &b->after) &&
         node_sample_has(x, NODE_ROOTUSED) &&
         x->value[NODE_ROOTUSED] == used_bytes(&b->before);
}

/*
 * Runs the sampler between two statvfs calls of the fixture's file system.
 * Other processes write to /tmp too (the suite runs tests in parallel, and
 * under valgrind a run is slow enough for a file to come and go inside it),
 * so the run is repeated until the file system stood still around it; the
 * figures are then checked exactly, else within the two calls' range.
 */
static struct node_sample run_with_root(struct node_sampler *s,
                                        struct root_bounds *b) {
  struct node_sample x;
  for (int tries = 0; tries < 20; tries++) {
    assert_int_equal(statvfs(root, &b->before), 0);
    x = run(s);
    assert_int_equal(statvfs(root, &b->after), 0);
    if (quiet_run(b, &x))
      break;
  }
  return x;
}

static void check_root(const struct node_sample *x,
                       const struct root_bounds *b) {
  check_value(x, NODE_ROOTTOTAL,
              (double)b->before.f_blocks * (double)b->before.f_frsize);
  if (same_statvfs(&b->before, &b->after)) {
    check_value(x, NODE_ROOTUSED, used_bytes(&b->before));
    return;
  }
  double lo = used_bytes(&b->before), hi = used_bytes(&b->after);
  if (lo > hi) {
    double t = lo;
    lo = hi;
    hi = t;
  }
  assert_true(node_sample_has(x, NODE_ROOTUSED));
  assert_true(x->value[NODE_ROOTUSED] >= lo && x->value[NODE_ROOTUSED] <= hi);
}

/* The root file system's columns are there and possible. */
static void check_root_present(const struct node_sample *x) {
  assert_true(node_sample_has(x, NODE_ROOTTOTAL));
  assert_true(node_sample_has(x, NODE_ROOTUSED));
  assert_true(x->value[NODE_ROOTTOTAL] > 0);
  assert_true(x->value[NODE_ROOTUSED] <= x->value[NODE_ROOTTOTAL]);
}

/* Every value but cpu and iowait, as the fixture has them after run 1. */
static void check_first_run_values(const struct node_sample *x) {
  check_value(x, NODE_LOADAVG, 1.25);
  check_value(x, NODE_MAXCPU, 2);
  check_value(x, NODE_MEMTOTAL, 16384000 * KIB);
  check_value(x, NODE_MEMUSED, (16384000 - 12288000) * KIB);
  check_value(x, NODE_MEMAVAILABLE, 12288000 * KIB);
  check_value(x, NODE_SWAPTOTAL, 8192 * KIB);
  check_value(x, NODE_SWAPUSED, (8192 - 2048) * KIB);
  check_value(x, NODE_NETIN, 1000 + 500);
  check_value(x, NODE_NETOUT, 2000 + 700);
  check_value(x, NODE_ARCSIZE, 4208166912.0);
  check_value(x, NODE_PRESSURE_CPU_SOME, 1.5);
  check_value(x, NODE_PRESSURE_IO_SOME, 2.25);
  check_value(x, NODE_PRESSURE_IO_FULL, 0.75);
  check_value(x, NODE_PRESSURE_MEMORY_SOME, 3.0);
  check_value(x, NODE_PRESSURE_MEMORY_FULL, 1.13);
}

static void test_first_run(void **state) {
  struct node_sampler *s = make_sampler(30);
  struct root_bounds rb;
  struct node_sample x;

  (void)state;
  x = run_with_root(s, &rb);
  assert_int_equal(x.valid, ALL_VALUES & ~BIT(NODE_CPU) & ~BIT(NODE_IOWAIT));
  check_first_run_values(&x);
  check_root(&x, &rb);
  check_unknown(&x, NODE_CPU);
  check_unknown(&x, NODE_IOWAIT);
  assert_int_equal(x.failed, 0);
  assert_int_equal(x.failed_before, 0);
  assert_int_equal(x.nics, 2);
  for (int i = 0; i < NODE_SOURCE_COUNT; i++)
    assert_int_equal(x.error[i], 0);
  node_sampler_free(s);
}

/* The second run: all 19 values, every file re-read through its kept
 * descriptor with new contents. */
static void test_all_columns(void **state) {
  struct node_sampler *s = make_sampler(30);
  struct node_sample x;

  (void)state;
  run(s);
  node_fixture_stat(root, STAT_RUN2);
  write_meminfo("16384000", "4096000", "8192", "8192");
  fixture_write(root, "proc/loadavg", "2.50 0.75 0.50 3/250 4243\n");
  write_pressure("cpu", "10.00", "0.00");
  write_pressure("io", "20.50", "7.25");
  write_pressure("memory", "0.00", "0.01");
  node_fixture_counters(root, "eno1", 1500, 2600);
  fixture_write(root, "proc/spl/kstat/zfs/arcstats",
                "1 1 0x01 1 80 1 2\nname type data\nsize 4 1073741824\n");
  x = run(s);
  assert_int_equal(x.valid, ALL_VALUES);
  check_value(&x, NODE_LOADAVG, 2.5);
  check_value(&x, NODE_MAXCPU, 2);
  check_value(&x, NODE_CPU, 0.3);
  check_value(&x, NODE_IOWAIT, 0.1);
  check_value(&x, NODE_MEMTOTAL, 16384000 * KIB);
  check_value(&x, NODE_MEMUSED, (16384000 - 4096000) * KIB);
  check_value(&x, NODE_SWAPTOTAL, 8192 * KIB);
  check_value(&x, NODE_SWAPUSED, 0);
  /* The file system's figures are checked exactly by test_first_run, which
   * may run again when other tests write meanwhile; here a second run would
   * see no CPU time pass. */
  check_root_present(&x);
  check_value(&x, NODE_NETIN, 1500 + 500);
  check_value(&x, NODE_NETOUT, 2600 + 700);
  check_value(&x, NODE_MEMAVAILABLE, 4096000 * KIB);
  check_value(&x, NODE_ARCSIZE, 1073741824);
  check_value(&x, NODE_PRESSURE_CPU_SOME, 10.0);
  check_value(&x, NODE_PRESSURE_IO_SOME, 20.5);
  check_value(&x, NODE_PRESSURE_IO_FULL, 7.25);
  check_value(&x, NODE_PRESSURE_MEMORY_SOME, 0.0);
  check_value(&x, NODE_PRESSURE_MEMORY_FULL, 0.01);
  /* 7 proc files and two counters per NIC, kept open. */
  assert_int_equal(node_sampler_fd_count(s), 7 + 2 * 2);
  node_sampler_free(s);
}

static void run_stat(struct node_sampler *s, const char *fields,
                     struct node_sample *x) {
  node_fixture_stat(root, fields);
  *x = run(s);
}

/* Counters that go back give unknown, never a negative or >1 fraction;
 * the next run measures from the new values. */
static void test_cpu_deltas(void **state) {
  struct node_sampler *s = make_sampler(30);
  struct node_sample x;

  (void)state;
  run_stat(s, "100 10 50 1000 20 5 5 10 0 0", &x);
  /* Reset (a new boot's counters, or a wrap): everything went back. */
  run_stat(s, "10 0 5 100 2 0 0 0 0 0", &x);
  check_unknown(&x, NODE_CPU);
  check_unknown(&x, NODE_IOWAIT);
  check_value(&x, NODE_MAXCPU, 2);
  assert_int_equal(x.failed, 0);
  /* +20 user, +60 idle, +20 iowait: 100 ticks. */
  run_stat(s, "30 0 5 160 22 0 0 0 0 0", &x);
  check_value(&x, NODE_CPU, 0.2);
  check_value(&x, NODE_IOWAIT, 0.2);
  /* iowait alone goes back (the kernel allows that on NOHZ): +50 user,
   * +62 idle, -12 iowait is 100 ticks, half of them busy. */
  run_stat(s, "80 0 5 222 10 0 0 0 0 0", &x);
  check_value(&x, NODE_CPU, 0.5);
  check_unknown(&x, NODE_IOWAIT);
  /* No tick passed. */
  run_stat(s, "80 0 5 222 10 0 0 0 0 0", &x);
  check_unknown(&x, NODE_CPU);
  check_unknown(&x, NODE_IOWAIT);
  /* idle goes back by 40 while busy grows by 50: 10 ticks passed, and a
   * busy share of 5 would be nonsense. */
  run_stat(s, "130 0 5 182 10 0 0 0 0 0", &x);
  check_unknown(&x, NODE_CPU);
  check_value(&x, NODE_IOWAIT, 0.0);
  /* Fully busy; irq, softirq and steal count as busy. */
  run_stat(s, "140 0 5 182 10 10 10 10 0 0", &x);
  check_value(&x, NODE_CPU, 1.0);
  check_value(&x, NODE_IOWAIT, 0.0);
  /* Sums that do not fit 64 bits: unknown, the CPU count stays. */
  run_stat(s, "18446744073709551615 1 0 0 0 0 0 0 0 0", &x);
  run_stat(s, "18446744073709551615 2 0 0 0 0 0 0 0 0", &x);
  check_unknown(&x, NODE_CPU);
  check_unknown(&x, NODE_IOWAIT);
  check_value(&x, NODE_MAXCPU, 2);
  node_sampler_free(s);
}

/* A /proc/stat that cannot be parsed keeps the last good counters, so the
 * next good one is measured against them. */
static void test_stat_failure_keeps_base(void **state) {
  struct node_sampler *s = make_sampler(30);
  struct node_sample x;

  (void)state;
  run_stat(s, "100 0 0 100 0 0 0 0 0 0", &x);
  fixture_write(root, "proc/stat", "cpu  1 2 3\n");
  x = run(s);
  assert_int_equal(x.error[NODE_SOURCE_STAT], -EBADMSG);
  assert_int_equal(x.failed, BIT(NODE_SOURCE_STAT));
  check_unknown(&x, NODE_MAXCPU);
  check_unknown(&x, NODE_CPU);
  run_stat(s, "150 0 0 250 0 0 0 0 0 0", &x);
  check_value(&x, NODE_CPU, 0.25);
  assert_int_equal(x.failed, 0);
  assert_int_equal(x.failed_before, BIT(NODE_SOURCE_STAT));
  node_sampler_free(s);
}

/* A host with 4096 CPUs: /proc/stat is far larger than the first buffer. */
static void test_large_stat(void **state) {
  size_t size = 4096 * 64 + 256, len = 0;
  char *text = malloc(size);
  struct node_sampler *s = make_sampler(30);
  struct node_sample x;

  (void)state;
  assert_non_null(text);
  len += (size_t)sprintf(text, "cpu  1 2 3 4 5 6 7 8 9 10\n");
  for (int i = 0; i < 4096; i++)
    len += (size_t)sprintf(text + len, "cpu%d 1 2 3 4 5 6 7 8 9 10\n", i);
  sprintf(text + len, "intr 1\n");
  fixture_write(root, "proc/stat", text);
  x = run(s);
  check_value(&x, NODE_MAXCPU, 4096);
  free(text);
  node_sampler_free(s);
}

/* No ZFS: arcsize is 0 (as PVE has it), and that is not a failure.  The
 * module loaded later is found; a malformed file is unknown. */
static void test_arcstats(void **state) {
  char dir[PATH_MAX];
  struct node_sampler *s;
  struct node_sample x;

  (void)state;
  node_fixture_path(dir, "%s/proc/spl", root);
  fixture_remove(dir);
  s = make_sampler(30);
  x = run(s);
  check_value(&x, NODE_ARCSIZE, 0);
  assert_int_equal(x.error[NODE_SOURCE_ARCSTATS], 0);
  assert_int_equal(x.failed, 0);
  assert_int_equal(node_sampler_fd_count(s), 6 + 2 * 2);
  fixture_mkdir(root, "proc/spl/kstat/zfs");
  fixture_write(root, "proc/spl/kstat/zfs/arcstats", arcstats_sample);
  x = run(s);
  check_value(&x, NODE_ARCSIZE, 4208166912.0);
  fixture_write(root, "proc/spl/kstat/zfs/arcstats",
                "1 1 0x01 1 80 1 2\nname type data\nsize 3 -1\n");
  x = run(s);
  check_unknown(&x, NODE_ARCSIZE);
  assert_int_equal(x.error[NODE_SOURCE_ARCSTATS], -EBADMSG);
  assert_int_equal(x.failed, BIT(NODE_SOURCE_ARCSTATS));
  check_value(&x, NODE_MEMTOTAL, 16384000 * KIB); /* the rest is intact */
  fixture_write(root, "proc/spl/kstat/zfs/arcstats", "");
  x = run(s);
  check_unknown(&x, NODE_ARCSIZE);
  assert_int_equal(x.failed_before, BIT(NODE_SOURCE_ARCSTATS));
  node_sampler_free(s);
}

/* "used" figures that would be negative are unknown; totals stay. */
static void test_memory_never_negative(void **state) {
  struct node_sampler *s = make_sampler(30);
  struct node_sample x;

  (void)state;
  write_meminfo("1000", "1001", "0", "0");
  x = run(s);
  check_value(&x, NODE_MEMTOTAL, 1000 * KIB);
  check_value(&x, NODE_MEMAVAILABLE, 1001 * KIB);
  check_unknown(&x, NODE_MEMUSED);
  check_value(&x, NODE_SWAPTOTAL, 0);
  check_value(&x, NODE_SWAPUSED, 0);
  write_meminfo("1000", "1000", "10", "11");
  x = run(s);
  check_value(&x, NODE_MEMUSED, 0);
  check_value(&x, NODE_SWAPTOTAL, 10 * KIB);
  check_unknown(&x, NODE_SWAPUSED);
  assert_int_equal(x.failed, 0);
  node_sampler_free(s);
}

/* A NIC appears at the next listing: for that one run the sums are not a
 * continuation of the last ones and are unknown (a spike otherwise). */
static void test_net(void **state) {
  struct node_sampler *s = make_sampler(2);
  struct node_sample x;

  (void)state;
  x = run(s);
  check_value(&x, NODE_NETIN, 1500);
  node_fixture_nic(root, "eth3", PCI2, NIC_ETHER, 1 << 20, 1 << 21);
  node_fixture_nic(root, "bond0", NIC_VIRTUAL, NIC_ETHER, 1 << 22, 1 << 22);
  x = run(s);
  check_value(&x, NODE_NETIN, 1500);
  assert_int_equal(x.nics, 2);
  x = run(s);
  check_unknown(&x, NODE_NETIN);
  check_unknown(&x, NODE_NETOUT);
  assert_int_equal(x.nics, 3);
  assert_int_equal(x.error[NODE_SOURCE_NET], 0);
  assert_int_equal(x.failed, 0);
  x = run(s);
  check_value(&x, NODE_NETIN, 1500 + (1 << 20));
  check_value(&x, NODE_NETOUT, 2700 + (1 << 21));
  node_sampler_free(s);
}

static void test_missing_sources(void **state) {
  char dir[PATH_MAX];
  struct node_sampler *s;
  struct node_sample x;

  (void)state;
  node_fixture_path(dir, "%s/proc/pressure", root);
  fixture_remove(dir);
  node_fixture_path(dir, "%s/sys", root);
  fixture_remove(dir);
  s = make_sampler(30);
  x = run(s);
  assert_int_equal(x.error[NODE_SOURCE_CPU_PRESSURE], -ENOENT);
  assert_int_equal(x.error[NODE_SOURCE_IO_PRESSURE], -ENOENT);
  assert_int_equal(x.error[NODE_SOURCE_MEMORY_PRESSURE], -ENOENT);
  assert_int_equal(x.error[NODE_SOURCE_NET], -ENOENT);
  assert_int_equal(
      x.failed, BIT(NODE_SOURCE_CPU_PRESSURE) | BIT(NODE_SOURCE_IO_PRESSURE) |
                    BIT(NODE_SOURCE_MEMORY_PRESSURE) | BIT(NODE_SOURCE_NET));
  for (int v = NODE_PRESSURE_CPU_SOME; v <= NODE_PRESSURE_MEMORY_FULL; v++)
    check_unknown(&x, (enum node_value)v);
  check_unknown(&x, NODE_NETIN);
  check_unknown(&x, NODE_NETOUT);
  check_value(&x, NODE_LOADAVG, 1.25);
  /* The same failures again: failed_before tells the caller to stay quiet. */
  x = run(s);
  assert_int_equal(x.failed, x.failed_before);
  node_sampler_free(s);
}

/* Nothing readable at all (wrong roots): -ENODATA, arcsize 0 or not. */
static void test_nothing_readable(void **state) {
  struct node_sampler_config c;
  struct node_sampler *s;
  struct node_sample x;

  (void)state;
  node_sampler_config_init(&c);
  node_fixture_path(c.proc_root, "%s/nonexistent", root);
  node_fixture_path(c.sys_root, "%s/nonexistent", root);
  node_fixture_path(c.root_path, "%s/nonexistent", root);
  assert_int_equal(node_sampler_new(&c, &s), 0);
  assert_int_equal(node_sampler_run(s, &x), -ENODATA);
  assert_int_equal(x.valid, BIT(NODE_ARCSIZE));
  assert_int_equal(x.error[NODE_SOURCE_ROOT], -ENOENT);
  assert_int_equal(node_sampler_fd_count(s), 0);
  node_sampler_free(s);
}

static void test_config(void **state) {
  struct node_sampler_config c;
  struct node_sampler *s = NULL;

  (void)state;
  node_sampler_config_init(&c);
  assert_string_equal(c.proc_root, "/proc");
  assert_string_equal(c.sys_root, "/sys");
  assert_string_equal(c.root_path, "/");
  assert_int_equal(c.nic_rescan_runs, NODE_NIC_RESCAN_RUNS_DEFAULT);
  assert_int_equal(node_sampler_new(&c, &s), 0);
  assert_string_equal(node_sampler_source_path(s, NODE_SOURCE_STAT),
                      "/proc/stat");
  assert_string_equal(node_sampler_source_path(s, NODE_SOURCE_ARCSTATS),
                      "/proc/spl/kstat/zfs/arcstats");
  assert_string_equal(node_sampler_source_path(s, NODE_SOURCE_IO_PRESSURE),
                      "/proc/pressure/io");
  assert_string_equal(node_sampler_source_path(s, NODE_SOURCE_ROOT), "/");
  assert_string_equal(node_sampler_source_path(s, NODE_SOURCE_NET),
                      "/sys/class/net");
  assert_string_equal(node_sampler_source_path(s, NODE_SOURCE_COUNT), "");
  node_sampler_free(s);
  node_sampler_free(NULL);
  s = NULL;
  snprintf(c.proc_root, sizeof(c.proc_root), "proc");
  assert_int_equal(node_sampler_new(&c, &s), -EINVAL);
  node_sampler_config_init(&c);
  c.root_path[0] = '\0';
  assert_int_equal(node_sampler_new(&c, &s), -EINVAL);
  node_sampler_config_init(&c);
  memset(c.sys_root, 'a', sizeof(c.sys_root) - 1);
  c.sys_root[0] = '/';
  c.sys_root[sizeof(c.sys_root) - 1] = '\0';
  assert_int_equal(node_sampler_new(&c, &s), -EINVAL);
  assert_null(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_first_run, setup, teardown),
      cmocka_unit_test_setup_teardown(test_all_columns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cpu_deltas, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stat_failure_keeps_base, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_large_stat, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arcstats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_memory_never_negative, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_net, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_sources, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nothing_readable, setup, teardown),
      cmocka_unit_test(test_config),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node sampler on this machine's real /proc, /sys and /: each value
 * checked against an independent source (sysconf, sysinfo, statvfs, the
 * NICs' own counter files), and the physical-NIC rule checked against
 * pvestatd 9's (`ip -details -json link`: link_type "ether" and no linkinfo
 * kind).  Where permitted, a bridge with a veth port, a macvlan and a tap
 * are created for the comparison and removed afterwards; without `ip` and
 * `jq` the NIC comparison is skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/node_sample.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#define MAX_NICS 64
/* PVE's ip_link_is_physical(), as a jq filter. */
#define PVE_PHYSICAL_NICS                                                      \
  "ip -details -json link show 2>/dev/null | jq -r '.[] | "                    \
  "select(.link_type == \"ether\" and "                                        \
  "(.linkinfo.info_kind // \"\") == \"\") | .ifname' 2>/dev/null"

struct nic_names {
  size_t n;
  char name[MAX_NICS][64];
};

static char bridge[16], veth[16], macvlan[16], tap[16];

/* Runs a shell command; true when it succeeded. */
__attribute__((format(printf, 1, 2))) static bool shell_ok(const char *fmt,
                                                           ...) {
  char cmd[256];
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
  va_end(ap);
  assert_true(n > 0 && (size_t)n < sizeof(cmd));
  return system(cmd) == 0;
}

/* Names PVE counts as physical; false when ip or jq is not there. */
static bool pve_physical_nics(struct nic_names *out) {
  FILE *p = popen(PVE_PHYSICAL_NICS, "r");
  char line[64];

  out->n = 0;
  if (!p)
    return false;
  while (fgets(line, sizeof(line), p) && out->n < MAX_NICS) {
    line[strcspn(line, "\n")] = '\0';
    snprintf(out->name[out->n++], sizeof(out->name[0]), "%s", line);
  }
  return pclose(p) == 0;
}

static void create_software_devices(void) {
  struct nic_names nics;
  int id = (int)(getpid() % 100000);

  snprintf(bridge, sizeof(bridge), "pvcb%d", id);
  snprintf(veth, sizeof(veth), "pvcv%d", id);
  snprintf(tap, sizeof(tap), "pvct%d", id);
  if (!shell_ok("ip link add %s type bridge 2>/dev/null", bridge))
    bridge[0] = '\0';
  if (!shell_ok("ip link add %s type veth peer name %sp 2>/dev/null", veth,
                veth))
    veth[0] = '\0';
  if (bridge[0] && veth[0])
    shell_ok("ip link set %s master %s 2>/dev/null", veth, bridge);
  if (!shell_ok("ip tuntap add dev %s mode tap 2>/dev/null", tap))
    tap[0] = '\0';
  macvlan[0] = '\0';
  if (pve_physical_nics(&nics) && nics.n > 0) {
    snprintf(macvlan, sizeof(macvlan), "pvcm%d", id);
    if (!shell_ok("ip link add %s link %s type macvlan 2>/dev/null", macvlan,
                  nics.name[0]))
      macvlan[0] = '\0';
  }
}

static void remove_device(const char *name) {
  if (name[0])
    shell_ok("ip link del %s 2>/dev/null", name);
}

static int setup(void **state) {
  (void)state;
  create_software_devices();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  remove_device(macvlan);
  remove_device(veth);
  remove_device(tap);
  remove_device(bridge);
  return 0;
}

static uint64_t read_counter(const char *nic, const char *file) {
  char path[PATH_MAX];
  unsigned long long v = 0;
  FILE *f;

  snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", nic, file);
  f = fopen(path, "r");
  assert_non_null(f);
  assert_int_equal(fscanf(f, "%llu", &v), 1);
  fclose(f);
  return v;
}

static void sum_counters(const struct nic_names *nics, uint64_t *rx,
                         uint64_t *tx) {
  *rx = *tx = 0;
  for (size_t i = 0; i < nics->n; i++) {
    *rx += read_counter(nics->name[i], "rx_bytes");
    *tx += read_counter(nics->name[i], "tx_bytes");
  }
}

static void burn_cpu(double seconds) {
  struct timespec start, now;
  volatile unsigned long spin = 0;

  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    for (int i = 0; i < 100000; i++)
      spin++;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((double)(now.tv_sec - start.tv_sec) +
               (double)(now.tv_nsec - start.tv_nsec) / 1e9 <
           seconds);
}

static struct node_sampler *host_sampler(void) {
  struct node_sampler_config c;
  struct node_sampler *s;

  node_sampler_config_init(&c);
  assert_int_equal(node_sampler_new(&c, &s), 0);
  return s;
}

static void check_memory(const struct node_sample *x) {
  struct sysinfo si;

  assert_int_equal(sysinfo(&si), 0);
  assert_true(node_sample_has(x, NODE_MEMTOTAL));
  assert_true(x->value[NODE_MEMTOTAL] ==
              (double)si.totalram * (double)si.mem_unit);
  assert_true(x->value[NODE_SWAPTOTAL] ==
              (double)si.totalswap * (double)si.mem_unit);
  assert_true(x->value[NODE_MEMUSED] + x->value[NODE_MEMAVAILABLE] ==
              x->value[NODE_MEMTOTAL]);
  assert_true(x->value[NODE_SWAPUSED] <= x->value[NODE_SWAPTOTAL]);
}

static void check_root(const struct node_sample *x) {
  struct statvfs st;

  assert_int_equal(statvfs("/", &st), 0);
  assert_true(x->value[NODE_ROOTTOTAL] ==
              (double)st.f_blocks * (double)st.f_frsize);
  assert_true(x->value[NODE_ROOTUSED] <= x->value[NODE_ROOTTOTAL]);
}

static void check_cpu(const struct node_sample *x) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);

  assert_true(x->value[NODE_MAXCPU] == (double)cpus);
  assert_true(node_sample_has(x, NODE_CPU));
  assert_true(node_sample_has(x, NODE_IOWAIT));
  /* This thread burnt one CPU for the whole interval. */
  assert_true(x->value[NODE_CPU] >= 0.5 / (double)cpus);
  assert_true(x->value[NODE_CPU] <= 1.0);
  assert_true(x->value[NODE_IOWAIT] >= 0.0 && x->value[NODE_IOWAIT] <= 1.0);
  assert_true(x->value[NODE_LOADAVG] >= 0.0);
}

static void check_pressure(const struct node_sample *x) {
  if (access("/proc/pressure/io", R_OK) != 0)
    return; /* a kernel without PSI */
  for (int v = NODE_PRESSURE_CPU_SOME; v <= NODE_PRESSURE_MEMORY_FULL; v++) {
    assert_true(node_sample_has(x, (enum node_value)v));
    assert_true(x->value[v] >= 0.0 && x->value[v] <= 100.0);
  }
}

static void check_arcsize(const struct node_sample *x) {
  assert_true(node_sample_has(x, NODE_ARCSIZE));
  if (access("/proc/spl/kstat/zfs/arcstats", F_OK) != 0)
    assert_true(x->value[NODE_ARCSIZE] == 0.0);
}

static void test_host_values(void **state) {
  struct node_sampler *s = host_sampler();
  struct node_sample x;

  (void)state;
  assert_int_equal(node_sampler_run(s, &x), 0);
  assert_false(node_sample_has(&x, NODE_CPU));
  burn_cpu(0.3);
  assert_int_equal(node_sampler_run(s, &x), 0);
  assert_int_equal(x.failed & ~(1u << NODE_SOURCE_CPU_PRESSURE |
                                1u << NODE_SOURCE_IO_PRESSURE |
                                1u << NODE_SOURCE_MEMORY_PRESSURE),
                   0);
  check_cpu(&x);
  check_memory(&x);
  check_root(&x);
  check_pressure(&x);
  check_arcsize(&x);
  node_sampler_free(s);
}

/* The interfaces we sum are the ones pvestatd 9 sums. */
static void test_nic_rule_matches_pve(void **state) {
  struct node_sampler_config c;
  struct node_sampler *s;
  struct node_sample x;
  struct nic_names pve;
  uint64_t rx0, tx0, rx1, tx1;

  (void)state;
  if (!pve_physical_nics(&pve))
    skip();
  node_sampler_config_init(&c);
  c.nic_rescan_runs = 0;
  assert_int_equal(node_sampler_new(&c, &s), 0);
  sum_counters(&pve, &rx0, &tx0);
  assert_int_equal(node_sampler_run(s, &x), 0);
  sum_counters(&pve, &rx1, &tx1);
  assert_int_equal(x.error[NODE_SOURCE_NET], 0);
  assert_int_equal(x.nics, pve.n);
  assert_true(node_sample_has(&x, NODE_NETIN));
  assert_true(x.value[NODE_NETIN] >= (double)rx0 &&
              x.value[NODE_NETIN] <= (double)rx1);
  assert_true(x.value[NODE_NETOUT] >= (double)tx0 &&
              x.value[NODE_NETOUT] <= (double)tx1);
  node_sampler_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_values),
      cmocka_unit_test(test_nic_rule_matches_pve),
  };

  return cmocka_run_group_tests(tests, setup, teardown);
}

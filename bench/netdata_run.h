/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netdata as a measured peer: one instance (unified hosts) or two (hybrid
 * hosts: v1 memory and unified pressure, see netdata_conf.h), each in the
 * foreground (-D) with a private directory and loopback port, its CPU
 * taken with its children's, its charts counted through /api/v1/charts.
 */
#ifndef PVECG_BENCH_NETDATA_RUN_H
#define PVECG_BENCH_NETDATA_RUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NETDATA_MAX_INSTANCES 2

struct netdata_target {
  const char *netdata;     /* the binary */
  const char *dir;         /* instances go to <dir>/<name>-<i>/ */
  const char *name;        /* "netdata", "idle-netdata" */
  const char *root;        /* cgroup2 directory holding qemu.slice/ */
  const char *memory_root; /* its v1 memory twin, or "" (unified host) */
  const char *empty;       /* an empty directory */
  bool idle;               /* every path at empty: nothing to find */
  size_t guests;
};

struct netdata_instance {
  pid_t pid;
  uint16_t port;
  int cgroup_v1;
  char dir[PATH_MAX];
};

struct netdata_run {
  struct netdata_instance inst[NETDATA_MAX_INSTANCES];
  size_t count;
};

/* Charts per kind summed over the instances: what a guest should have once
 * each (memory use, and the five PSI lines pvecg records). */
struct netdata_charts {
  size_t mem_usage, cpu_some, memory_some, memory_full, io_some, io_full;
};

/* Returns 0 or a negative errno; on failure started instances are
 * stopped. */
int netdata_run_start(struct netdata_run *r, const struct netdata_target *t);

/*
 * Waits (at most timeout_s) until every instance answers on its port and,
 * for guests > 0, has every chart of struct netdata_charts for each guest.
 * Fills ret with the last counts.  Returns 0, -ETIMEDOUT, -ECHILD (an
 * instance died) or -EINTR.
 */
int netdata_run_wait_ready(const struct netdata_run *r, size_t guests,
                           unsigned timeout_s, struct netdata_charts *ret);

bool netdata_run_alive(const struct netdata_run *r);

/* Run time (ns) of every instance and its children so far. */
uint64_t netdata_run_runtime_ns(const struct netdata_run *r);

/* Stops every instance (SIGTERM, then SIGKILL). */
void netdata_run_stop(struct netdata_run *r);

#endif

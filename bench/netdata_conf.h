/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netdata.conf for the peers mode: Debian's netdata with every collector
 * off but its cgroups collector (update every 1 s), limited to what pvecg
 * records (memory and pressure; CPU and block I/O charts off), pointed at
 * the benchmark's private cgroup subtree, its web server on a loopback
 * port, and its configuration, cache, lib, lock and log directories in the
 * run's own directory.  Health checks are off (they would evaluate alarms
 * on the charts: more work for netdata than collecting them).
 *
 * On a unified (cgroup v2) host one instance reads memory and pressure.
 * On a hybrid host netdata reads either the v1 hierarchies (memory, and no
 * pressure: it turns pressure off in v1 mode) or the unified one (pressure,
 * where there is no memory controller), so two instances run side by side,
 * one of each.
 */
#ifndef PVECG_BENCH_NETDATA_CONF_H
#define PVECG_BENCH_NETDATA_CONF_H

#include <stddef.h>
#include <stdint.h>

struct netdata_conf {
  const char *dir;   /* the instance's directory (made by the caller) */
  uint16_t port;     /* its web server on 127.0.0.1 */
  int cgroup_v1;     /* 1: v1 mode, memory below root; 0: unified */
  const char *root;  /* holds qemu.slice/<vmid>.scope, or is empty */
  const char *empty; /* an empty directory for the v1 paths not read */
  size_t max_cgroups;
};

/* Writes <dir>/netdata.conf (and the opt-out file, so no statistics script
 * runs) into path (PATH_MAX).  Returns 0 or a negative errno. */
int netdata_conf_write(const struct netdata_conf *conf, char *path);

#endif

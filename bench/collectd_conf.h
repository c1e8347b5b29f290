/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collectd.conf for the collectd mode.  Every run loads the same plugins
 * (logfile, pve_cgroup, bench_dispatch, and pve_rrd when that is the
 * writer) with the same TypesDB; only what they see differs: pve_cgroup's
 * CgroupRoot holds the N guests or nothing, bench_dispatch dispatches N
 * rows or none.
 */
#ifndef PVECG_BENCH_COLLECTD_CONF_H
#define PVECG_BENCH_COLLECTD_CONF_H

#include "options.h"

#include <stddef.h>

struct collectd_conf {
  const char *dir;         /* the run's temp dir: base dir, logs, RRD files */
  const char *name;        /* "baseline", "calibration", "pve_cgroup" */
  const char *cgroup_root; /* pve_cgroup CgroupRoot */
  const char *memory_root; /* pve_cgroup MemoryCgroupRoot ("" for none) */
  size_t dispatch_rows;    /* bench_dispatch Rows */
  unsigned spacing_us;     /* bench_dispatch SpacingUs */
  const char *floor_files; /* bench_dispatch FloorFiles, or NULL */
  const struct bench_options *options; /* writer and where things are */
  const char *data_dir;                /* pve_rrd DataDir (with a writer) */
  const char *daemon_address;          /* pve_rrd DaemonAddress, or NULL */
};

/* Writes <dir>/<name>.conf into path (PATH_MAX).  Returns 0 or -errno. */
int collectd_conf_write(const struct collectd_conf *conf, char *path);

#endif

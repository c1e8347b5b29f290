/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node sampler: what pvestatd reports about the host itself (the
 * pve-node-9.0 row), read from /proc, /sys and statvfs.
 *
 * The proc files are opened once and re-read with pread() at offset 0 (see
 * kept_file.h); cpu and iowait are fractions of the CPU time that passed
 * between two runs, so they are unknown on the first run.  Each value has
 * its own validity bit: one unreadable source leaves the rest of the
 * sample intact.  docs/node-values.md says where every value comes from and
 * where it differs from PVE.
 *
 * Mapping the sample onto RRD columns is row/node_row.c's business.
 * Not thread-safe: one sampler belongs to one read callback.
 */
#ifndef PVECG_NODE_SAMPLE_H
#define PVECG_NODE_SAMPLE_H

#include "pvecg/guest.h"
#include "pvecg/psi.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The values of a node sample (the pve-node-9.0 columns, in their order). */
enum node_value {
  NODE_LOADAVG,           /* 1-minute load average */
  NODE_MAXCPU,            /* online CPUs */
  NODE_CPU,               /* busy fraction of all CPUs, 0..1 */
  NODE_IOWAIT,            /* iowait fraction, 0..1 */
  NODE_MEMTOTAL,          /* bytes */
  NODE_MEMUSED,           /* MemTotal - MemAvailable */
  NODE_SWAPTOTAL,         /* bytes */
  NODE_SWAPUSED,          /* SwapTotal - SwapFree */
  NODE_ROOTTOTAL,         /* bytes of the root path's file system */
  NODE_ROOTUSED,          /* (f_blocks - f_bfree) * f_frsize, as df */
  NODE_NETIN,             /* bytes received by physical NICs, cumulative */
  NODE_NETOUT,            /* bytes transmitted by physical NICs, cumulative */
  NODE_MEMAVAILABLE,      /* bytes */
  NODE_ARCSIZE,           /* ZFS ARC bytes; 0 without ZFS */
  NODE_PRESSURE_CPU_SOME, /* avg10, percent */
  NODE_PRESSURE_IO_SOME,
  NODE_PRESSURE_IO_FULL,
  NODE_PRESSURE_MEMORY_SOME,
  NODE_PRESSURE_MEMORY_FULL,
  NODE_VALUE_COUNT,
};

/* What a node sample is read from; also bit positions in failure masks. */
enum node_source {
  NODE_SOURCE_STAT,            /* <proc>/stat */
  NODE_SOURCE_MEMINFO,         /* <proc>/meminfo */
  NODE_SOURCE_LOADAVG,         /* <proc>/loadavg */
  NODE_SOURCE_ARCSTATS,        /* <proc>/spl/kstat/zfs/arcstats */
  NODE_SOURCE_CPU_PRESSURE,    /* <proc>/pressure/cpu */
  NODE_SOURCE_IO_PRESSURE,     /* <proc>/pressure/io */
  NODE_SOURCE_MEMORY_PRESSURE, /* <proc>/pressure/memory */
  NODE_SOURCE_ROOT,            /* statvfs(root_path) */
  NODE_SOURCE_NET,             /* <sys>/class/net */
  NODE_SOURCE_COUNT,
};

struct node_sample {
  double value[NODE_VALUE_COUNT];
  uint32_t valid; /* bit per node_value; an invalid value reads 0 */
  /* Per source: 0, or the negative errno that made it give nothing.  A
   * missing arcstats is not an error (no ZFS: arcsize 0), nor are values
   * left unknown by a counter that went backwards. */
  int error[NODE_SOURCE_COUNT];
  /* Bit per node_source that failed in this sample and in the one before;
   * callers log on changes instead of on every interval. */
  unsigned failed;
  unsigned failed_before;
  size_t nics; /* physical NICs summed into netin/netout */
  /* The pressure files as read (their totals are the node's stall time,
   * stall_counter.h); psi_read per enum psi_resource. */
  struct psi_stats psi[PSI_RESOURCE_COUNT];
  bool psi_read[PSI_RESOURCE_COUNT];
};

static inline bool node_sample_has(const struct node_sample *s,
                                   enum node_value v) {
  return (s->valid >> v) & 1u;
}

struct node_sampler_config {
  char proc_root[PATH_MAX]; /* procfs mount point, "/proc" */
  char sys_root[PATH_MAX];  /* sysfs mount point, "/sys" */
  char root_path[PATH_MAX]; /* file system of roottotal/rootused, "/" */
  /* <sys>/class/net is listed every this many runs (and at once when a
   * NIC's counter cannot be read); 0 lists it on every run. */
  unsigned nic_rescan_runs;
};

/* At collectd's default 10 s interval: every 5 minutes (pvestatd 9 looks
 * at the interfaces every 15). */
#define NODE_NIC_RESCAN_RUNS_DEFAULT 30

/* Fills in the defaults above. */
void node_sampler_config_init(struct node_sampler_config *config);

struct node_sampler;

/* Returns 0, -EINVAL (a relative or too long path) or -ENOMEM. */
int node_sampler_new(const struct node_sampler_config *config,
                     struct node_sampler **ret);
void node_sampler_free(struct node_sampler *sampler);

/*
 * Samples the node into *ret (always written).  Returns 0, or -ENODATA when
 * every source failed (the roots are probably wrong; a missing arcstats
 * alone, which gives arcsize 0, does not count as data).
 */
int node_sampler_run(struct node_sampler *sampler, struct node_sample *ret);

/* The file or path a source is read from, e.g. "/proc/pressure/io", for
 * log lines. */
const char *node_sampler_source_path(const struct node_sampler *sampler,
                                     enum node_source source);

/* Open file descriptors the sampler holds (tests, benchmarks). */
size_t node_sampler_fd_count(const struct node_sampler *sampler);

#endif

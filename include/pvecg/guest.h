/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the sampler knows about one guest at one moment.
 *
 * A guest is a QEMU VM (qemu.slice/<vmid>.scope) or an LXC container
 * (lxc/<vmid>) with its own cgroup.  The sample holds the raw figures read
 * from the guest's cgroup files; mapping them onto RRD columns or collectd
 * values is the plugins' business.
 */
#ifndef PVECG_GUEST_H
#define PVECG_GUEST_H

#include "pvecg/cgroup_memory.h"
#include "pvecg/cgroup_stats.h"
#include "pvecg/ksm_stat.h"
#include "pvecg/memory_detail.h"
#include "pvecg/psi.h"

#include <stdbool.h>
#include <stdint.h>

enum guest_type {
  GUEST_QEMU,
  GUEST_LXC,
  GUEST_TYPE_COUNT,
};

enum psi_resource {
  PSI_CPU,
  PSI_IO,
  PSI_MEMORY,
  PSI_RESOURCE_COUNT,
};

/* Stall-time columns: some and full of each resource. */
#define GUEST_STALL_COLUMNS (2 * PSI_RESOURCE_COUNT)

/* The cgroup files read for a guest; also bit positions in failure masks. */
enum guest_file {
  GUEST_FILE_MEMORY_USAGE, /* memory.current, v1 memory.usage_in_bytes */
  GUEST_FILE_MEMORY_STAT,
  GUEST_FILE_CPU_PRESSURE,
  GUEST_FILE_IO_PRESSURE,
  GUEST_FILE_MEMORY_PRESSURE,
  GUEST_FILE_CPU_STAT,
  GUEST_FILE_IO_STAT, /* optional: hybrid hosts have no io controller in v2 */
  /* Read only with ExtraStats: */
  GUEST_FILE_MEMORY_EVENTS, /* memory.events (v2) or memory.oom_control (v1) */
  GUEST_FILE_MEMORY_SWAP,   /* memory.swap.current (v2 only) */
  GUEST_FILE_COUNT,
};

/* Files whose absence is normal on some hosts: not counted as failures. */
#define GUEST_FILES_OPTIONAL                                                   \
  (1u << GUEST_FILE_IO_STAT | 1u << GUEST_FILE_MEMORY_EVENTS |                 \
   1u << GUEST_FILE_MEMORY_SWAP)
/* Files read only for the extra statistics. */
#define GUEST_FILES_EXTRA                                                      \
  (1u << GUEST_FILE_MEMORY_EVENTS | 1u << GUEST_FILE_MEMORY_SWAP)

struct guest_sample {
  uint32_t vmid;
  enum guest_type type;
  enum cgroup_memory_version memory_version;

  bool memory_valid;
  uint64_t memory_used; /* bytes: usage minus page cache, see cgroup_memory.h */

  bool psi_valid[PSI_RESOURCE_COUNT];
  struct psi_stats psi[PSI_RESOURCE_COUNT];
  /* The stall counters to record (stall_counter.h: cpu, io, memory, each
   * some and full, microseconds), in runs that the sampler's plan says
   * are due (once per RRD step); else stall_valid is 0.  Bits per column:
   * known, and restarted (went back or jumped ahead) this time. */
  uint64_t stall[GUEST_STALL_COLUMNS];
  unsigned stall_valid;
  unsigned stall_restarted;

  /* CPUs busy on average since the previous sample (cpu.stat usage_usec
   * delta over wall time); unknown on a guest's first sample and when the
   * counter went backwards. */
  bool cpu_valid;
  double cpu_busy;

  bool io_valid;
  struct io_totals io; /* cumulative bytes, io.stat */

  /* ExtraStats only.  memory_detail.valid says which fields are known;
   * memory_with_shmem = usage - (file - shmem), a figure that does not
   * collapse for VMs whose RAM is shared memory (memfd, virtiofs). */
  struct memory_detail memory_detail;
  bool memory_with_shmem_valid;
  uint64_t memory_with_shmem;
  bool oom_valid, oom_kill_valid; /* memory.events counters */
  uint64_t oom, oom_kill;

  bool ksm_valid; /* KSM statistics only, QEMU only */
  struct ksm_stat ksm;
  /* Why not ksm_valid (KSM statistics on, a VM): 0 (no QEMU process found
   * yet), -ESRCH (the process went away or its pid is another's now),
   * -ENOENT (the kernel has no /proc/<pid>/ksm_stat), -EBADMSG (it cannot
   * be parsed), or another read error. */
  int ksm_error;

  bool net_valid;
  uint64_t netin, netout; /* cumulative bytes, guest's view (guest_net.h) */

  /* From the PVE config, else cpu.max / memory.max, else (CPUs) the host. */
  bool maxcpu_valid;
  unsigned maxcpu;
  bool maxmem_valid;
  uint64_t maxmem;  /* bytes */
  const char *name; /* from the config; "" when unknown */
  /* 0, or why the guest's config file could not be used (-ENOENT: none),
   * now and at the previous look (callers log changes). */
  int config_error;
  int config_error_before;

  /* Per file: 0, or the negative errno that made it give nothing. */
  int error[GUEST_FILE_COUNT];
  /* Bit per guest_file that failed in this sample and in the one before;
   * callers log on changes instead of on every interval. */
  unsigned failed;
  unsigned failed_before;
};

/* A guest's identity as one sortable number: type, then VMID. */
static inline uint64_t guest_key(enum guest_type type, uint32_t vmid) {
  return (uint64_t)type << 32 | vmid;
}

/* "qemu" or "lxc". */
const char *guest_type_name(enum guest_type type);

/* Parses "qemu" or "lxc".  Returns 0 or -EINVAL. */
int guest_type_parse(const char *name, enum guest_type *ret);

/* The file's name in the guest's cgroup directory, e.g. "memory.current". */
const char *guest_file_name(enum guest_file file,
                            enum cgroup_memory_version version);

/* "cpu", "io" or "memory". */
const char *psi_resource_name(enum psi_resource resource);

#endif

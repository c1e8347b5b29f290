/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Byte counters of the host's physical network interfaces, summed: the
 * node's netin (received) and netout (transmitted) columns.
 *
 * Which interfaces count: those in <sys>/class/net whose `type` is 1
 * (ARPHRD_ETHER) and that have a `device` link, i.e. are backed by a bus
 * device (PCI, USB, virtio, ...).  This is sysfs's view of what
 * pvestatd 9 counts (`ip -details link` entries with link_type "ether" and
 * no linkinfo kind): bridges, bonds, VLANs, veth, tap, macvlan, vxlan, ifb
 * and other software devices have no `device` link, so traffic that passes
 * a NIC and then a bridge or bond above it is counted once, at the NIC.
 * docs/node-values.md lists where this differs from PVE.
 *
 * Discovery lists <sys>/class/net only when needed: at the first sample,
 * every `rescan_runs` samples (a hot-plugged NIC appears then), and at once
 * when reading a counter fails (a NIC that went away).  A NIC is known by
 * name and by the inode of its sysfs directory, so one re-created under the
 * same name is a new NIC.  Counters are two kept-open files per NIC.
 *
 * Not thread-safe: one instance belongs to one sampler.
 */
#ifndef PVECG_NIC_COUNTERS_H
#define PVECG_NIC_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nic_totals {
  uint64_t rx_bytes; /* summed statistics/rx_bytes */
  uint64_t tx_bytes; /* summed statistics/tx_bytes */
  size_t nics;       /* physical NICs summed */
  /*
   * False when the sums cannot be compared with the previous sample's: the
   * set of NICs changed (one appeared, went away or was re-created) or a
   * NIC's counter went backwards.  A rate computed across such a step would
   * be a spike (a NIC's whole history) or negative, so callers report the
   * totals as unknown for this one sample.  True on the first sample.
   */
  bool continuous;
};

struct nic_counters;

/*
 * sys_root is the sysfs mount point ("/sys"); rescan_runs 0 lists the
 * interfaces on every sample.  Returns 0, -EINVAL (relative or too long
 * root) or -ENOMEM.
 */
int nic_counters_new(const char *sys_root, unsigned rescan_runs,
                     struct nic_counters **ret);
void nic_counters_free(struct nic_counters *n);

/*
 * Reads every physical NIC's counters.  Returns 0, or a negative errno when
 * <sys>/class/net cannot be listed or a counter cannot be read or parsed
 * even after listing the interfaces again; *ret is written only on
 * success.  No physical NIC at all is a success with zero totals, as in
 * PVE.
 */
int nic_counters_sample(struct nic_counters *n, struct nic_totals *ret);

/* Descriptors held (two per NIC). */
size_t nic_counters_fd_count(const struct nic_counters *n);

/* Listings of <sys>/class/net so far (for tests and benchmarks). */
unsigned long nic_counters_listings(const struct nic_counters *n);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/stat: the host's CPU time counters, the source of the node's cpu,
 * iowait and maxcpu columns.
 *
 *   cpu  114004 0 11937 369217 807 0 137 61 0 0
 *   cpu0 52311 0 5120 190486 77 0 33 26 0 0
 *   cpu1 61693 0 6817 178730 730 0 103 34 0 0
 *   intr 775133 0 0 0 ...
 *
 * The first line sums all CPUs: user nice system idle iowait irq softirq
 * steal guest guest_nice, in USER_HZ ticks (guest time is also counted in
 * user, guest_nice in nice).  One cpuN line per online CPU follows.
 */
#ifndef PVECG_PROC_STAT_H
#define PVECG_PROC_STAT_H

#include <stddef.h>
#include <stdint.h>

struct proc_stat_cpu {
  uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
  uint64_t guest, guest_nice; /* 0 from kernels that do not print them */
};

struct proc_stat {
  struct proc_stat_cpu total; /* the aggregate "cpu" line */
  uint32_t cpus;              /* cpuN lines: the online CPUs */
};

/*
 * Parses the head of /proc/stat.  The file must start with the aggregate
 * "cpu" line (the label, one or more spaces, then at least the 8 fields up
 * to steal separated by single spaces; fields after guest_nice, from a
 * future kernel, must be decimals and are ignored), followed by one or more
 * cpuN lines, followed by a complete ('\n'-terminated) line of another kind.
 * The per-CPU lines are counted, not parsed; nothing after the first
 * non-CPU line is looked at, so the long "intr" line costs nothing.
 * Requiring that terminating line means a buffer cut short anywhere in the
 * CPU lines is refused instead of giving a wrong CPU count.
 *
 * Returns 0, -EBADMSG for malformed input, -ERANGE when a field of the
 * aggregate line overflows 64 bits; *ret is written only on success.
 */
int proc_stat_parse(const char *buf, size_t len, struct proc_stat *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The other cgroup v2 files the guest row needs: io.stat (bytes read and
 * written), cpu.max (a CPU quota) and memory.max (a memory limit).
 * cpu.stat's usage_usec is read with flat_keyed.h.
 */
#ifndef PVECG_CGROUP_STATS_H
#define PVECG_CGROUP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct io_totals {
  uint64_t rbytes; /* summed over devices */
  uint64_t wbytes;
};

/*
 * io.stat: one line per device, "MAJ:MIN rbytes=.. wbytes=.. rios=.. ...".
 * Every line needs rbytes and wbytes exactly once; other keys are ignored.
 * An empty file (no I/O yet) is zero.  Returns 0, -EBADMSG or -ERANGE (a
 * value or the sum overflows).
 */
int io_stat_parse(const char *buf, size_t len, struct io_totals *ret);

/*
 * cpu.max: "<quota> <period>" or "max <period>".  On success *cpus is the
 * number of whole CPUs the quota allows (rounded up), or 0 for "max".
 * Returns 0 or -EBADMSG.
 */
int cpu_max_parse(const char *buf, size_t len, unsigned *cpus);

/*
 * memory.max: "<bytes>" or "max".  *bytes is 0 for "max".  Returns 0 or
 * -EBADMSG.
 */
int memory_max_parse(const char *buf, size_t len, uint64_t *bytes);

#endif

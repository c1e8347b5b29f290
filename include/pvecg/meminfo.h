/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/meminfo: the host's memory and swap figures, the source of the
 * node's memtotal, memused, memavailable, swaptotal and swapused columns.
 *
 *   MemTotal:       24683584 kB
 *   MemFree:        23831972 kB
 *   MemAvailable:   24026352 kB
 *   ...
 *   HugePages_Total:       0
 */
#ifndef PVECG_MEMINFO_H
#define PVECG_MEMINFO_H

#include <stddef.h>
#include <stdint.h>

struct meminfo {
  uint64_t mem_total;     /* bytes */
  uint64_t mem_available; /* the kernel's estimate, Linux 3.14+ */
  uint64_t swap_total;
  uint64_t swap_free;
};

/*
 * Looks up MemTotal, MemAvailable, SwapTotal and SwapFree.  Each must appear
 * exactly once as "Key:", one or more spaces, an unsigned decimal, " kB" and
 * the end of the line ('\n' or the end of buf); values are returned in
 * bytes.  Lines with other keys are skipped without looking at their values,
 * so new keys (and lines without a unit) do not matter.
 *
 * Returns 0, -EBADMSG for a missing, repeated or malformed key, -ERANGE for
 * a value that does not fit 64 bits in bytes; *ret is written only on
 * success.
 */
int meminfo_parse(const char *buf, size_t len, struct meminfo *ret);

#endif

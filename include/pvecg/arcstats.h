/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ZFS's /proc/spl/kstat/zfs/arcstats, the source of the node's arcsize
 * column.  It is an SPL "named" kstat: a header line, a column header, then
 * one "name type data" line per statistic, padded with spaces:
 *
 *   13 1 0x01 147 39984 4190427389 1282263476577412
 *   name                            type data
 *   hits                            4    2117543
 *   ...
 *   size                            4    4208166912
 *
 * Type 4 is KSTAT_DATA_UINT64.  The file exists only while the zfs module
 * is loaded.
 */
#ifndef PVECG_ARCSTATS_H
#define PVECG_ARCSTATS_H

#include <stddef.h>
#include <stdint.h>

struct arcstats {
  uint64_t size; /* bytes the ARC holds now */
};

/*
 * Parses the file.  The first line (the kstat header) must be non-empty,
 * the second must be the column header "name type data" (words separated by
 * one or more spaces); "size" must then appear exactly once, with type 4 and
 * an unsigned decimal followed by the end of the line ('\n' or the end of
 * buf).  Other statistics are skipped without looking at their values.
 *
 * Returns 0, -EBADMSG for malformed input (also a missing or repeated
 * size), -ERANGE when the size does not fit 64 bits; *ret is written only on
 * success.
 */
int arcstats_parse(const char *buf, size_t len, struct arcstats *ret);

#endif

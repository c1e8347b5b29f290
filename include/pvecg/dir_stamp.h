/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a stat says of a directory that tells whether an entry was added,
 * removed or renamed over since: its identity, mtime and ctime (rows
 * written into its files change none of them).  The kernel stamps them
 * from its coarse clock, so a change in the same tick as a look can leave
 * them equal: a stamp less than a second before the look (or after it, a
 * clock step) is recent, and a look that sees one cannot be trusted.
 * The shipper's scans (export_dirs.c) and pve_rrd's store
 * (rrd_store_dirs.c) both decide by it.
 */
#ifndef PVECG_DIR_STAMP_H
#define PVECG_DIR_STAMP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct dir_stamp {
  bool present; /* false: it could not be stat'ed */
  uint64_t dev, ino;
  struct timespec mtime, ctime;
};

/* fstat of fd (>= 0), or stat of path. */
void dir_stamp_take(struct dir_stamp *s, const char *path, int fd);

/* Both there, the same directory, neither stamp moved. */
bool dir_stamp_same(const struct dir_stamp *a, const struct dir_stamp *b);

/* mtime or ctime within a second before the wall clock at, or after it. */
bool dir_stamp_recent(const struct dir_stamp *s, const struct timespec *at);

#endif

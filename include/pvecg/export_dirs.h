/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a scan of the data directory would find what the last one
 * found, for the price of a stat per directory instead of a listing and a
 * stat per file: the shipper scans every pass, and rows written into the
 * files change none of their directories.
 *
 * A scan notes each directory it reads (the data directory, a named
 * cluster's, each layout's) before reading it: its identity, mtime and
 * ctime, or that it is not there.  Adding, removing or renaming an entry
 * changes its directory's mtime and ctime; a change that comes after the
 * noting, even during the scan, therefore shows at the next look.  The
 * kernel stamps them from its coarse clock, so a change in the same tick
 * as the noting could leave them equal: a directory changed less than a
 * second before the scan began (or stamped in the future, after a clock
 * step) is not trusted, and the next pass scans again.
 */
#ifndef PVECG_EXPORT_DIRS_H
#define PVECG_EXPORT_DIRS_H

#include "pvecg/dir_stamp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct export_dir_mark {
  char *path;
  struct dir_stamp stamp;
};

struct export_dirs {
  struct export_dir_mark *mark;
  size_t count, capacity;
  struct timespec began; /* the clock when the scan began */
  bool settled;          /* no directory changed within a second of it */
  bool complete;         /* every note was taken (none ran out of memory) */
};

/* Forgets the marks of the last scan: a new one begins now. */
void export_dirs_begin(struct export_dirs *dirs);

/* Notes the directory at path (fd: the directory opened, or -1 for a
 * stat of the path), before it is read.  One that cannot be stat'ed is
 * noted as not there. */
void export_dirs_note(struct export_dirs *dirs, const char *path, int fd);

/* Whether every directory noted is as it was, and the scan's marks can be
 * trusted: a stat of each. */
bool export_dirs_unchanged(const struct export_dirs *dirs);

void export_dirs_free(struct export_dirs *dirs);

#endif

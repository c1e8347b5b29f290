/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a store's file may have been replaced, for a stat of its
 * directory a second instead of a stat of the file for every row.
 *
 * Before each row the store made sure its file was still the one it
 * checked (a file deleted or put in its place must be examined again,
 * never written into): a stat of the file's path, a path lookup per row
 * and 15 % of collectd's CPU for a row written through rrdcached.  But a
 * file deleted, renamed over or made anew changes its directory's mtime
 * and ctime, and rows written into the files change neither.  So each
 * directory is looked at (a stat) at most once per second of the rows'
 * wall clock, and given an epoch that moves whenever it may have changed;
 * a file is stat'ed again only when its directory's epoch moved since.
 *
 * The kernel stamps directories from its coarse clock: a change in the
 * same tick as the look could leave them equal.  A directory changed
 * less than a second before the look (or stamped after it, a clock step)
 * is not settled: its epoch moves at every look, and its files are
 * stat'ed once a second, as before for every row.  A file replaced less
 * than a second after a look is noticed at the next second's look.
 */
#ifndef PVECG_RRD_STORE_DIRS_H
#define PVECG_RRD_STORE_DIRS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct store_dir; /* one directory, never moved once made */

struct store_dirs {
  pthread_mutex_t lock;
  struct store_dir *first;
};

void store_dirs_init(struct store_dirs *dirs);
void store_dirs_destroy(struct store_dirs *dirs);

/* The directory of the file at path (up to its last '/'), made on first
 * use; NULL without memory (the caller then stats the file). */
struct store_dir *store_dirs_of(struct store_dirs *dirs, const char *path);

/* The directory's epoch as of the second now: looked at again when now
 * differs from the last look's.  0 when it cannot be trusted at all (it
 * is not there): the caller stats the file. */
uint64_t store_dirs_epoch(struct store_dirs *dirs, struct store_dir *dir,
                          time_t now);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private temporary directories of the benchmark (fixture trees, collectd's
 * configuration, logs and RRD files), removed with everything in them.
 */
#ifndef PVECG_BENCH_TEMP_DIR_H
#define PVECG_BENCH_TEMP_DIR_H

#include <stddef.h>

/* Makes /tmp/<prefix>.XXXXXX into buf.  Returns 0 or a negative errno. */
int temp_dir_create(const char *prefix, char *buf, size_t size);

/* The entries of directory path not beginning with '.'; 0 when it cannot
 * be listed. */
size_t temp_dir_entries(const char *path);

/* rm -rf path (never following symlinks).  Returns 0 or a negative errno. */
int temp_dir_remove(const char *path);

#endif

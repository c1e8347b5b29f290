/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The four ways of reading a guest that the benchmark compares, over
 * exactly the same files of the same guests:
 *
 *   sampler  our sampler (sampler_run with a visitor that only counts),
 *            configured as pve_cgroup configures it (sampler_setup.h);
 *   floor    the kernel floor: one pread() per file on descriptors kept
 *            open, nothing else (no parsing, no discovery), of the very
 *            files the sampler keeps open: their names are learnt from the
 *            sampler's own descriptors (/proc/self/fd) after its first run,
 *            so the floor follows whatever the sampler reads by default;
 *   naive    open/read/close of the same files by path each time, without
 *            parsing (what Netdata and PVE's Perl do, minus their parsing);
 *   pss      the PSS path of PVE 9.0.11-9.1.3 (pss_path.h), which reads
 *            cgroup.procs and smaps_rollup instead of the cgroup files.
 *
 * When RLIMIT_NOFILE cannot hold the files of every guest twice (sampler
 * and floor), the two are never open at the same time: the sampler is set
 * up for each measurement, with pve_cgroup's descriptor budget (guests
 * beyond it are read by open/read/close, as pve_cgroup does), and the floor
 * measures its kept descriptors in chunks that fit, summing the chunks.
 */
#ifndef PVECG_BENCH_READERS_H
#define PVECG_BENCH_READERS_H

#include "guest_tree.h"

#include <stdbool.h>
#include <stddef.h>

enum method {
  METHOD_SAMPLER,
  METHOD_FLOOR,
  METHOD_NAIVE,
  METHOD_PSS,
  METHOD_COUNT,
};

/* "sampler", "floor", "naive", "pss": the CSV's method column. */
const char *method_name(enum method method);

struct readers;

#define READERS_MAX_FILES 16

struct readers_info {
  size_t files_per_guest; /* the sampler's kept files per guest */
  const char *file_names[READERS_MAX_FILES];
  size_t floor_fds;   /* the floor's kept descriptors in all */
  size_t floor_chunk; /* guests per floor chunk (N when not chunked) */
  size_t sampler_fds; /* held by the sampler (its own count) */
  size_t sampler_guests, sampler_unkept; /* of those, open/read/close */
  unsigned long fd_limit;                /* soft RLIMIT_NOFILE */
};

/* Sets every method up for the guests of tree.  Returns 0 or a negative
 * errno. */
int readers_new(const struct guest_tree *tree, struct readers **ret);
void readers_free(struct readers *readers);

/*
 * Measures method: one untimed interval, then intervals timed intervals,
 * back to back (gap_ms 0: caches stay warm, the best case) or each after
 * an untimed sleep of gap_ms (as collectd's Interval leaves the caches to
 * other work).  Returns the time per guest and interval in µs (*err: 0, or
 * the negative errno of a failed read).
 */
double readers_time(struct readers *readers, enum method method,
                    unsigned intervals, unsigned gap_ms, int *err);

/* The floor of file number file (of info.file_names) alone, µs per guest
 * and interval, to show where a guest's cost goes. */
double readers_time_floor_file(struct readers *readers, size_t file,
                               unsigned intervals, int *err);

/* Writes the floor's files, one path a line, to path: for a reader of the
 * same files inside collectd (bench_dispatch's FloorFiles).  Returns 0 or
 * a negative errno. */
int readers_write_floor_paths(const struct readers *readers, const char *path);

/* Enough intervals for N guests that a measurement of the cheapest method
 * lasts milliseconds, not microseconds. */
unsigned readers_default_intervals(size_t guests);

/* Descriptor figures, as of the last sampler measurement. */
void readers_get_info(const struct readers *readers, struct readers_info *ret);

#endif

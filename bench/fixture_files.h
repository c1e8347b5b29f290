/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contents of a fixture guest: the cgroup2 files of one QEMU guest as a
 * Linux 6.x kernel prints them (a full-length memory.stat, PSI files with
 * both lines), so that fixture runs parse what real ones do.
 */
#ifndef PVECG_BENCH_FIXTURE_FILES_H
#define PVECG_BENCH_FIXTURE_FILES_H

/* Writes every guest file (cgroup2 names) and an empty cgroup.procs into
 * the existing directory dir.  Returns 0 or a negative errno. */
int fixture_files_write(const char *dir);

#endif

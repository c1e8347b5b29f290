/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixture cgroup trees for C tests: directories and files laid out like
 * cgroupfs, with contents in the kernel's formats.  Every helper aborts the
 * test on a file-system error (a fixture that cannot be built is a broken
 * test, not a result).
 */
#ifndef PVECG_FIXTURE_TREE_H
#define PVECG_FIXTURE_TREE_H

#include <stddef.h>

/* Makes a fresh directory /tmp/<prefix>.XXXXXX into root. */
void fixture_create(char *root, size_t size, const char *prefix);
/* rm -rf root. */
void fixture_remove(const char *root);

/* mkdir -p root/rel */
void fixture_mkdir(const char *root, const char *rel);
/* Writes text to root/rel, truncating an existing file in place. */
void fixture_write(const char *root, const char *rel, const char *text);

/* root/rel/name: "some avg10=<some_avg10> avg60=0.50 avg300=0.05
 * total=1000" and "full avg10=0.25 avg60=0.10 avg300=0.01 total=500". */
void fixture_psi(const char *root, const char *rel, const char *name,
                 const char *some_avg10);

/* A guest directory root/rel with memory.current = current, memory.stat
 * with file = file (and file_mapped 77 around it), cpu/io/memory.pressure
 * with some avg10 1.50 / 2.25 / 3.00, cpu.stat with usage_usec 5000000 and
 * io.stat with two devices: rbytes 4096 + 1000, wbytes 8192 + 0. */
void fixture_guest(const char *root, const char *rel, const char *current,
                   const char *file);

#endif

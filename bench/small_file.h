/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading and writing the small text files of /proc, sysfs and cgroupfs
 * that the benchmark itself uses (its own bookkeeping, not what it
 * measures: the measured readers do their own I/O in readers.c).
 */
#ifndef PVECG_BENCH_SMALL_FILE_H
#define PVECG_BENCH_SMALL_FILE_H

#include <stddef.h>

/* Reads path whole into buf (NUL-terminated).  Returns the length, or a
 * negative errno; -EFBIG when it does not fit. */
long small_file_read(const char *path, char *buf, size_t size);

/* Reads a file holding one unsigned decimal number (sysfs style). */
int small_file_read_ulong(const char *path, unsigned long *ret);

/* Writes text to an existing file in one write().  Returns 0 or -errno. */
int small_file_write(const char *path, const char *text);

/* Creates or truncates path with text (for fixture trees). */
int small_file_create(const char *path, const char *text);

#endif

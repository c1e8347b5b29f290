/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Temporary directories and whole-file reads for the tests of rrd/: every
 * test works in its own mkdtemp directory, removed afterwards, and compares
 * files byte for byte where the store promises to leave them untouched.
 */
#ifndef PVECG_TEST_RRD_FIXTURE_H
#define PVECG_TEST_RRD_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

/* A new empty directory under $TMPDIR (or /tmp); aborts the test on error.
 * The caller frees the string after fixture_remove(). */
char *fixture_tmpdir(const char *tag);

/* rm -rf path. */
void fixture_remove(const char *path);

/* The whole file, NUL-terminated; *len without the NUL.  NULL when it
 * cannot be read. */
char *fixture_read(const char *path, size_t *len);

/* Writes len bytes of data to path, replacing it. */
void fixture_write(const char *path, const void *data, size_t len);

/* Whether path holds exactly data[0..len). */
bool fixture_same(const char *path, const char *data, size_t len);

/* snprintf into a static-size buffer owned by the caller, asserting that
 * nothing was cut off. */
#define fixture_path(buf, ...)                                                 \
  assert_true((size_t)snprintf((buf), sizeof(buf), __VA_ARGS__) < sizeof(buf))

#endif

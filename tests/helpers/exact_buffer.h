/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the parser tests.  The parsers get buffers straight
 * from pread, without a terminating NUL, so the tests hand them heap copies
 * of exactly len bytes: AddressSanitizer and valgrind then report any read
 * past the end that a string literal's NUL would have hidden.
 */
#ifndef PVECG_TEST_EXACT_BUFFER_H
#define PVECG_TEST_EXACT_BUFFER_H

#include <stdlib.h>
#include <string.h>

/* cmocka.h must be included before this header. */

static inline char *exact_copy(const char *s, size_t len) {
  /* malloc(0) may return NULL, so the empty buffer gets one byte: the only
   * case where a read past len would go unreported. */
  char *p = malloc(len ? len : 1);

  assert_non_null(p);
  memcpy(p, s, len);
  return p;
}

/* Doubles compared bit for bit: cmocka 1.1.5's assert_float_equal rounds
 * to float, and == would not tell -0.0 from 0.0. */
#define assert_double_identical(actual, expected)                              \
  do {                                                                         \
    double actual_ = (actual), expected_ = (expected);                         \
    assert_memory_equal(&actual_, &expected_, sizeof(double));                 \
  } while (0)

#endif

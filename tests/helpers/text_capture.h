/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capturing what a formatter writes to a stdio stream, for tests that
 * compare it with exact text (the export's formats).
 */
#ifndef PVECG_TEST_TEXT_CAPTURE_H
#define PVECG_TEST_TEXT_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>

/* cmocka.h must be included before this header. */

struct capture {
  char *text;
  size_t size;
  FILE *out; /* write here */
};

static inline void capture_open(struct capture *c) {
  *c = (struct capture){0};
  c->out = open_memstream(&c->text, &c->size);
  assert_non_null(c->out);
}

/* Closes the stream, compares and frees. */
static inline void capture_check(struct capture *c, const char *expected) {
  assert_int_equal(fclose(c->out), 0);
  assert_string_equal(c->text, expected);
  free(c->text);
}

#endif

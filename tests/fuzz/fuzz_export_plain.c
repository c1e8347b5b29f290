/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: export_plain_number, the plain decimals of Graphite
 * lines.  For any finite double (the input's first 8 bytes) the text must
 * read back as the same double, have the only form Graphite.pm sends
 * ([+-]?[0-9]*\.?[0-9]+, no exponent), and fit EXPORT_PLAIN_SIZE; a buffer
 * of the size the 9th byte gives either holds the same text or is
 * refused with -ERANGE, never overrun.
 */
#include "export_pve.h"
#include "fuzz_check.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_form(const char *s) {
  size_t i = s[0] == '-' ? 1 : 0, dots = 0, digits = 0;
  for (; s[i] != '\0'; i++) {
    if (s[i] == '.')
      dots++;
    else {
      FUZZ_CHECK(s[i] >= '0' && s[i] <= '9');
      digits++;
    }
  }
  size_t len = strlen(s);
  FUZZ_CHECK(dots <= 1 && digits > 0 && s[len - 1] != '.');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  double v;
  if (size < sizeof(v))
    return 0;
  memcpy(&v, data, sizeof(v));
  if (!isfinite(v))
    return 0;
  char text[EXPORT_PLAIN_SIZE];
  int n = export_plain_number(v, text, sizeof(text));
  FUZZ_CHECK(n > 0 && (size_t)n == strlen(text));
  check_form(text);
  FUZZ_CHECK(strtod(text, NULL) == v);
  size_t small = size > sizeof(v) ? data[sizeof(v)] % 64 : 1;
  char *buf = malloc(small ? small : 1);
  int m = export_plain_number(v, buf, small);
  FUZZ_CHECK(m >= 0 ? strcmp(buf, text) == 0
                    : m == -ERANGE && (size_t)n >= small);
  free(buf);
  return 0;
}

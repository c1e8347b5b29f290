/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text made in a buffer without printf (see text_copy.h).
 */
#include "pvecg/text_copy.h"

#include <string.h>

size_t text_copy(char *dst, size_t size, const char *src) {
  if (size == 0)
    return 0;
  size_t n = strnlen(src, size - 1);
  memcpy(dst, src, n);
  dst[n] = '\0';
  return n;
}

size_t text_append(char *dst, size_t size, size_t len, const char *src) {
  if (len >= size)
    return len;
  return len + text_copy(dst + len, size - len, src);
}

size_t text_u64(char *dst, uint64_t v) {
  char rev[TEXT_U64_DIGITS];
  size_t n = 0;
  do {
    rev[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v > 0);
  for (size_t i = 0; i < n; i++)
    dst[i] = rev[n - 1 - i];
  return n;
}

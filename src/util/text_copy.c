/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A string into a buffer of a given size (see text_copy.h).
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

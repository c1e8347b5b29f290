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

/* "00" to "99": a number's digits two at a time, half the divisions (a
 * line-protocol time has 19 digits, and every line has one). */
static const char pairs[] = "00010203040506070809"
                            "10111213141516171819"
                            "20212223242526272829"
                            "30313233343536373839"
                            "40414243444546474849"
                            "50515253545556575859"
                            "60616263646566676869"
                            "70717273747576777879"
                            "80818283848586878889"
                            "90919293949596979899";

size_t text_u64(char *dst, uint64_t v) {
  char buf[TEXT_U64_DIGITS];
  char *p = buf + sizeof(buf);
  while (v >= 100) {
    p -= 2;
    memcpy(p, pairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    p -= 2;
    memcpy(p, pairs + 2 * v, 2);
  } else {
    *--p = (char)('0' + v);
  }
  size_t n = (size_t)(buf + sizeof(buf) - p);
  memcpy(dst, p, n);
  return n;
}

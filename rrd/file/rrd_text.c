/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Message helpers of rrd/ (see rrd_text.h). */
#include "rrd_text.h"

#include <rrd.h>
#include <stdarg.h>
#include <stdio.h>

void rrd_text_set(char *buf, size_t size, const char *fmt, ...) {
  if (buf == NULL || size == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}

const char *rrd_text_librrd_error(const char *fallback) {
  const char *e = rrd_get_error();
  return e != NULL && *e != '\0' ? e : fallback;
}

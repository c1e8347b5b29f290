/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A log line formatted whole, then written once (see log_line.h). */
#include "pvecg/log_line.h"

#include <string.h>

#define CUT "...\n"

void log_vline(FILE *out, const char *prefix, const char *fmt, va_list ap) {
  char line[LOG_LINE_MAX];
  const size_t room = sizeof(line) - 1; /* the newline's byte kept */
  int p = snprintf(line, room + 1, "%s", prefix);
  size_t at = p < 0 ? 0 : (size_t)p < room ? (size_t)p : room;
  int m = vsnprintf(line + at, room + 1 - at, fmt, ap);
  size_t len = (p < 0 ? 0 : (size_t)p) + (m < 0 ? 0 : (size_t)m);
  if (len > room) { /* cut: the end says so */
    len = sizeof(line);
    memcpy(line + len - strlen(CUT), CUT, strlen(CUT));
  } else {
    line[len++] = '\n';
  }
  /* An unbuffered stream (stderr) hands a whole block to one write; a
   * buffered one holds it until the flush. */
  fwrite(line, 1, len, out);
  fflush(out);
}

void log_line(FILE *out, const char *prefix, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_vline(out, prefix, fmt, ap);
  va_end(ap);
}

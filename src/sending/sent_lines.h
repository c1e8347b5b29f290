/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lines a sender got taken: the '\n's of what went out.  Both senders
 * report their progress in lines, which is how a person counts the
 * export's output (`wc -l`).
 */
#ifndef PVECG_SENT_LINES_H
#define PVECG_SENT_LINES_H

#include <stddef.h>
#include <string.h>

static inline size_t sent_lines(const char *text, size_t len) {
  size_t n = 0;
  for (const char *p = text, *end = text + len;
       (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
    n++;
  return n;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Export text gathered a line at a time (see export_line.h).
 */
#include "export_line.h"

#include "pvecg/text_copy.h"

#include <string.h>

void export_line_flush(struct export_line *l) {
  if (l->len > 0)
    fwrite(l->buf, 1, l->len, l->out);
  l->len = 0;
}

void export_line_put(struct export_line *l, const char *s, size_t n) {
  if (l->len + n > sizeof(l->buf))
    export_line_flush(l);
  if (n > sizeof(l->buf)) {
    fwrite(s, 1, n, l->out); /* a tag longer than any line: as it is */
    return;
  }
  memcpy(l->buf + l->len, s, n);
  l->len += n;
}

void export_line_puts(struct export_line *l, const char *s) {
  export_line_put(l, s, strlen(s));
}

void export_line_putc(struct export_line *l, char c) {
  if (l->len == sizeof(l->buf))
    export_line_flush(l);
  l->buf[l->len++] = c;
}

void export_line_escaped(struct export_line *l, const char *s,
                         const char *specials) {
  for (; *s != '\0'; s++) {
    if (strchr(specials, *s) != NULL)
      export_line_putc(l, '\\');
    export_line_putc(l, *s);
  }
}

void export_line_int(struct export_line *l, int64_t v) {
  char text[1 + TEXT_U64_DIGITS];
  size_t n = 0;
  if (v < 0)
    text[n++] = '-';
  /* the magnitude as unsigned: INT64_MIN has no positive int64_t */
  n += text_u64(text + n, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
  export_line_put(l, text, n);
}

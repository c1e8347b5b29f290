/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Values, Graphite levels and line-protocol escaping (see export_text.h).
 */
#include "export_text.h"

#include "pvecg/export_source.h"

#include "pvecg/rrd_row.h"

#include <math.h>
#include <string.h>

#define PREFIX_MAX 64 /* bytes of a metric prefix */

void export_value_text(double value, char text[EXPORT_VALUE_SIZE]) {
  if (rrd_row_format_gauge(value, text, EXPORT_VALUE_SIZE) < 0)
    snprintf(text, EXPORT_VALUE_SIZE, "%.17g", value); /* cannot happen */
}

bool export_all_unknown(const double *values, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (isfinite(values[i]))
      return false;
  return true;
}

bool export_is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-';
}

void export_graphite_level(const char *s, FILE *out) {
  for (; *s != '\0'; s++)
    fputc(export_is_word_char(*s) ? *s : '_', out);
}

bool export_influx_can_write(const char *s) {
  size_t len = strlen(s);
  if (len == 0 || s[len - 1] == '\\')
    return false;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
      return false;
  return true;
}

void export_influx_escaped(const char *s, const char *specials, FILE *out) {
  for (; *s != '\0'; s++) {
    if (strchr(specials, *s) != NULL)
      fputc('\\', out);
    fputc(*s, out);
  }
}

const char *export_prefix_problem(const char *prefix) {
  size_t len = prefix ? strlen(prefix) : 0;
  if (len == 0)
    return "it is empty";
  if (len > PREFIX_MAX)
    return "it is longer than 64 bytes";
  for (size_t i = 0; i < len; i++) {
    if (prefix[i] == '.') {
      /* A dot separates path levels: none may be empty. */
      if (i == 0 || i == len - 1 || prefix[i + 1] == '.')
        return "it has an empty part between dots";
    } else if (!export_is_word_char(prefix[i])) {
      return "only letters, digits, '_', '-' and '.' may be used";
    }
  }
  return NULL;
}

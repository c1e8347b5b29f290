/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options' numbers (see cli_number.h). */
#include "cli_number.h"

#include "pvecg/decimal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cli_count(const char *text, uint64_t min, uint64_t max, uint64_t *ret) {
  const char *pos = text, *end = text + strlen(text);
  uint64_t v;
  if (decimal_parse_u64(&pos, end, &v) != 0 || pos != end || v < min || v > max)
    return -EINVAL;
  *ret = v;
  return 0;
}

int cli_seconds(const char *text, double min, double max, double *ret) {
  /* digits with at most one '.': no sign, exponent, "inf" or "nan" */
  size_t digits = strspn(text, "0123456789.");
  const char *dot = strchr(text, '.');
  if (text[0] == '\0' || text[digits] != '\0' ||
      (dot != NULL && strchr(dot + 1, '.') != NULL) || strcmp(text, ".") == 0)
    return -EINVAL;
  double v = strtod(text, NULL);
  if (!(v >= min && v <= max))
    return -EINVAL;
  *ret = v;
  return 0;
}

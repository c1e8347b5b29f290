/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for ZFS's arcstats kstat (see arcstats.h).
 *
 * SPL prints named kstats with "%-31s %-4d " and the value, so the columns
 * are separated by runs of spaces whose length depends on the name; the
 * parser accepts any run of one or more, and checks the column header so
 * that some other kstat (or a raw one) is not mistaken for arcstats.
 */
#include "pvecg/arcstats.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pvecg/decimal.h"

#define KSTAT_DATA_UINT64 4

/* Steps over one or more spaces; false when there is none at *p. */
static bool skip_spaces(const char **p, const char *eol) {
  const char *start = *p;

  while (*p < eol && **p == ' ')
    (*p)++;
  return *p != start;
}

/* The word at *p (up to a space or eol) is `word`; steps over it. */
static bool take_word(const char **p, const char *eol, const char *word) {
  size_t n = strlen(word);

  if ((size_t)(eol - *p) < n || memcmp(*p, word, n) != 0)
    return false;
  if (*p + n != eol && (*p)[n] != ' ')
    return false;
  *p += n;
  return true;
}

static bool is_column_header(const char *p, const char *eol) {
  return take_word(&p, eol, "name") && skip_spaces(&p, eol) &&
         take_word(&p, eol, "type") && skip_spaces(&p, eol) &&
         take_word(&p, eol, "data") && p == eol;
}

/* The rest of the "size" line: type 4 and the value. */
static int parse_size(const char *p, const char *eol, uint64_t *size) {
  uint64_t type;
  int r;

  if (!skip_spaces(&p, eol) || decimal_parse_u64(&p, eol, &type) < 0 ||
      type != KSTAT_DATA_UINT64 || !skip_spaces(&p, eol))
    return -EBADMSG;
  r = decimal_parse_u64(&p, eol, size);
  if (r < 0)
    return r == -ERANGE ? r : -EBADMSG;
  return p == eol ? 0 : -EBADMSG;
}

static int parse_stat_line(const char *p, const char *eol, uint64_t *size,
                           bool *seen) {
  int r;

  if (!take_word(&p, eol, "size"))
    return 0;
  if (*seen)
    return -EBADMSG;
  r = parse_size(p, eol, size);
  if (r == 0)
    *seen = true;
  return r;
}

/* The end of the line at p ('\n' or end); *next is set past it. */
static const char *line_end(const char *p, const char *end, const char **next) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));

  *next = nl ? nl + 1 : end;
  return nl ? nl : end;
}

int arcstats_parse(const char *buf, size_t len, struct arcstats *ret) {
  const char *p = buf, *end = buf + len, *next, *eol;
  uint64_t size = 0;
  bool seen = false;
  int r;

  if (len == 0 || (eol = line_end(p, end, &next)) == p || next == eol)
    return -EBADMSG; /* no kstat header line, or nothing after it */
  p = next;
  eol = line_end(p, end, &next);
  if (!is_column_header(p, eol))
    return -EBADMSG;
  for (p = next; p < end; p = next) {
    eol = line_end(p, end, &next);
    r = parse_stat_line(p, eol, &size, &seen);
    if (r < 0)
      return r;
  }
  if (!seen)
    return -EBADMSG;
  ret->size = size;
  return 0;
}

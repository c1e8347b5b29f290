/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest list's counter in pmxcfs' .version (see pmxcfs_version.h).
 */
#include "pvecg/pmxcfs_version.h"

#include "pvecg/decimal.h"

#include <errno.h>
#include <string.h>

#define KEY "\"vmlist\":"

/* The start of the line after p, or end. */
static const char *next_line(const char *p, const char *end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  return nl != NULL ? nl + 1 : end;
}

static int parse_value(const char *p, const char *end, uint64_t *ret) {
  while (p < end && *p == ' ')
    p++;
  if (p == end)
    return -ENOENT;
  uint64_t v;
  int r = decimal_parse_u64(&p, end, &v);
  if (r < 0)
    return r == -ERANGE ? r : -EBADMSG;
  if (p == end)
    return -ENOENT; /* cut where the read ended: the number may go on */
  if (*p != ',' && *p != '\n')
    return -EBADMSG;
  *ret = v;
  return 0;
}

int pmxcfs_version_vmlist(const char *buf, size_t len, uint64_t *ret) {
  const char *end = buf + len;
  for (const char *p = buf; p < end; p = next_line(p, end))
    if ((size_t)(end - p) >= strlen(KEY) && memcmp(p, KEY, strlen(KEY)) == 0)
      return parse_value(p + strlen(KEY), end, ret);
  return -ENOENT;
}

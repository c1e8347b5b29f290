/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gzip for answers (see serve_gzip.h), through zlib. */
#include "serve_gzip.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define GZIP_WINDOW (15 + 16) /* zlib's way of asking for a gzip wrapper */

static bool blank(char c) { return c == ' ' || c == '\t'; }

/* Whether [p, end) is a coding's q parameter of 0 ("q=0", "q=0.000"). */
static bool q_zero(const char *p, const char *end) {
  while (p < end && (blank(*p) || *p == ';'))
    p++;
  if (end - p < 3 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=' || p[2] != '0')
    return false;
  for (p += 3; p < end && (*p == '.' || *p == '0'); p++)
    ;
  while (p < end && blank(*p))
    p++;
  return p == end;
}

static bool is_coding(const char *p, size_t n, const char *name) {
  return n == strlen(name) && strncasecmp(p, name, n) == 0;
}

/* One element of the list: "coding[;q=...]". */
static bool element_takes_gzip(const char *p, const char *end) {
  while (p < end && blank(*p))
    p++;
  const char *name_end = p;
  while (name_end < end && *name_end != ';' && !blank(*name_end))
    name_end++;
  size_t n = (size_t)(name_end - p);
  bool gzip = is_coding(p, n, "gzip") || is_coding(p, n, "x-gzip") ||
              is_coding(p, n, "*");
  return gzip && !q_zero(name_end, end);
}

bool serve_gzip_accepted(const char *accept_encoding) {
  if (accept_encoding == NULL)
    return false;
  const char *p = accept_encoding;
  for (;;) {
    const char *comma = strchr(p, ',');
    const char *end = comma != NULL ? comma : p + strlen(p);
    if (element_takes_gzip(p, end))
      return true;
    if (comma == NULL)
      return false;
    p = comma + 1;
  }
}

int serve_gzip(const char *in, size_t n, char **out, size_t *out_n) {
  z_stream z = {0};
  if (n > UINT_MAX)
    return -ENOMEM; /* no answer is this long: zlib counts in uInt */
  if (deflateInit2(&z, 1, Z_DEFLATED, GZIP_WINDOW, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    return -ENOMEM;
  /* deflateBound: room for the whole member in one call */
  size_t cap = deflateBound(&z, (uLong)n);
  char *buf = malloc(cap);
  if (buf == NULL) {
    deflateEnd(&z);
    return -ENOMEM;
  }
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  z.next_out = (Bytef *)buf;
  z.avail_out = (uInt)cap;
  int r = deflate(&z, Z_FINISH);
  size_t len = cap - z.avail_out;
  deflateEnd(&z);
  if (r != Z_STREAM_END) {
    free(buf);
    return -ENOMEM;
  }
  *out = buf;
  *out_n = len;
  return 0;
}

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

/* What an Accept-Encoding list says of gzip (x-gzip is its old name). */
struct verdict {
  bool gzip_yes, gzip_no; /* gzip named with q > 0, with q = 0 */
  bool star_yes;          /* "*" with q > 0 */
};

/* One element of the list: "coding[;q=...]". */
static void judge_element(const char *p, const char *end, struct verdict *v) {
  while (p < end && blank(*p))
    p++;
  const char *name_end = p;
  while (name_end < end && *name_end != ';' && !blank(*name_end))
    name_end++;
  size_t n = (size_t)(name_end - p);
  bool zero = q_zero(name_end, end);
  if (is_coding(p, n, "gzip") || is_coding(p, n, "x-gzip")) {
    v->gzip_yes |= !zero;
    v->gzip_no |= zero;
  } else if (is_coding(p, n, "*")) {
    v->star_yes |= !zero;
  }
}

/* RFC 9110, 12.5.3: a coding named with q=0 is not acceptable, whatever
 * "*" says ("*" stands only for the codings not named); one named with
 * q > 0 is.  A list naming gzip both ways is taken at its refusal. */
bool serve_gzip_accepted(const char *accept_encoding) {
  struct verdict v = {false, false, false};
  if (accept_encoding == NULL)
    return false;
  const char *p = accept_encoding;
  for (;;) {
    const char *comma = strchr(p, ',');
    const char *end = comma != NULL ? comma : p + strlen(p);
    judge_element(p, end, &v);
    if (comma == NULL)
      break;
    p = comma + 1;
  }
  if (v.gzip_no)
    return false;
  return v.gzip_yes || v.star_yes;
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

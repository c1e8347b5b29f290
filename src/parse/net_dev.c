/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for /proc/net/dev (see net_dev.h).  Strict on the interface lines
 * (a name, a colon, exactly 16 counters), since a misparsed line would
 * credit bytes to the wrong guest.
 */
#include "pvecg/net_dev.h"

#include "pvecg/decimal.h"

#include <errno.h>
#include <string.h>

#define NET_DEV_FIELDS 16
#define RX_BYTES 0
#define TX_BYTES 8
#define HEADER_LINES 2

static const char *skip_spaces(const char *p, const char *end) {
  while (p < end && *p == ' ')
    p++;
  return p;
}

static int parse_name(const char **pos, const char *eol,
                      struct net_dev_counters *dev) {
  const char *p = skip_spaces(*pos, eol);
  const char *colon = memchr(p, ':', (size_t)(eol - p));
  size_t n = colon ? (size_t)(colon - p) : 0;
  if (n == 0 || n > NET_DEV_NAME_MAX)
    return -EBADMSG;
  /* Linux interface names are printable, without spaces or slashes. */
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)p[i] <= ' ' || p[i] == 0x7f || p[i] == '/')
      return -EBADMSG;
  memcpy(dev->name, p, n);
  dev->name[n] = '\0';
  *pos = colon + 1;
  return 0;
}

static int parse_line(const char *p, const char *eol,
                      struct net_dev_counters *dev) {
  int r = parse_name(&p, eol, dev);
  for (int i = 0; r == 0 && i < NET_DEV_FIELDS; i++) {
    const char *start = p;
    p = skip_spaces(p, eol);
    /* Counters are separated by spaces; the first may follow the colon
     * directly when it is wide. */
    if (i > 0 && p == start)
      return -EBADMSG;
    uint64_t v;
    r = decimal_parse_u64(&p, eol, &v);
    if (r == -EINVAL)
      return -EBADMSG;
    if (i == RX_BYTES)
      dev->rx_bytes = v;
    else if (i == TX_BYTES)
      dev->tx_bytes = v;
  }
  if (r == 0 && skip_spaces(p, eol) != eol)
    return -EBADMSG;
  return r;
}

int net_dev_parse(const char *buf, size_t len, net_dev_fn fn, void *ctx) {
  const char *p = buf, *end = buf + len;
  for (int line = 0; p < end; line++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    eol = eol ? eol : end;
    if (line >= HEADER_LINES) {
      struct net_dev_counters dev;
      int r = parse_line(p, eol, &dev);
      if (r < 0)
        return r;
      r = fn(&dev, ctx);
      if (r != 0)
        return r;
    } else if (memchr(p, '|', (size_t)(eol - p)) == NULL) {
      return -EBADMSG; /* not the header of this file */
    }
    p = eol + (eol < end);
  }
  return 0;
}

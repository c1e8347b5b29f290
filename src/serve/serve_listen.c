/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsing --listen (see serve_listen.h).
 */
#include "serve_listen.h"

#include "pvecg/decimal.h"
#include "pvecg/host_port.h"

#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

static int parse_port(const char *text, unsigned short *ret) {
  const char *pos = text, *end = text + strlen(text);
  uint64_t v;
  if (decimal_parse_u64(&pos, end, &v) != 0 || pos != end || v > 65535)
    return -EINVAL;
  *ret = (unsigned short)v;
  return 0;
}

/* inet_pton, unlike getaddrinfo, takes only the dotted-quad form: no
 * "1.2.3" or octal parts. */
static int fill(int family, const char *host, unsigned short port,
                struct serve_listen *ret) {
  memset(ret, 0, sizeof(*ret));
  ret->port = port;
  if (family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ret->addr;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    ret->length = sizeof(*a);
    return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? 0 : -EINVAL;
  }
  struct sockaddr_in *a = (struct sockaddr_in *)&ret->addr;
  a->sin_family = AF_INET;
  a->sin_port = htons(port);
  ret->length = sizeof(*a);
  return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -EINVAL;
}

int serve_listen_parse(const char *text, struct serve_listen *ret) {
  char host[64];
  const char *port_text;
  unsigned short port;
  struct serve_listen l;
  if (text == NULL ||
      host_port_split(text, host, sizeof(host), &port_text) != 0 ||
      parse_port(port_text, &port) != 0 ||
      fill(text[0] == '[' ? AF_INET6 : AF_INET, host, port, &l) != 0)
    return -EINVAL;
  *ret = l;
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The client behind a trusted reverse proxy (see serve_proxy.h). */
#include "serve_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int serve_proxy_parse(const char *text, struct serve_proxy *ret) {
  struct serve_proxy p = {.set = true};
  if (inet_pton(AF_INET, text, &p.v4) == 1)
    p.family = AF_INET;
  else if (inet_pton(AF_INET6, text, &p.v6) == 1)
    p.family = AF_INET6;
  else
    return -EINVAL;
  *ret = p;
  return 0;
}

/* Whether peer is the proxy's address (an IPv4 proxy also as the
 * IPv4-mapped IPv6 address a dual-stack listener reports). */
static bool is_proxy(const struct serve_proxy *p, const struct sockaddr *peer) {
  if (peer->sa_family == AF_INET && p->family == AF_INET)
    return memcmp(&((const struct sockaddr_in *)(const void *)peer)->sin_addr,
                  &p->v4, sizeof(p->v4)) == 0;
  if (peer->sa_family != AF_INET6)
    return false;
  const struct in6_addr *a =
      &((const struct sockaddr_in6 *)(const void *)peer)->sin6_addr;
  if (p->family == AF_INET6)
    return memcmp(a, &p->v6, sizeof(*a)) == 0;
  return IN6_IS_ADDR_V4MAPPED(a) && memcmp(&a->s6_addr[12], &p->v4, 4) == 0;
}

void serve_address_text(const struct serve_proxy *proxy,
                        const struct sockaddr *sa, char *out, size_t size) {
  const void *a = NULL;
  if (sa != NULL && sa->sa_family == AF_INET6)
    a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
  else if (sa != NULL && sa->sa_family == AF_INET)
    a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
  if (a == NULL || inet_ntop(sa->sa_family, a, out, (socklen_t)size) == NULL) {
    snprintf(out, size, "?");
    return;
  }
  size_t n = strlen(out);
  if (proxy != NULL && proxy->set && is_proxy(proxy, sa) && n < size)
    snprintf(out + n, size - n, " (the trusted proxy)");
}

/* The element of the comma-separated xff[0..*end) that ends at *end,
 * without its blanks, into buf; *end moves to the comma before it (or
 * the start).  False for an element that is empty or too long. */
static bool element_before(const char *xff, size_t *end, char *buf,
                           size_t size) {
  size_t stop = *end, start = stop;
  while (start > 0 && xff[start - 1] != ',')
    start--;
  *end = start > 0 ? start - 1 : 0;
  while (start < stop && (xff[start] == ' ' || xff[start] == '\t'))
    start++;
  while (stop > start && (xff[stop - 1] == ' ' || xff[stop - 1] == '\t'))
    stop--;
  size_t n = stop - start;
  if (n == 0 || n >= size)
    return false;
  memcpy(buf, xff + start, n);
  buf[n] = '\0';
  return true;
}

static bool to_address(const char *text, struct sockaddr_storage *buf) {
  memset(buf, 0, sizeof(*buf));
  struct sockaddr_in *v4 = (struct sockaddr_in *)(void *)buf;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)(void *)buf;
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1)
    v4->sin_family = AF_INET;
  else if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1)
    v6->sin6_family = AF_INET6;
  else
    return false;
  return true;
}

const struct sockaddr *serve_proxy_client(const struct serve_proxy *proxy,
                                          const struct sockaddr *peer,
                                          const char *xff,
                                          struct sockaddr_storage *buf) {
  if (proxy == NULL || !proxy->set || peer == NULL || xff == NULL ||
      !is_proxy(proxy, peer))
    return peer;
  /* from the right: the proxy's own address (a proxy that names itself)
   * is passed over; the first other address is the client; anything
   * that is no address ends the walk, as the peer's */
  char text[INET6_ADDRSTRLEN];
  size_t end = strlen(xff);
  while (end > 0 && element_before(xff, &end, text, sizeof(text))) {
    if (!to_address(text, buf))
      return peer;
    if (!is_proxy(proxy, (const struct sockaddr *)buf))
      return (const struct sockaddr *)buf;
  }
  return peer;
}

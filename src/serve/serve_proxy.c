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

/* The last comma-separated element of xff, without spaces, into buf. */
static bool last_element(const char *xff, char *buf, size_t size) {
  const char *start = strrchr(xff, ',');
  start = start != NULL ? start + 1 : xff;
  start += strspn(start, " \t");
  size_t n = strcspn(start, " \t");
  if (n == 0 || n >= size || start[n + strspn(start + n, " \t")] != '\0')
    return false;
  memcpy(buf, start, n);
  buf[n] = '\0';
  return true;
}

const struct sockaddr *serve_proxy_client(const struct serve_proxy *proxy,
                                          const struct sockaddr *peer,
                                          const char *xff,
                                          struct sockaddr_storage *buf) {
  char text[INET6_ADDRSTRLEN];
  if (proxy == NULL || !proxy->set || peer == NULL || xff == NULL ||
      !is_proxy(proxy, peer) || !last_element(xff, text, sizeof(text)))
    return peer;
  memset(buf, 0, sizeof(*buf));
  struct sockaddr_in *v4 = (struct sockaddr_in *)(void *)buf;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)(void *)buf;
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1)
    v4->sin_family = AF_INET;
  else if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1)
    v6->sin6_family = AF_INET6;
  else
    return peer;
  return (const struct sockaddr *)buf;
}

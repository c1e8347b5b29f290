/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which client a request is from when `pvecg serve` stands behind a
 * reverse proxy (--trusted-proxy ADDR).  Behind one, every connection
 * comes from the proxy's address, so the guard against guessed tokens
 * (serve_guard.h) would hold every client off for one client's guesses,
 * and the log's rhost= would name the proxy for fail2ban.  A request whose
 * peer is the trusted proxy is taken to be from the right-most address of
 * its X-Forwarded-For header lines, all of them in order, that is not the
 * proxy's own: the one that proxy wrote (nginx's
 * $proxy_add_x_forwarded_for appends it to the client's line,
 * packaging/examples/pvecg-serve-nginx.conf sets it alone; HAProxy's
 * option forwardfor adds a line of its own after the client's); what a
 * client wrote before it is not trusted.  From any other peer the header is
 * ignored, so a client cannot choose the address it is counted under.  A
 * trusted proxy's request without a usable header counts as the proxy's own.
 *
 * Pure functions, so that the rules are unit tested.
 */
#ifndef PVECG_SERVE_PROXY_H
#define PVECG_SERVE_PROXY_H

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

struct serve_proxy {
  bool set;
  int family; /* AF_INET or AF_INET6 */
  struct in_addr v4;
  struct in6_addr v6;
};

/* An IPv4 or IPv6 address literal.  Returns 0 or -EINVAL. */
int serve_proxy_parse(const char *text, struct serve_proxy *ret);

/*
 * The client of a request from peer with the X-Forwarded-For value xff
 * (NULL: none; every line of the header joined by commas, in order):
 * peer itself unless it is the trusted proxy; then, from the right, the
 * first address of xff that is not the proxy's own, written into *buf,
 * which is returned.  An element that is no address ends the walk (the
 * peer's).
 */
const struct sockaddr *serve_proxy_client(const struct serve_proxy *proxy,
                                          const struct sockaddr *peer,
                                          const char *xff,
                                          struct sockaddr_storage *buf);

/*
 * A client's address as the log names it: its text ("?" when there is
 * none).  When proxy is set and sa is the trusted proxy itself (a
 * connection whose request, and so its X-Forwarded-For, has not come yet),
 * " (the trusted proxy)" follows, so a line never passes the proxy off as
 * the client.
 */
void serve_address_text(const struct serve_proxy *proxy,
                        const struct sockaddr *sa, char *out, size_t size);

#endif

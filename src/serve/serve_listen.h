/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --listen's address: "HOST:PORT" with HOST a numeric IPv4 address, or
 * "[V6]:PORT" for IPv6 ("[::]:8016" is every address).  Numbers only, so
 * no name lookup can hang the start or bind somewhere unexpected.
 */
#ifndef PVECG_SERVE_LISTEN_H
#define PVECG_SERVE_LISTEN_H

#include <sys/socket.h>

struct serve_listen {
  struct sockaddr_storage addr;
  socklen_t length;
  unsigned short port;
};

/* Returns 0 or -EINVAL. */
int serve_listen_parse(const char *text, struct serve_listen *ret);

#endif

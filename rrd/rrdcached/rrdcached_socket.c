/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Connections to rrdcached (see rrdcached_socket.h). */
#include "rrdcached_socket.h"

#include "pvecg/host_port.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_PORT "42217"

bool rrdcached_socket_is_unix(const char *address) {
  return address[0] == '/' || strncmp(address, "unix:", 5) == 0;
}

static int connect_unix(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof(sa.sun_path))
    return -ENAMETOOLONG;
  memcpy(sa.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
    int r = -errno;
    close(fd);
    return r;
  }
  return fd;
}

/* "host", "host:port", "[v6]", "[v6]:port", as librrd takes them. */
static int split_tcp(const char *address, char *host, size_t size,
                     const char **port) {
  const char *last = strrchr(address, ':'), *close_br = strchr(address, ']');
  bool has_port =
      last != NULL && (address[0] == '[' ? close_br != NULL && last > close_br
                                         : strchr(address, ':') == last);
  if (has_port)
    return host_port_split(address, host, size, port);
  size_t len = strlen(address);
  if (address[0] == '[' && len > 2 && address[len - 1] == ']')
    snprintf(host, size, "%.*s", (int)(len - 2), address + 1);
  else
    snprintf(host, size, "%s", address);
  *port = DEFAULT_PORT;
  return 0;
}

static int connect_tcp(const char *address) {
  char host[256];
  const char *port;
  if (split_tcp(address, host, sizeof(host), &port) != 0)
    return -EINVAL;
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *list;
  if (getaddrinfo(host, port, &hints, &list) != 0)
    return -EHOSTUNREACH;
  int r = -ECONNREFUSED;
  for (struct addrinfo *a = list; a != NULL; a = a->ai_next) {
    int fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      r = fd;
      break;
    }
    r = -errno;
    if (fd >= 0)
      close(fd);
  }
  freeaddrinfo(list);
  return r;
}

int rrdcached_socket_connect(const char *address) {
  if (!rrdcached_socket_is_unix(address))
    return connect_tcp(address);
  return connect_unix(strncmp(address, "unix:", 5) == 0 ? address + 5
                                                        : address);
}

int rrdcached_socket_send(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return w < 0 ? -errno : -EPIPE;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The loopback HTTP client of the peers mode (see http_get.h).
 */
#include "http_get.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define HTTP_TIMEOUT_S 30

static int loopback_socket(uint16_t port, bool do_connect) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  struct timeval tv = {HTTP_TIMEOUT_S, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  int r = do_connect ? connect(fd, (struct sockaddr *)&sa, sizeof(sa))
                     : bind(fd, (struct sockaddr *)&sa, sizeof(sa));
  if (r < 0) {
    int err = -errno;
    close(fd);
    return err;
  }
  return fd;
}

/* Everything the server sends until it closes. */
static int read_all(int fd, char **ret, size_t *len) {
  size_t cap = 1 << 16, got = 0;
  char *buf = malloc(cap);
  ssize_t n;
  while (buf && (n = read(fd, buf + got, cap - got - 1)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      free(buf);
      return -errno;
    }
    got += (size_t)n;
    char *more = got + 1 == cap ? realloc(buf, cap *= 2) : buf;
    if (!more)
      free(buf);
    buf = more;
  }
  if (!buf)
    return -ENOMEM;
  buf[got] = '\0';
  *ret = buf;
  *len = got;
  return 0;
}

int http_get(uint16_t port, const char *path, char **body) {
  int fd = loopback_socket(port, true);
  if (fd < 0)
    return fd;
  char request[512];
  int n = snprintf(request, sizeof(request),
                   "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                   "Connection: close\r\n\r\n",
                   path);
  char *response = NULL;
  size_t len = 0;
  int err = write(fd, request, (size_t)n) == n ? 0 : -EIO;
  if (err == 0)
    err = read_all(fd, &response, &len);
  close(fd);
  if (err < 0)
    return err;
  char *start = strstr(response, "\r\n\r\n");
  if (strncmp(response, "HTTP/1.1 200", 12) != 0 &&
      strncmp(response, "HTTP/1.0 200", 12) != 0)
    start = NULL;
  if (!start) {
    free(response);
    return -EPROTO;
  }
  memmove(response, start + 4, len - (size_t)(start + 4 - response) + 1);
  *body = response;
  return 0;
}

int http_free_port(uint16_t *port) {
  int fd = loopback_socket(0, false);
  if (fd < 0)
    return fd;
  struct sockaddr_in sa;
  socklen_t len = sizeof(sa);
  int err = getsockname(fd, (struct sockaddr *)&sa, &len) < 0 ? -errno : 0;
  close(fd);
  if (err == 0)
    *port = ntohs(sa.sin_port);
  return err;
}

size_t http_count(const char *haystack, const char *needle) {
  size_t n = 0, len = strlen(needle);
  for (const char *p = haystack; (p = strstr(p, needle)) != NULL; p += len)
    n++;
  return n;
}

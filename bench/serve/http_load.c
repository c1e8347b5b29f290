/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTTP load (see http_load.h): plain sockets and a minimal reader of
 * the status line and Content-Length, which is all pvecg serve sends.
 */
#include "http_load.h"

#include "pvecg/monotonic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define HEADER_MAX 8192

struct client {
  const struct http_load *load;
  double *latency_ms; /* this client's slots */
  size_t answered, failed;
  uint64_t body_bytes;
  pthread_t thread;
};

static int connect_local(unsigned short port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  if (fd < 0)
    return -errno;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
    int r = -errno;
    close(fd);
    return r;
  }
  return fd;
}

static int send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Reads the header block; *status and *length from it; the bytes of the
 * body already read are left in head after *header_len. */
static int read_header(int fd, char *head, size_t *got, size_t *header_len,
                       int *status, size_t *length) {
  *got = 0;
  for (;;) {
    ssize_t r = recv(fd, head + *got, HEADER_MAX - 1 - *got, 0);
    if (r <= 0)
      return -1;
    *got += (size_t)r;
    head[*got] = '\0';
    char *end = strstr(head, "\r\n\r\n");
    if (end != NULL) {
      *header_len = (size_t)(end + 4 - head);
      break;
    }
    if (*got == HEADER_MAX - 1)
      return -1;
  }
  const char *cl = strcasestr(head, "\r\nContent-Length:");
  if (sscanf(head, "HTTP/1.1 %d", status) != 1 || cl == NULL)
    return -1;
  *length = strtoull(cl + 17, NULL, 10);
  return 0;
}

static int skip_body(int fd, size_t left) {
  char buf[65536];
  while (left > 0) {
    ssize_t r = recv(fd, buf, left < sizeof(buf) ? left : sizeof(buf), 0);
    if (r <= 0)
      return -1;
    left -= (size_t)r;
  }
  return 0;
}

/* One request on fd; its body's length in *length.  -1: the connection
 * is no use any more. */
static int one_request(int fd, const char *request, size_t request_len,
                       int *status, size_t *length) {
  char head[HEADER_MAX];
  size_t got, header_len;
  if (send_all(fd, request, request_len) != 0 ||
      read_header(fd, head, &got, &header_len, status, length) != 0)
    return -1;
  size_t have = got - header_len;
  return have > *length ? -1 : skip_body(fd, *length - have);
}

static void *client_run(void *arg) {
  struct client *c = arg;
  char request[1024];
  int n = snprintf(
      request, sizeof(request), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n",
      c->load->path, c->load->gzip ? "Accept-Encoding: gzip\r\n" : "");
  int fd = connect_local(c->load->port);
  for (unsigned i = 0; i < c->load->requests; i++) {
    int status = 0;
    size_t length = 0;
    int64_t t0 = monotonic_ns();
    if (fd < 0 || one_request(fd, request, (size_t)n, &status, &length) != 0) {
      c->failed++;
      if (fd >= 0)
        close(fd);
      fd = connect_local(c->load->port);
      continue;
    }
    if (status != 200) {
      c->failed++;
      continue;
    }
    c->latency_ms[c->answered++] = (double)(monotonic_ns() - t0) / 1e6;
    c->body_bytes = length;
  }
  if (fd >= 0)
    close(fd);
  return NULL;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Gathers the clients' latencies into ret, sorted. */
static void collect(struct client *c, unsigned count,
                    struct http_load_result *ret) {
  size_t n = 0;
  for (unsigned i = 0; i < count; i++) {
    memmove(ret->latency_ms + n, c[i].latency_ms,
            c[i].answered * sizeof(double));
    n += c[i].answered;
    ret->failed += c[i].failed;
    if (c[i].body_bytes != 0)
      ret->body_bytes = c[i].body_bytes;
  }
  ret->count = n;
  qsort(ret->latency_ms, n, sizeof(double), by_value);
}

int http_load_run(const struct http_load *load, struct http_load_result *ret) {
  size_t total = (size_t)load->clients * load->requests;
  struct client *c = calloc(load->clients, sizeof(*c));
  *ret = (struct http_load_result){.latency_ms = calloc(total, sizeof(double))};
  if (c == NULL || ret->latency_ms == NULL) {
    free(c);
    http_load_result_free(ret);
    return -ENOMEM;
  }
  int64_t t0 = monotonic_ns();
  unsigned started = 0;
  for (; started < load->clients; started++) {
    c[started] = (struct client){
        .load = load,
        .latency_ms = ret->latency_ms + (size_t)started * load->requests};
    if (pthread_create(&c[started].thread, NULL, client_run, &c[started]))
      break;
  }
  for (unsigned i = 0; i < started; i++)
    pthread_join(c[i].thread, NULL);
  ret->seconds = (double)(monotonic_ns() - t0) / 1e9;
  collect(c, started, ret);
  free(c);
  return started > 0 ? 0 : -EAGAIN;
}

void http_load_result_free(struct http_load_result *r) {
  free(r->latency_ms);
  *r = (struct http_load_result){0};
}

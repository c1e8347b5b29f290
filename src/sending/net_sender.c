/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network side of `pvecg export --to` (see net_sender.h): one socket,
 * non-blocking from the start, so every wait is a poll() with a timeout,
 * and a name resolved with getaddrinfo_a under the same time limit.
 */
#include "pvecg/net_sender.h"

#include "sent_lines.h"

#include "pvecg/host_port.h"

#include <errno.h>
#include <signal.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct net_sender {
  int fd;
  bool udp;
  bool failed;
  int timeout_ms;
  size_t lines_sent;
  volatile sig_atomic_t *stop; /* NULL: none */
  /* UDP: whole lines waiting for a full datagram. */
  char pending[NET_DATAGRAM_MAX];
  size_t pending_len;
};

#define TCP_SEND_BUFFER (256 * 1024)

#define URL_TCP "tcp://"
#define URL_UDP "udp://"

static int parse_port(const char *s, char ret[6]) {
  size_t len = strlen(s);
  if (len == 0 || len > 5)
    return -EINVAL;
  unsigned long port = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -EINVAL;
    port = port * 10 + (unsigned long)(s[i] - '0');
  }
  if (port == 0 || port > 65535 || s[0] == '0')
    return -EINVAL;
  memcpy(ret, s, len + 1);
  return 0;
}

static int split_host_port(const char *s, struct net_target *t) {
  const char *port;
  if (host_port_split(s, t->host, sizeof(t->host), &port) != 0)
    return -EINVAL;
  return parse_port(port, t->port);
}

int net_target_parse(const char *url, struct net_target *ret) {
  struct net_target t = {0};
  if (url == NULL)
    return -EINVAL;
  if (strncmp(url, URL_UDP, strlen(URL_UDP)) == 0)
    t.udp = true;
  else if (strncmp(url, URL_TCP, strlen(URL_TCP)) != 0)
    return -EINVAL;
  int r = split_host_port(url + strlen(URL_TCP), &t);
  if (r < 0)
    return r;
  *ret = t;
  return 0;
}

#define STOP_SLICE_MS 100 /* between two looks at a stop */

/* Waits until fd is writable; -ETIMEDOUT after timeout_ms, -ECANCELED
 * once *stop is set. */
static int wait_writable(int fd, int timeout_ms, volatile sig_atomic_t *stop) {
  struct pollfd p = {.fd = fd, .events = POLLOUT};
  int left = timeout_ms;
  for (;;) {
    if (stop != NULL && *stop)
      return -ECANCELED;
    int slice = stop != NULL && left > STOP_SLICE_MS ? STOP_SLICE_MS : left;
    int r = poll(&p, 1, slice);
    if (r > 0)
      return 0;
    if (r < 0 && errno != EINTR)
      return -errno;
    if (r == 0 && (left -= slice) <= 0)
      return -ETIMEDOUT;
  }
}

static int connect_one(const struct addrinfo *ai, int timeout_ms,
                       volatile sig_atomic_t *stop, int *ret) {
  int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  ai->ai_protocol);
  if (fd < 0)
    return -errno;
  int r = 0;
  /* A bounded send buffer (instead of one autotuned up to megabytes) keeps
   * the lines counted as sent close to what the listener got. */
  int sndbuf = TCP_SEND_BUFFER;
  if (ai->ai_socktype == SOCK_STREAM)
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
  if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
    r = errno == EINPROGRESS ? wait_writable(fd, timeout_ms, stop) : -errno;
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    if (r == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) < 0)
      r = -errno;
    else if (r == 0 && so_error != 0)
      r = -so_error;
  }
  if (r < 0) {
    close(fd);
    return r;
  }
  *ret = fd;
  return 0;
}

/* The resolver's request outlives a timed-out wait (glibc cannot always
 * cancel it, and its thread may still write the answer), so it is not on
 * the stack; the command resolves one target per run. */
static struct addrinfo resolve_hints;
static struct gaicb resolve_request;

/* getaddrinfo with a time limit: a resolver that does not answer must not
 * hold the export up any more than a listener that does not. */
static int resolve(const struct net_target *t, int timeout_ms,
                   volatile sig_atomic_t *stop, struct addrinfo **ret,
                   char *err, size_t err_size) {
  resolve_hints =
      (struct addrinfo){.ai_socktype = t->udp ? SOCK_DGRAM : SOCK_STREAM,
                        .ai_flags = AI_ADDRCONFIG | AI_NUMERICHOST};
  /* An address needs no resolver (nor its helper thread). */
  if (getaddrinfo(t->host, t->port, &resolve_hints, ret) == 0)
    return 0;
  resolve_hints.ai_flags = AI_ADDRCONFIG;
  resolve_request = (struct gaicb){
      .ar_name = t->host, .ar_service = t->port, .ar_request = &resolve_hints};
  struct gaicb *list[] = {&resolve_request};
  int g = getaddrinfo_a(GAI_NOWAIT, list, 1, NULL);
  int left = timeout_ms;
  while (g == 0 && (g = gai_error(&resolve_request)) == EAI_INPROGRESS) {
    if (stop != NULL && *stop) {
      gai_cancel(&resolve_request);
      snprintf(err, err_size, "stopped while resolving %s", t->host);
      return -ECANCELED;
    }
    int slice = stop != NULL && left > STOP_SLICE_MS ? STOP_SLICE_MS : left;
    struct timespec limit = {.tv_sec = slice / 1000,
                             .tv_nsec = (long)(slice % 1000) * 1000000L};
    g = gai_suspend((const struct gaicb *const *)list, 1, &limit);
    if (g == EAI_AGAIN && (left -= slice) > 0)
      g = 0; /* a slice, not the limit */
    else if (g == EAI_AGAIN) {
      gai_cancel(&resolve_request);
      snprintf(err, err_size, "cannot resolve %s: no answer within %d ms",
               t->host, timeout_ms);
      return -ETIMEDOUT;
    }
    if (g == EAI_INTR || g == EAI_ALLDONE)
      g = 0;
  }
  if (g != 0) {
    snprintf(err, err_size, "cannot resolve %s: %s", t->host, gai_strerror(g));
    return -EHOSTUNREACH;
  }
  *ret = resolve_request.ar_result;
  return 0;
}

static int connect_target(const struct net_target *t, int timeout_ms,
                          volatile sig_atomic_t *stop, int *ret, char *err,
                          size_t err_size) {
  struct addrinfo *list = NULL;
  int r = resolve(t, timeout_ms, stop, &list, err, err_size);
  if (r < 0)
    return r;
  r = -EHOSTUNREACH;
  for (struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next)
    if ((r = connect_one(ai, timeout_ms, stop, ret)) == 0 || r == -ECANCELED)
      break;
  freeaddrinfo(list);
  if (r < 0)
    snprintf(err, err_size, "cannot connect to %s port %s: %s", t->host,
             t->port, strerror(-r));
  return r;
}

int net_sender_open(const struct net_target *target, double timeout,
                    volatile sig_atomic_t *stop, struct net_sender **ret,
                    char *err, size_t err_size) {
  struct net_sender *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return -ENOMEM;
  s->udp = target->udp;
  s->timeout_ms = timeout * 1000 >= 1 ? (int)(timeout * 1000) : 1;
  s->stop = stop;
  int r = connect_target(target, s->timeout_ms, stop, &s->fd, err, err_size);
  if (r < 0) {
    free(s);
    return r;
  }
  *ret = s;
  return 0;
}

/* TCP: the whole buffer, counting each line once its '\n' is out.
 * UDP: one datagram (all of it or none). */
static int send_bytes(struct net_sender *s, const char *buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = send(s->fd, buf + done, len - done, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int r = wait_writable(s->fd, s->timeout_ms, s->stop);
      if (r < 0)
        return r;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -errno;
    s->lines_sent += sent_lines(buf + done, (size_t)n);
    done += (size_t)n;
  }
  return 0;
}

static int fail(struct net_sender *s, int r, char *err, size_t err_size) {
  s->failed = true;
  snprintf(err, err_size, "%s",
           r == -ETIMEDOUT ? "the listener took no data for the timeout"
                           : strerror(-r));
  return r;
}

static int flush_pending(struct net_sender *s) {
  if (s->pending_len == 0)
    return 0;
  int r = send_bytes(s, s->pending, s->pending_len);
  if (r == 0)
    s->pending_len = 0;
  return r;
}

/* Adds whole lines to datagrams, sending each when the next line would not
 * fit. */
static int send_udp(struct net_sender *s, const char *text, size_t len) {
  const char *end = text + len;
  for (const char *line = text; line < end;) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    size_t line_len = (size_t)(nl - line) + 1;
    int r = 0;
    if (s->pending_len + line_len > NET_DATAGRAM_MAX)
      r = flush_pending(s);
    if (r == 0 && line_len > NET_DATAGRAM_MAX)
      r = send_bytes(s, line, line_len);
    else if (r == 0) {
      memcpy(s->pending + s->pending_len, line, line_len);
      s->pending_len += line_len;
    }
    if (r < 0)
      return r;
    line += line_len;
  }
  return 0;
}

int net_sender_send(struct net_sender *s, const char *text, size_t len,
                    char *err, size_t err_size) {
  if (s->failed) {
    snprintf(err, err_size, "an earlier send failed");
    return -EPIPE;
  }
  if (len == 0)
    return 0;
  if (text[len - 1] != '\n') {
    snprintf(err, err_size, "not whole lines");
    return -EINVAL;
  }
  int r = s->udp ? send_udp(s, text, len) : send_bytes(s, text, len);
  return r < 0 ? fail(s, r, err, err_size) : 0;
}

int net_sender_finish(struct net_sender *s, char *err, size_t err_size) {
  if (s->failed) {
    snprintf(err, err_size, "an earlier send failed");
    return -EPIPE;
  }
  int r = flush_pending(s);
  return r < 0 ? fail(s, r, err, err_size) : 0;
}

size_t net_sender_lines_sent(const struct net_sender *s) {
  return s->lines_sent;
}

bool net_sender_alive(const struct net_sender *s) {
  if (s->failed)
    return false;
  if (s->udp)
    return true;
  /* A line listener never writes: anything to read is its end (EOF) or
   * an error (a reset). */
  struct pollfd p = {.fd = s->fd, .events = POLLIN};
  if (poll(&p, 1, 0) <= 0)
    return true;
  char c;
  ssize_t n = recv(s->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

void net_sender_free(struct net_sender *s) {
  if (s == NULL)
    return;
  close(s->fd);
  free(s);
}

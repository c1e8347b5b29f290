/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PENDING exchanges with rrdcached (see rrdcached_pending.h). */
#include "rrdcached_pending.h"

#include "rrd_text.h"
#include "rrdcached_socket.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* More than rrdcached keeps of a file for hours of -w: not its answer. */
#define ANSWER_MAX (16u << 20)
#define LINES_MAX 1000000
/* A pending update of the widest layout is about 600 bytes. */
#define PENDING_LINE_MAX 4096

struct rrdcached_pending {
  char *address;
  bool unix_socket;
  int fd; /* -1: not connected */
  char *in;
  size_t in_len, in_cap;
};

/* ---- the answer ---------------------------------------------------------- */

/* The status line's number: n >= 0 lines follow, or -1 (an error). */
static int status_of(const char *line, size_t len, long *ret) {
  size_t i = 0;
  bool negative = len > 0 && line[0] == '-';
  i += negative;
  if (i == len || line[i] < '0' || line[i] > '9')
    return -EPROTO;
  long v = 0;
  for (; i < len && line[i] >= '0' && line[i] <= '9'; i++) {
    v = v * 10 + (line[i] - '0');
    if (v > LINES_MAX)
      return -EPROTO;
  }
  if (i < len && line[i] != ' ')
    return -EPROTO;
  *ret = negative ? -v : v;
  return 0;
}

ssize_t rrdcached_pending_parse(const char *buf, size_t len, size_t *newest,
                                size_t *newest_len) {
  if (len == 0)
    return 0;
  const char *nl = memchr(buf, '\n', len);
  long lines;
  if (nl == NULL)
    return len > 4096 ? -EPROTO : 0;
  if (status_of(buf, (size_t)(nl - buf), &lines) != 0)
    return -EPROTO;
  size_t pos = (size_t)(nl - buf) + 1;
  *newest = pos;
  *newest_len = 0;
  /* an error ("-1 No such file...") means nothing is pending */
  for (long i = 0; i < lines; i++) {
    nl = memchr(buf + pos, '\n', len - pos);
    if (nl == NULL)
      return 0;
    *newest = pos;
    *newest_len = (size_t)(nl - (buf + pos));
    pos = (size_t)(nl - buf) + 1;
  }
  return (ssize_t)pos;
}

/* ---- the exchange -------------------------------------------------------- */

static void disconnect(struct rrdcached_pending *p) {
  if (p->fd >= 0)
    close(p->fd);
  p->fd = -1;
}

static int connect_once(struct rrdcached_pending *p, char *err,
                        size_t err_size) {
  if (p->fd >= 0)
    return 0;
  int fd = rrdcached_socket_connect(p->address);
  if (fd < 0) {
    char text[128];
    rrd_text_set(err, err_size, "cannot connect to %s: %s", p->address,
                 strerror_r(-fd, text, sizeof(text)));
    return -ENOTCONN;
  }
  p->fd = fd;
  return 0;
}

/* "PENDING <path>\n", the path as librrd sends it: over a unix socket
 * resolved, so that the daemon's cache knows it by the writer's name. */
static int request(const struct rrdcached_pending *p, const char *path,
                   char *buf, size_t size) {
  char resolved[PATH_MAX];
  if (p->unix_socket && realpath(path, resolved) != NULL)
    path = resolved;
  /* over TCP the daemon appends the path to its -b as it is: "./x" would
   * not be the "x" a writer updated */
  while (!p->unix_socket && strncmp(path, "./", 2) == 0)
    path += 2;
  size_t n = 0;
  n += (size_t)snprintf(buf, size, "PENDING ");
  for (; *path != '\0' && n + 3 < size; path++) {
    /* a line end would make two requests of one */
    if ((unsigned char)*path < 0x20 || *path == 0x7f)
      return -EINVAL;
    if (*path == ' ' || *path == '\\')
      buf[n++] = '\\';
    buf[n++] = *path;
  }
  if (*path != '\0')
    return -ENAMETOOLONG;
  buf[n++] = '\n';
  return (int)n;
}

static int reserve(struct rrdcached_pending *p) {
  if (p->in_cap - p->in_len >= 4096)
    return 0;
  size_t cap = p->in_cap ? p->in_cap * 2 : 16384;
  char *in = realloc(p->in, cap);
  if (in == NULL)
    return -ENOMEM;
  p->in = in;
  p->in_cap = cap;
  return 0;
}

static ssize_t read_answer(struct rrdcached_pending *p, size_t *newest,
                           size_t *newest_len) {
  p->in_len = 0;
  for (;;) {
    ssize_t r = rrdcached_pending_parse(p->in, p->in_len, newest, newest_len);
    if (r != 0)
      return r;
    if (p->in_len >= ANSWER_MAX)
      return -EPROTO;
    if (reserve(p) != 0)
      return -ENOMEM;
    ssize_t got = recv(p->fd, p->in + p->in_len, p->in_cap - p->in_len, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return got < 0 ? -errno : -ECONNRESET;
    p->in_len += (size_t)got;
  }
}

/* One exchange: the answer's length in p->in, or -ENOTCONN when the
 * connection failed, -EPROTO or -ENOMEM. */
static ssize_t exchange(struct rrdcached_pending *p, const char *req,
                        size_t n) {
  size_t newest, newest_len;
  if (rrdcached_socket_send(p->fd, req, n) != 0) {
    disconnect(p);
    return -ENOTCONN;
  }
  ssize_t got = read_answer(p, &newest, &newest_len);
  if (got < 0) {
    disconnect(p);
    return got == -EPROTO || got == -ENOMEM ? got : -ENOTCONN;
  }
  /* bytes after the answer answer nothing we asked: the stream has lost
   * its place, and the next answer read would be another file's */
  if ((size_t)got != p->in_len)
    disconnect(p);
  return got;
}

/* Offers the answer's update lines to take(), newest first. */
static int offer_lines(struct rrdcached_pending *p, size_t len,
                       rrdcached_pending_take_fn *take, void *ctx) {
  const char *first = memchr(p->in, '\n', len);
  char line[PENDING_LINE_MAX];
  size_t end = len;
  while (first != NULL && end > (size_t)(first - p->in) + 1) {
    size_t begin = end - 1;
    while (p->in[begin - 1] != '\n')
      begin--;
    size_t n = end - 1 - begin;
    if (n < sizeof(line)) {
      memcpy(line, p->in + begin, n);
      line[n] = '\0';
      if (take(ctx, line))
        return 1;
    }
    end = begin;
  }
  return 0;
}

int rrdcached_pending_newest(struct rrdcached_pending *p, const char *path,
                             rrdcached_pending_take_fn *take, void *ctx,
                             char *err, size_t err_size) {
  char req[PATH_MAX + 16];
  int n = request(p, path, req, sizeof(req));
  if (n < 0) {
    rrd_text_set(err, err_size,
                 "the path is too long or has a control "
                 "character");
    return -EPROTO;
  }
  ssize_t r = -ENOTCONN;
  /* a kept connection the daemon has closed meanwhile: once more */
  for (int attempt = 0; attempt < 2 && r == -ENOTCONN; attempt++) {
    if (connect_once(p, err, err_size) != 0)
      return -ENOTCONN;
    r = exchange(p, req, (size_t)n);
  }
  if (r == -ENOTCONN)
    rrd_text_set(err, err_size, "the connection to %s broke", p->address);
  else if (r < 0)
    rrd_text_set(err, err_size, "%s's answer to PENDING is not one",
                 p->address);
  if (r < 0)
    return r == -ENOTCONN ? -ENOTCONN : -EPROTO;
  return offer_lines(p, (size_t)r, take, ctx);
}

int rrdcached_pending_new(const char *address, struct rrdcached_pending **ret) {
  if (address == NULL || address[0] == '\0')
    return -EINVAL;
  struct rrdcached_pending *p = calloc(1, sizeof(*p));
  if (p == NULL || (p->address = strdup(address)) == NULL) {
    free(p);
    return -ENOMEM;
  }
  p->unix_socket = rrdcached_socket_is_unix(address);
  p->fd = -1;
  *ret = p;
  return 0;
}

void rrdcached_pending_free(struct rrdcached_pending *p) {
  if (p == NULL)
    return;
  disconnect(p);
  free(p->in);
  free(p->address);
  free(p);
}

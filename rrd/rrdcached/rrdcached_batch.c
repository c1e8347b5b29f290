/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BATCH exchanges with rrdcached (see rrdcached_batch.h): the connection,
 * the request's bytes, and reading the answer until it is whole.
 */
#include "rrdcached_batch.h"

#include "rrd_text.h"
#include "rrdcached_answer.h"
#include "rrdcached_socket.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Directories whose realpath() is kept: a guest's rows go to up to three
 * (its row, KSM and stall files), interleaved once a minute, and each
 * cluster has its own. */
#define RESOLVED_DIRS 8

/* An answer longer than this per row is not rrdcached's. */
#define ANSWER_PER_ROW 4096
#define ANSWER_BASE 4096

struct rrdcached_batch {
  char *address;
  bool unix_socket;
  int fd; /* -1: not connected */
  char *out, *in;
  size_t out_len, out_cap, in_len, in_cap;
  struct rrdcached_answer_error *errors;
  size_t errors_cap;
  /* realpath() of the directories asked for lately, and what it gave:
   * resolved again for every row, a directory costs a readlink per level */
  struct resolved_dir {
    char dir[PATH_MAX], resolved[PATH_MAX];
  } dirs[RESOLVED_DIRS];
  size_t dirs_used, dirs_next; /* the next to give up when all are used */
};

/* ---- the connection ---------------------------------------------------- */

void rrdcached_batch_disconnect(struct rrdcached_batch *b) {
  if (b->fd >= 0)
    close(b->fd);
  b->fd = -1;
}

/* ---- bytes ------------------------------------------------------------- */

static int reserve(char **buf, size_t *cap, size_t want) {
  if (want <= *cap)
    return 0;
  size_t cap2 = *cap ? *cap : 4096;
  while (cap2 < want)
    cap2 *= 2;
  char *p = realloc(*buf, cap2);
  if (p == NULL)
    return -ENOMEM;
  *buf = p;
  *cap = cap2;
  return 0;
}

static int put(struct rrdcached_batch *b, const char *s, size_t n) {
  if (reserve(&b->out, &b->out_cap, b->out_len + n) != 0)
    return -ENOMEM;
  memcpy(b->out + b->out_len, s, n);
  b->out_len += n;
  return 0;
}

/* A word as librrd's client writes it: ' ' and '\\' escaped.  Copied a
 * run at a time: every row's path and values pass here. */
static int put_escaped(struct rrdcached_batch *b, const char *s) {
  for (;;) {
    size_t run = strcspn(s, " \\");
    if (put(b, s, run) != 0)
      return -ENOMEM;
    s += run;
    if (*s == '\0')
      return 0;
    char pair[2] = {'\\', *s++};
    if (put(b, pair, 2) != 0)
      return -ENOMEM;
  }
}

/* Reads until the answer to `commands` commands is whole; its length, or
 * a negative errno. */
static ssize_t read_answer(struct rrdcached_batch *b, size_t commands,
                           size_t *count) {
  size_t limit = ANSWER_BASE + commands * ANSWER_PER_ROW;
  b->in_len = 0;
  for (;;) {
    ssize_t r =
        rrdcached_answer_parse(b->in, b->in_len, commands, b->errors, count);
    if (r != 0)
      return r;
    if (b->in_len >= limit)
      return -EPROTO;
    if (reserve(&b->in, &b->in_cap, b->in_len + 4096) != 0)
      return -ENOMEM;
    ssize_t got = recv(b->fd, b->in + b->in_len, b->in_cap - b->in_len, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return got < 0 ? -errno : -ECONNRESET;
    b->in_len += (size_t)got;
  }
}

/* ---- exchanges --------------------------------------------------------- */

/* One exchange of what is in b->out; refusals into b->errors. */
static ssize_t exchange(struct rrdcached_batch *b, size_t commands,
                        size_t *count) {
  if (commands > b->errors_cap) {
    void *e = realloc(b->errors, commands * sizeof(*b->errors));
    if (e == NULL)
      return -ENOMEM;
    b->errors = e;
    b->errors_cap = commands;
  }
  int r = rrdcached_socket_send(b->fd, b->out, b->out_len);
  return r != 0 ? r : read_answer(b, commands, count);
}

/* A new connection, and whether the daemon takes BATCH (an empty one). */
static int open_connection(struct rrdcached_batch *b, char *err,
                           size_t err_size) {
  int fd = rrdcached_socket_connect(b->address);
  if (fd < 0) {
    char text[128];
    rrd_text_set(err, err_size, "cannot connect to %s: %s", b->address,
                 strerror_r(-fd, text, sizeof(text)));
    return -ENOTCONN;
  }
  b->fd = fd;
  b->out_len = 0;
  size_t count;
  ssize_t r = put(b, "BATCH\n.\n", 8) != 0 ? -ENOMEM : exchange(b, 0, &count);
  if (r > 0)
    return 0;
  rrdcached_batch_disconnect(b);
  if (r == -EOPNOTSUPP) {
    const char *nl = memchr(b->in, '\n', b->in_len);
    rrd_text_set(err, err_size, "%s does not take BATCH: %.*s", b->address,
                 (int)(nl - b->in), b->in);
    return -EOPNOTSUPP;
  }
  rrd_text_set(err, err_size, "%s did not answer BATCH", b->address);
  return -ENOTCONN;
}

/* path's directory (its first dir_len bytes) resolved, from the kept ones
 * or now; NULL when it cannot be. */
static const struct resolved_dir *
resolved_dir(struct rrdcached_batch *b, const char *path, size_t dir_len) {
  for (size_t i = 0; i < b->dirs_used; i++)
    if (strncmp(b->dirs[i].dir, path, dir_len) == 0 &&
        b->dirs[i].dir[dir_len] == '\0')
      return &b->dirs[i];
  char dir[PATH_MAX], resolved[PATH_MAX];
  memcpy(dir, path, dir_len);
  dir[dir_len] = '\0';
  if (realpath(dir_len > 0 ? dir : "/", resolved) == NULL)
    return NULL;
  struct resolved_dir *d;
  if (b->dirs_used < RESOLVED_DIRS) {
    d = &b->dirs[b->dirs_used++];
  } else {
    d = &b->dirs[b->dirs_next];
    b->dirs_next = (b->dirs_next + 1) % RESOLVED_DIRS;
  }
  memcpy(d->dir, dir, dir_len + 1);
  memcpy(d->resolved, resolved, strlen(resolved) + 1);
  return d;
}

/* The path as librrd sends it over a unix socket: the directory resolved
 * (the file itself is never a symlink: the store refuses those). */
static int daemon_path(struct rrdcached_batch *b, const char *path,
                       const char **ret, char *buf, size_t size) {
  const char *slash = strrchr(path, '/');
  if (!b->unix_socket || slash == NULL) {
    *ret = path;
    return 0;
  }
  size_t dir_len = (size_t)(slash - path);
  if (dir_len >= PATH_MAX)
    return -ENAMETOOLONG;
  const struct resolved_dir *d = resolved_dir(b, path, dir_len);
  if (d == NULL) {
    /* gone meanwhile: the daemon says so for this row alone */
    *ret = path;
    return 0;
  }
  int n = snprintf(buf, size, "%s%s", d->resolved, slash);
  if (n < 0 || (size_t)n >= size)
    return -ENAMETOOLONG;
  *ret = buf;
  return 0;
}

/* "BATCH\n", one UPDATE line per row, ".\n". */
static int build_request(struct rrdcached_batch *b,
                         const struct rrdcached_batch_row *rows, size_t n) {
  char buf[PATH_MAX];
  b->out_len = 0;
  int r = put(b, "BATCH\n", 6);
  for (size_t i = 0; r == 0 && i < n; i++) {
    const char *path = rows[i].path;
    r = daemon_path(b, rows[i].path, &path, buf, sizeof(buf));
    if (r == 0)
      r = put(b, "UPDATE ", 7);
    if (r == 0)
      r = put_escaped(b, path);
    if (r == 0)
      r = put(b, " ", 1);
    if (r == 0)
      r = put_escaped(b, rows[i].row);
    if (r == 0)
      r = put(b, "\n", 1);
  }
  return r == 0 ? put(b, ".\n", 2) : r;
}

static void report_refusals(const struct rrdcached_batch *b, size_t count,
                            rrdcached_batch_refused_fn *refused, void *ctx) {
  for (size_t i = 0; i < count; i++) {
    char message[1024];
    const struct rrdcached_answer_error *e = &b->errors[i];
    snprintf(message, sizeof(message), "%.*s", (int)e->message_len, e->message);
    refused(ctx, e->command - 1, message);
  }
}

int rrdcached_batch_connect(struct rrdcached_batch *b, char *err,
                            size_t err_size) {
  return b->fd >= 0 ? 0 : open_connection(b, err, err_size);
}

int rrdcached_batch_update(struct rrdcached_batch *b,
                           const struct rrdcached_batch_row *rows, size_t n,
                           rrdcached_batch_refused_fn *refused, void *ctx,
                           char *err, size_t err_size) {
  int r = rrdcached_batch_connect(b, err, err_size);
  if (r != 0)
    return r;
  r = build_request(b, rows, n);
  if (r != 0) {
    char text[128];
    rrd_text_set(err, err_size, "cannot make the request: %s",
                 strerror_r(-r, text, sizeof(text)));
    return r == -ENOMEM ? -ENOMEM : -EINVAL;
  }
  size_t count = 0;
  ssize_t got = exchange(b, n, &count);
  if (got < 0) {
    char text[128];
    /* whatever came is not an answer to these rows: start afresh */
    rrdcached_batch_disconnect(b);
    rrd_text_set(err, err_size, "the connection to %s broke: %s", b->address,
                 strerror_r((int)-got, text, sizeof(text)));
    return -ENOTCONN;
  }
  report_refusals(b, count, refused, ctx);
  return 0;
}

int rrdcached_batch_new(const char *address, struct rrdcached_batch **ret) {
  if (address == NULL || address[0] == '\0')
    return -EINVAL;
  struct rrdcached_batch *b = calloc(1, sizeof(*b));
  if (b == NULL || (b->address = strdup(address)) == NULL) {
    free(b);
    return -ENOMEM;
  }
  b->unix_socket = rrdcached_socket_is_unix(address);
  b->fd = -1;
  *ret = b;
  return 0;
}

void rrdcached_batch_free(struct rrdcached_batch *b) {
  if (b == NULL)
    return;
  rrdcached_batch_disconnect(b);
  free(b->address);
  free(b->out);
  free(b->in);
  free(b->errors);
  free(b);
}

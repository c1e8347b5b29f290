/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/rrdcached/rrdcached_batch.c (BATCH exchanges with rrdcached) and
 * of the sink's batches (rrd_sender_batch.c) end to end.
 *
 * Against a real rrdcached: rows the daemon refuses in the middle of one
 * exchange come back with their own indices and the daemon's words, the
 * others are applied (its journal says which); a file name with a space
 * and a backslash reaches its own file, and a directory reached through a
 * symlink is the daemon's one file; a daemon restarted under a kept
 * connection costs one exchange, not the next ones; TCP with relative
 * paths.
 *
 * Against stand-ins (a thread on a unix socket): answers that arrive one
 * byte at a time, a daemon that refuses BATCH (nothing but the probe
 * is sent to it), one that closes the connection instead of answering,
 * one whose answer cannot be rrdcached's, and none at all.  A real daemon
 * gives these only by chance.
 *
 * The sink through a proxy in front of a real rrdcached: the proxy passes
 * everything on, but for the first exchange carrying rows it waits for the
 * daemon's answer and then closes the sink's connection instead of passing
 * the answer on -- the daemon applied the rows and the sink cannot know.
 * The rows must be sent again, refused at their own times, and counted
 * as written, each once in the journal, with one "Lost the connection"
 * line and nothing else of note.  Then a proxy that answers BATCH as a
 * daemon without it does: the rows go one by one.
 *
 * The tests with a real daemon are skipped when rrdcached is not
 * installed; the stand-ins need none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_row.h"
#include "pvecg/rrd_sink.h"
#include "pvecg/rrdcached_client.h"
#include "rrd_fixture.h"
#include "rrdcached_batch.h"
#include "rrdcached_fixture.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define START 1800000000
#define GO_AHEAD "0 Go ahead.  End with dot '.' on its own line.\n"
#define STALE(t, last)                                                         \
  "illegal attempt to update using time " #t ".000000 when last update time "  \
  "is " #last ".000000 (minimum one second step)"

/* A file of one data source, for rows written by hand. */
static const struct rrd_ds_def tiny_ds[] = {{"v", RRD_DS_GAUGE, false}};
static const struct rrd_rra_def tiny_rra[] = {{RRD_CF_AVERAGE, 1, 10}};
static const struct rrd_layout tiny = {.name = "tiny",
                                       .type_name = "tiny",
                                       .step = 60,
                                       .heartbeat = 120,
                                       .xff = 0.5,
                                       .ds = tiny_ds,
                                       .ds_count = 1,
                                       .rra = tiny_rra,
                                       .rra_count = 1};

static void create_tiny(const char *path) {
  char err[512] = "";
  if (rrd_file_create(&tiny, path, START, err, sizeof(err)) != 0)
    fail_msg("cannot create %s: %s", path, err);
}

/* ---- what the daemon refused ------------------------------------------- */

#define REFUSED_MAX 16

struct refusals {
  size_t count;
  size_t index[REFUSED_MAX];
  char message[REFUSED_MAX][512];
};

static void record(void *ctx, size_t index, const char *message) {
  struct refusals *r = ctx;
  assert_true(r->count < REFUSED_MAX);
  r->index[r->count] = index;
  snprintf(r->message[r->count], sizeof(r->message[0]), "%s", message);
  r->count++;
}

static void assert_refused(const struct refusals *r, size_t i, size_t index,
                           const char *message) {
  assert_true(i < r->count);
  assert_int_equal(r->index[i], index);
  assert_string_equal(r->message[i], message);
}

/* ---- sockets ----------------------------------------------------------- */

static int listen_unix(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  assert_true(strlen(path) < sizeof(sa.sun_path));
  strcpy(sa.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true(fd >= 0);
  assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
  assert_int_equal(listen(fd, 16), 0);
  return fd;
}

static int connect_unix(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof(sa.sun_path))
    return -1;
  memcpy(sa.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* (no cmocka assertions in the threads below: what they got is checked by
 * the test once they are joined) */
static bool send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0)
      return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

/* ---- a stand-in daemon ------------------------------------------------- */

enum standin_script {
  ANSWER,           /* answers the probe and the batch */
  REFUSE,           /* answers BATCH as a daemon without it */
  CLOSE_THEN_ANSWER /* closes instead of answering the batch, then
                       answers on a second connection */
};

#define RECEIVED_SIZE 4096

struct standin {
  int listener;
  pthread_t thread;
  enum standin_script script;
  const char *answer; /* to the batch */
  size_t chunk;       /* bytes per write, 1 ms apart; 0: all at once */
  /* what each connection received, for the test once joined */
  char received[2][RECEIVED_SIZE];
  size_t received_len[2];
  int connections;
};

/* Reads the next exchange of connection c, until what it received ends
 * one ("\n.\n") again; false at EOF. */
static bool read_exchange(struct standin *s, int fd, int c) {
  size_t from = s->received_len[c];
  for (;;) {
    size_t len = s->received_len[c];
    if (len > from && len >= 3 &&
        memcmp(s->received[c] + len - 3, "\n.\n", 3) == 0)
      return true;
    if (len + 1 >= RECEIVED_SIZE)
      return false;
    ssize_t got = read(fd, s->received[c] + len, RECEIVED_SIZE - 1 - len);
    if (got <= 0)
      return false;
    s->received_len[c] += (size_t)got;
  }
}

static void reply(const struct standin *s, int fd, const char *text) {
  size_t len = strlen(text);
  if (s->chunk == 0) {
    send_all(fd, text, len);
    return;
  }
  for (size_t i = 0; i < len; i += s->chunk) {
    send_all(fd, text + i, len - i < s->chunk ? len - i : s->chunk);
    usleep(1000);
  }
}

/* Everything until the client closes, recorded. */
static void read_to_end(struct standin *s, int fd, int c) {
  for (;;) {
    size_t len = s->received_len[c];
    if (len + 1 >= RECEIVED_SIZE)
      return;
    ssize_t got = read(fd, s->received[c] + len, RECEIVED_SIZE - 1 - len);
    if (got <= 0)
      return;
    s->received_len[c] += (size_t)got;
  }
}

/* One connection; false when the script is at its end. */
static bool standin_connection(struct standin *s, int fd, int c) {
  if (s->script == REFUSE) {
    /* the first line, answered as a daemon without BATCH does */
    while (memchr(s->received[c], '\n', s->received_len[c]) == NULL &&
           s->received_len[c] + 1 < RECEIVED_SIZE &&
           read(fd, s->received[c] + s->received_len[c], 1) == 1)
      s->received_len[c]++;
    reply(s, fd, "-1 Unknown command: BATCH\n");
    read_to_end(s, fd, c);
    return true; /* a second connection would be counted */
  }
  if (!read_exchange(s, fd, c)) /* the probe: "BATCH\n.\n" */
    return false;
  reply(s, fd, GO_AHEAD "0 errors\n");
  if (!read_exchange(s, fd, c))
    return false;
  if (s->script == CLOSE_THEN_ANSWER && c == 0)
    return true; /* closed without an answer: the client comes back */
  reply(s, fd, s->answer);
  read_to_end(s, fd, c);
  return false;
}

static void *standin_main(void *arg) {
  struct standin *s = arg;
  for (int c = 0; c < 2; c++) {
    /* the client of CLOSE_THEN_ANSWER comes back at once; the one of
     * REFUSE is given 300 ms not to */
    struct pollfd p = {.fd = s->listener, .events = POLLIN};
    int wait = c == 0 ? 10000 : s->script == REFUSE ? 300 : 5000;
    if (poll(&p, 1, wait) != 1)
      break;
    int fd = accept4(s->listener, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
      break;
    s->connections++;
    bool again = standin_connection(s, fd, c);
    close(fd);
    if (!again)
      break;
  }
  return NULL;
}

static void standin_start(struct standin *s, const char *path) {
  s->listener = listen_unix(path);
  assert_int_equal(pthread_create(&s->thread, NULL, standin_main, s), 0);
}

static void standin_join(struct standin *s) {
  assert_int_equal(pthread_join(s->thread, NULL), 0);
  close(s->listener);
  s->received[0][s->received_len[0]] = '\0';
  s->received[1][s->received_len[1]] = '\0';
}

/* ---- a proxy in front of a real rrdcached ------------------------------ */

enum proxy_mode {
  CUT_FIRST_ROWS, /* loses the answer to the first exchange with rows */
  NO_BATCH,       /* answers BATCH as a daemon without it */
  PASS,           /* passes everything on both ways */
};

#define CONNECTIONS_MAX 16
#define PROXY_LINE_SIZE 65536

struct proxy {
  char path[300], daemon_path[300];
  enum proxy_mode mode;
  bool running;
  int listener, stop[2];
  pthread_t thread;
  pthread_t conns[CONNECTIONS_MAX];
  int conn_count;
  pthread_mutex_t lock; /* guards everything below */
  pthread_cond_t cond;
  bool released; /* accepts connections only once the test says so */
  bool cut;
  size_t cut_rows;       /* UPDATE lines of the exchange it cut */
  char cut_answer[512];  /* the daemon's answer it kept from the sink */
  size_t batch_rows;     /* UPDATE lines of every BATCH passed on */
  size_t batch_asks;     /* ...of them with unknowns only: the store's
                            writer check: whether someone else wrote the file */
  size_t single_updates; /* UPDATE lines outside a BATCH */
  int batches;           /* BATCH lines passed on */
  int refused;           /* BATCH lines answered as refused */
};

struct proxied {
  struct proxy *p;
  int client, daemon;
  char line[PROXY_LINE_SIZE];
  size_t line_len;
  bool in_batch, cutting;
  size_t rows;      /* UPDATE lines in the current batch */
  size_t asks;      /* ...of them with unknowns only */
  char answer[512]; /* the daemon's bytes since the last BATCH */
  size_t answer_len;
};

/* Whether answer holds "<go ahead>\n<n> errors\n" and n lines. */
static bool answer_whole(const char *answer, size_t len) {
  size_t lines = 0, second = 0;
  for (size_t i = 0; i < len; i++)
    if (answer[i] == '\n' && ++lines == 1)
      second = i + 1;
  return lines >= 2 && lines >= 2 + strtoul(answer + second, NULL, 10);
}

/* Whether an UPDATE line's row ("<path> <time>:U:...:U\n") is unknowns
 * only. */
static bool only_unknowns(const char *line, size_t len) {
  const char *row = line + len;
  while (row > line && row[-1] != ' ')
    row--;
  size_t digits = strspn(row, "0123456789");
  if (digits == 0 || row[digits] != ':')
    return false;
  for (const char *p = row + digits; p < line + len - 1; p += 2)
    if (p[0] != ':' || p[1] != 'U')
      return false;
  return (size_t)(line + len - 1 - (row + digits)) % 2 == 0;
}

/* One line from the sink (with its '\n'); false to end the connection. */
static bool from_client(struct proxied *c, const char *line, size_t len) {
  struct proxy *p = c->p;
  bool batch = len == 6 && memcmp(line, "BATCH\n", 6) == 0;
  bool dot = len == 2 && memcmp(line, ".\n", 2) == 0;
  if (p->mode == NO_BATCH && !c->in_batch && (batch || dot)) {
    if (batch) {
      pthread_mutex_lock(&p->lock);
      p->refused++;
      pthread_mutex_unlock(&p->lock);
    }
    return send_all(c->client,
                    batch ? "-1 Unknown command: BATCH\n"
                          : "-1 Unknown command: .\n",
                    batch ? 26 : 22);
  }
  if (batch && !c->in_batch) {
    c->in_batch = true;
    c->rows = c->asks = 0;
    c->answer_len = 0;
    pthread_mutex_lock(&p->lock);
    p->batches++;
    pthread_mutex_unlock(&p->lock);
  } else if (c->in_batch && dot) {
    c->in_batch = false;
    pthread_mutex_lock(&p->lock);
    p->batch_rows += c->rows;
    p->batch_asks += c->asks;
    if (p->mode == CUT_FIRST_ROWS && c->rows > 0 && !p->cut) {
      p->cut = c->cutting = true; /* before the daemon can answer */
      p->cut_rows = c->rows;
    }
    pthread_mutex_unlock(&p->lock);
  } else if (c->in_batch && len > 7 && memcmp(line, "UPDATE ", 7) == 0) {
    c->rows++;
    c->asks += only_unknowns(line, len);
  } else if (len > 7 && strncasecmp(line, "UPDATE ", 7) == 0) {
    pthread_mutex_lock(&p->lock);
    p->single_updates++;
    pthread_mutex_unlock(&p->lock);
  }
  return send_all(c->daemon, line, len);
}

/* Bytes from the daemon; false to end the connection. */
static bool from_daemon(struct proxied *c, const char *buf, size_t len) {
  size_t room = sizeof(c->answer) - 1 - c->answer_len;
  memcpy(c->answer + c->answer_len, buf, len < room ? len : room);
  c->answer_len += len < room ? len : room;
  if (!c->cutting)
    return send_all(c->client, buf, len);
  if (!answer_whole(c->answer, c->answer_len))
    return true;
  /* the daemon has answered: the sink never hears it */
  struct proxy *p = c->p;
  pthread_mutex_lock(&p->lock);
  memcpy(p->cut_answer, c->answer, c->answer_len);
  p->cut_answer[c->answer_len] = '\0';
  pthread_mutex_unlock(&p->lock);
  return false;
}

static bool client_readable(struct proxied *c) {
  ssize_t got =
      read(c->client, c->line + c->line_len, sizeof(c->line) - c->line_len);
  if (got <= 0)
    return false;
  c->line_len += (size_t)got;
  char *nl;
  while ((nl = memchr(c->line, '\n', c->line_len)) != NULL) {
    size_t len = (size_t)(nl - c->line) + 1;
    if (!from_client(c, c->line, len))
      return false;
    memmove(c->line, c->line + len, c->line_len - len);
    c->line_len -= len;
  }
  return c->line_len < sizeof(c->line);
}

static void *proxied_main(void *arg) {
  struct proxied *c = arg;
  char buf[4096];
  for (bool open = true; open;) {
    struct pollfd fds[3] = {{.fd = c->client, .events = POLLIN},
                            {.fd = c->daemon, .events = POLLIN},
                            {.fd = c->p->stop[0], .events = POLLIN}};
    if (poll(fds, 3, -1) < 0 || fds[2].revents != 0)
      break;
    if (fds[0].revents != 0)
      open = client_readable(c);
    if (open && fds[1].revents != 0) {
      ssize_t got = read(c->daemon, buf, sizeof(buf));
      open = got > 0 && from_daemon(c, buf, (size_t)got);
    }
  }
  close(c->client);
  close(c->daemon);
  free(c);
  return NULL;
}

static void *proxy_main(void *arg) {
  struct proxy *p = arg;
  pthread_mutex_lock(&p->lock);
  while (!p->released)
    pthread_cond_wait(&p->cond, &p->lock);
  pthread_mutex_unlock(&p->lock);
  for (;;) {
    struct pollfd fds[2] = {{.fd = p->listener, .events = POLLIN},
                            {.fd = p->stop[0], .events = POLLIN}};
    if (poll(fds, 2, -1) < 0 || fds[1].revents != 0)
      break;
    int client = accept4(p->listener, NULL, NULL, SOCK_CLOEXEC);
    if (client < 0)
      continue;
    int daemon = connect_unix(p->daemon_path);
    struct proxied *c = calloc(1, sizeof(*c));
    if (daemon < 0 || c == NULL || p->conn_count == CONNECTIONS_MAX) {
      perror("proxy: cannot pass a connection on");
      close(client);
      if (daemon >= 0)
        close(daemon);
      free(c);
      continue;
    }
    *c = (struct proxied){.p = p, .client = client, .daemon = daemon};
    if (pthread_create(&p->conns[p->conn_count], NULL, proxied_main, c) != 0) {
      close(client);
      close(daemon);
      free(c);
      continue;
    }
    p->conn_count++;
  }
  for (int i = 0; i < p->conn_count; i++)
    pthread_join(p->conns[i], NULL);
  return NULL;
}

static void proxy_start(struct proxy *p, const char *path,
                        const char *daemon_path, enum proxy_mode mode) {
  memset(p, 0, sizeof(*p));
  fixture_path(p->path, "%s", path);
  fixture_path(p->daemon_path, "%s", daemon_path);
  p->mode = mode;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->cond, NULL);
  assert_int_equal(pipe(p->stop), 0);
  p->listener = listen_unix(path);
  assert_int_equal(pthread_create(&p->thread, NULL, proxy_main, p), 0);
  p->running = true;
}

static void proxy_release(struct proxy *p) {
  pthread_mutex_lock(&p->lock);
  p->released = true;
  pthread_cond_signal(&p->cond);
  pthread_mutex_unlock(&p->lock);
}

/* Ends every connection and the proxy. */
static void proxy_stop(struct proxy *p) {
  if (!p->running)
    return;
  p->running = false;
  proxy_release(p);
  close(p->stop[1]); /* POLLHUP for every poll on stop[0] */
  assert_int_equal(pthread_join(p->thread, NULL), 0);
  close(p->stop[0]);
  close(p->listener);
  pthread_cond_destroy(&p->cond);
  pthread_mutex_destroy(&p->lock);
}

/* ---- a real daemon ----------------------------------------------------- */

struct real {
  char *dir;         /* NULL: not started */
  char db[PATH_MAX]; /* the daemon's base directory, resolved */
  struct rrdcached daemon;
};

/* The one daemon of a test: static, so that teardown() finds it after a
 * failed assertion left the test. */
static struct real real;

static void real_start(struct real *r, const char *tag, bool tcp) {
  r->dir = fixture_tmpdir(tag);
  rrdcached_prepare(&r->daemon, r->dir, tcp);
  assert_non_null(realpath(r->daemon.db, r->db));
  rrdcached_start(&r->daemon);
}

static void real_end(struct real *r) {
  if (r->dir == NULL)
    return;
  rrdcached_kill(&r->daemon);
  fixture_remove(r->dir);
  free(r->dir);
  r->dir = NULL;
}

static void assert_times(const struct real *r, const char *path,
                         const time_t *want, size_t n) {
  time_t times[32];
  size_t have = rrdcached_journal_times(&r->daemon, path, times, 32);
  if (have != n)
    fail_msg("%zu rows accepted for %s, expected %zu", have, path, n);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(times[i], want[i]);
}

static struct rrdcached_batch *batch_new(const char *address) {
  struct rrdcached_batch *b = NULL;
  assert_int_equal(rrdcached_batch_new(address, &b), 0);
  assert_non_null(b);
  return b;
}

/* Rows refused in the middle of an exchange: the others are applied, the
 * refused ones come back with their index and the daemon's words. */
static void test_real_refusals(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  struct real *r = &real;
  real_start(r, "batch-refusals", false);
  char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], nope[PATH_MAX];
  fixture_path(a, "%s/a", r->db);
  fixture_path(b, "%s/b", r->db);
  fixture_path(c, "%s/c", r->db);
  fixture_path(nope, "%s/nope", r->db);
  create_tiny(a);
  create_tiny(b);
  create_tiny(c);
  const struct rrdcached_batch_row rows[] = {
      {a, "1800000060:1"},    {b, "1800000060:2"},
      {a, "1800000060:3"},    /* not newer than row 0 */
      {nope, "1800000060:4"}, /* no such file */
      {b, "1800000030:5"},    /* older than row 1 */
      {c, "1800000060:6"},    {a, "1800000120:7"},
  };
  struct rrdcached_batch *batch = batch_new(r->daemon.address);
  struct refusals refused = {0};
  char err[512] = "";
  assert_int_equal(
      rrdcached_batch_update(batch, rows, 7, record, &refused, err, 512), 0);
  assert_int_equal(refused.count, 3);
  assert_refused(&refused, 0, 2, STALE(1800000060, 1800000060));
  char message[PATH_MAX + 32];
  fixture_path(message, "No such file: %s", nope);
  assert_refused(&refused, 1, 3, message);
  assert_refused(&refused, 2, 4, STALE(1800000030, 1800000060));
  /* the same connection, every row taken */
  const struct rrdcached_batch_row more[] = {{a, "1800000180:8"},
                                             {b, "1800000120:9"}};
  refused.count = 0;
  assert_int_equal(
      rrdcached_batch_update(batch, more, 2, record, &refused, err, 512), 0);
  assert_int_equal(refused.count, 0);
  rrdcached_batch_free(batch);
  rrdcached_stop(&r->daemon);

  assert_times(r, a, (time_t[]){START + 60, START + 120, START + 180}, 3);
  assert_times(r, b, (time_t[]){START + 60, START + 120}, 2);
  assert_times(r, c, (time_t[]){START + 60}, 1);
  assert_times(r, nope, NULL, 0);
  char row[64];
  rrdcached_journal_row(&r->daemon, a, START + 60, row, sizeof(row));
  assert_string_equal(row, "1800000060:1"); /* row 0, not row 2 */
  rrdcached_journal_row(&r->daemon, b, START + 60, row, sizeof(row));
  assert_string_equal(row, "1800000060:2");
  real_end(r);
}

/* A name with a space and a backslash reaches its own file, not "x" or
 * "x y"; the same file through a symlinked directory is the daemon's one
 * file (a row older than the one just sent through the real path is
 * refused). */
static void test_real_names(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  struct real *r = &real;
  real_start(r, "batch-names", false);
  char odd[PATH_MAX], x[PATH_MAX], xy[PATH_MAX], alias[PATH_MAX],
      odd_by_alias[PATH_MAX], escaped[PATH_MAX];
  fixture_path(odd, "%s/x y\\z", r->db);
  fixture_path(x, "%s/x", r->db);
  fixture_path(xy, "%s/x y", r->db);
  fixture_path(alias, "%s/alias", r->dir);
  fixture_path(odd_by_alias, "%s/x y\\z", alias);
  fixture_path(escaped, "%s/x\\ y\\\\z", r->db); /* as the journal has it */
  assert_int_equal(symlink(r->db, alias), 0);
  create_tiny(odd);
  create_tiny(x);
  create_tiny(xy);
  const struct rrdcached_batch_row rows[] = {
      {odd, "1800000060:1"},
      {odd_by_alias, "1800000030:2"}, /* older: the same file */
  };
  struct rrdcached_batch *batch = batch_new(r->daemon.address);
  struct refusals refused = {0};
  char err[512] = "";
  assert_int_equal(
      rrdcached_batch_update(batch, rows, 2, record, &refused, err, 512), 0);
  assert_int_equal(refused.count, 1);
  assert_refused(&refused, 0, 1, STALE(1800000030, 1800000060));
  rrdcached_batch_free(batch);

  /* on disk once flushed: the row in its own file, the others untouched */
  struct rrdcached_client *client = NULL;
  assert_int_equal(rrdcached_client_new(r->daemon.address, &client), 0);
  assert_int_equal(rrdcached_client_flush(client, odd, err, 512), 0);
  rrdcached_client_free(client);
  time_t last = 0;
  assert_int_equal(rrd_file_last_update(odd, &last, err, 512), 0);
  assert_int_equal(last, START + 60);
  assert_int_equal(rrd_file_last_update(x, &last, err, 512), 0);
  assert_int_equal(last, START);
  assert_int_equal(rrd_file_last_update(xy, &last, err, 512), 0);
  assert_int_equal(last, START);
  rrdcached_stop(&r->daemon);
  assert_times(r, escaped, (time_t[]){START + 60}, 1);
  real_end(r);
}

/* Rows interleaved between more directories than the client keeps
 * resolved (a guest's row, KSM and stall files; several clusters): each
 * reaches its own file, and a directory reached through a symlink is still
 * the daemon's one directory after the kept ones were replaced. */
static void test_real_many_directories(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  enum { DIRS = 11, ROUNDS = 3, PER_ROUND = DIRS + 1 };
  struct real *r = &real;
  real_start(r, "batch-dirs", false);
  char files[DIRS][PATH_MAX], alias[PATH_MAX], by_alias[PATH_MAX],
      dir[PATH_MAX];
  for (int i = 0; i < DIRS; i++) {
    fixture_path(dir, "%s/d%d", r->db, i);
    assert_int_equal(mkdir(dir, 0750), 0);
    fixture_path(files[i], "%s/f", dir);
    create_tiny(files[i]);
  }
  fixture_path(alias, "%s/alias", r->dir);
  fixture_path(by_alias, "%s/f", alias);
  fixture_path(dir, "%s/d0", r->db);
  assert_int_equal(symlink(dir, alias), 0);
  struct rrdcached_batch_row rows[ROUNDS * PER_ROUND];
  char text[ROUNDS * PER_ROUND][32];
  for (int k = 0; k < ROUNDS; k++)
    for (int i = 0; i < PER_ROUND; i++) {
      int n = k * PER_ROUND + i;
      bool alias_row = i == DIRS; /* older than d0's row just before */
      snprintf(text[n], sizeof(text[n]), "%d:%d",
               START + 60 * (k + 1) - (alias_row ? 30 : 0), i);
      rows[n] = (struct rrdcached_batch_row){alias_row ? by_alias : files[i],
                                             text[n]};
    }
  struct rrdcached_batch *batch = batch_new(r->daemon.address);
  struct refusals refused = {0};
  char err[512] = "";
  assert_int_equal(rrdcached_batch_update(batch, rows, ROUNDS * PER_ROUND,
                                          record, &refused, err, 512),
                   0);
  rrdcached_batch_free(batch);
  assert_int_equal(refused.count, ROUNDS);
  assert_refused(&refused, 0, DIRS, STALE(1800000030, 1800000060));
  assert_refused(&refused, 1, PER_ROUND + DIRS, STALE(1800000090, 1800000120));
  assert_refused(&refused, 2, 2 * PER_ROUND + DIRS,
                 STALE(1800000150, 1800000180));
  rrdcached_stop(&r->daemon);
  for (int i = 0; i < DIRS; i++)
    assert_times(r, files[i], (time_t[]){START + 60, START + 120, START + 180},
                 3);
  real_end(r);
}

/* A daemon restarted under a kept connection: the next exchange finds the
 * connection broken (nothing known of its rows), the one after that
 * connects anew. */
static void test_real_restart(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  struct real *r = &real;
  real_start(r, "batch-restart", false);
  char a[PATH_MAX];
  fixture_path(a, "%s/a", r->db);
  create_tiny(a);
  struct rrdcached_batch *batch = batch_new(r->daemon.address);
  struct refusals refused = {0};
  char err[512] = "", want[PATH_MAX + 64];
  const struct rrdcached_batch_row first = {a, "1800000060:1"};
  assert_int_equal(
      rrdcached_batch_update(batch, &first, 1, record, &refused, err, 512), 0);
  rrdcached_stop(&r->daemon);
  rrdcached_start(&r->daemon);
  const struct rrdcached_batch_row second = {a, "1800000120:2"};
  assert_int_equal(
      rrdcached_batch_update(batch, &second, 1, record, &refused, err, 512),
      -ENOTCONN);
  fixture_path(want, "the connection to %s broke: Broken pipe",
               r->daemon.address);
  assert_string_equal(err, want);
  assert_int_equal(
      rrdcached_batch_update(batch, &second, 1, record, &refused, err, 512), 0);
  assert_int_equal(refused.count, 0);
  rrdcached_batch_free(batch);
  rrdcached_stop(&r->daemon);
  assert_times(r, a, (time_t[]){START + 60, START + 120}, 2);
  real_end(r);
}

/* Over TCP paths are sent as given, relative to the daemon's base. */
static void test_real_tcp(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  struct real *r = &real;
  real_start(r, "batch-tcp", true);
  char dir[PATH_MAX], a[PATH_MAX], message[PATH_MAX + 32];
  fixture_path(dir, "%s/t", r->db);
  fixture_path(a, "%s/t/a", r->db);
  assert_int_equal(mkdir(dir, 0755), 0);
  create_tiny(a);
  const struct rrdcached_batch_row rows[] = {{"t/missing", "1800000060:1"},
                                             {"t/a", "1800000060:2"}};
  struct rrdcached_batch *batch = batch_new(r->daemon.address);
  struct refusals refused = {0};
  char err[512] = "";
  assert_int_equal(
      rrdcached_batch_update(batch, rows, 2, record, &refused, err, 512), 0);
  assert_int_equal(refused.count, 1);
  fixture_path(message, "No such file: %s/t/missing", r->daemon.db);
  assert_refused(&refused, 0, 0, message);
  rrdcached_batch_free(batch);
  rrdcached_stop(&r->daemon);
  assert_times(r, "t/a", (time_t[]){START + 60}, 1);
  real_end(r);
}

/* ---- stand-ins --------------------------------------------------------- */

struct stage {
  char *dir;
  char real[PATH_MAX];
  char socket_path[PATH_MAX], address[PATH_MAX + 8];
  char a[PATH_MAX], odd[PATH_MAX], gone[PATH_MAX];
  char request[4 * PATH_MAX]; /* what the rows below make */
  struct rrdcached_batch_row rows[4];
};

/* Rows in the test's directory (resolved by the client as it is here),
 * one whose name begins with a space and has another, two backslashes
 * and one at its end, and one in a directory that does not exist (sent as
 * given). */
static void stage_set(struct stage *s, const char *tag) {
  s->dir = fixture_tmpdir(tag);
  assert_non_null(realpath(s->dir, s->real));
  fixture_path(s->socket_path, "%s/sock", s->real);
  fixture_path(s->address, "unix:%s", s->socket_path);
  fixture_path(s->a, "%s/a", s->dir);
  fixture_path(s->odd, "%s/ x y\\\\z\\", s->dir);
  fixture_path(s->gone, "%s/gone/b", s->real);
  s->rows[0] = (struct rrdcached_batch_row){s->a, "1800000060:1"};
  s->rows[1] = (struct rrdcached_batch_row){s->odd, "1800000060:2"};
  s->rows[2] = (struct rrdcached_batch_row){s->gone, "1800000060:3"};
  s->rows[3] = (struct rrdcached_batch_row){s->a, "1800000120:4"};
  fixture_path(s->request,
               "BATCH\n"
               "UPDATE %s/a 1800000060:1\n"
               "UPDATE %s/\\ x\\ y\\\\\\\\z\\\\ 1800000060:2\n"
               "UPDATE %s/gone/b 1800000060:3\n"
               "UPDATE %s/a 1800000120:4\n"
               ".\n",
               s->real, s->real, s->real, s->real);
}

static void stage_end(struct stage *s) {
  fixture_remove(s->dir);
  free(s->dir);
}

#define STANDIN_ANSWER                                                         \
  GO_AHEAD "2 errors\n"                                                        \
           "2 No such file: /somewhere/x y\\z\n"                               \
           "4 " STALE(1800000120, 1800000180) "\n"

/* The stand-in's answer, whole or byte by byte, gives the same result. */
static void exchange_with(size_t chunk) {
  struct stage s;
  stage_set(&s, "batch-standin");
  struct standin d = {
      .script = ANSWER, .answer = STANDIN_ANSWER, .chunk = chunk};
  standin_start(&d, s.socket_path);
  struct rrdcached_batch *batch = batch_new(s.address);
  struct refusals refused = {0};
  char err[512] = "";
  assert_int_equal(
      rrdcached_batch_update(batch, s.rows, 4, record, &refused, err, 512), 0);
  rrdcached_batch_free(batch);
  standin_join(&d);
  assert_int_equal(refused.count, 2);
  assert_refused(&refused, 0, 1, "No such file: /somewhere/x y\\z");
  assert_refused(&refused, 1, 3, STALE(1800000120, 1800000180));
  char want[sizeof(s.request) + 16];
  fixture_path(want, "BATCH\n.\n%s", s.request); /* the probe first */
  assert_string_equal(d.received[0], want);
  assert_int_equal(d.connections, 1);
  stage_end(&s);
}

static void test_answer_whole(void **state) {
  (void)state;
  exchange_with(0);
}

static void test_answer_byte_by_byte(void **state) {
  (void)state;
  exchange_with(1);
}

/* A daemon without BATCH hears the probe and nothing else. */
static void test_batch_refused(void **state) {
  (void)state;
  struct stage s;
  stage_set(&s, "batch-refused");
  struct standin d = {.script = REFUSE};
  standin_start(&d, s.socket_path);
  struct rrdcached_batch *batch = batch_new(s.address);
  struct refusals refused = {0};
  char err[512] = "", want[PATH_MAX + 64];
  assert_int_equal(
      rrdcached_batch_update(batch, s.rows, 4, record, &refused, err, 512),
      -EOPNOTSUPP);
  fixture_path(want, "%s does not take BATCH: -1 Unknown command: BATCH",
               s.address);
  assert_string_equal(err, want);
  rrdcached_batch_free(batch);
  standin_join(&d);
  assert_int_equal(refused.count, 0);
  assert_string_equal(d.received[0], "BATCH\n.\n");
  assert_int_equal(d.connections, 1); /* and it did not come back */
  stage_end(&s);
}

/* Closed after the batch, unanswered: -ENOTCONN, nothing reported; the
 * next exchange is made on a new connection, asked again. */
static void test_closed_without_answer(void **state) {
  (void)state;
  struct stage s;
  stage_set(&s, "batch-closed");
  struct standin d = {.script = CLOSE_THEN_ANSWER, .answer = STANDIN_ANSWER};
  standin_start(&d, s.socket_path);
  struct rrdcached_batch *batch = batch_new(s.address);
  struct refusals refused = {0};
  char err[512] = "", want[sizeof(s.request) + 64];
  assert_int_equal(
      rrdcached_batch_update(batch, s.rows, 4, record, &refused, err, 512),
      -ENOTCONN);
  fixture_path(want, "the connection to %s broke: Connection reset by peer",
               s.address);
  assert_string_equal(err, want);
  assert_int_equal(refused.count, 0);
  assert_int_equal(
      rrdcached_batch_update(batch, s.rows, 4, record, &refused, err, 512), 0);
  assert_int_equal(refused.count, 2);
  assert_refused(&refused, 0, 1, "No such file: /somewhere/x y\\z");
  rrdcached_batch_free(batch);
  standin_join(&d);
  assert_int_equal(d.connections, 2);
  fixture_path(want, "BATCH\n.\n%s", s.request);
  assert_string_equal(d.received[0], want);
  assert_string_equal(d.received[1], want);
  stage_end(&s);
}

/* An answer that cannot be rrdcached's (3 errors for 4 rows, the second
 * naming a command before the first): the connection is dropped, nothing
 * is reported. */
static void test_malformed_answer(void **state) {
  (void)state;
  struct stage s;
  stage_set(&s, "batch-malformed");
  struct standin d = {.script = ANSWER,
                      .answer = GO_AHEAD "3 errors\n3 a\n2 b\n1 c\n"};
  standin_start(&d, s.socket_path);
  struct rrdcached_batch *batch = batch_new(s.address);
  struct refusals refused = {0};
  char err[512] = "", want[PATH_MAX + 64];
  assert_int_equal(
      rrdcached_batch_update(batch, s.rows, 4, record, &refused, err, 512),
      -ENOTCONN);
  fixture_path(want, "the connection to %s broke: Protocol error", s.address);
  assert_string_equal(err, want);
  assert_int_equal(refused.count, 0);
  rrdcached_batch_free(batch);
  standin_join(&d);
  stage_end(&s);
}

/* Nobody listening; bad addresses. */
static void test_unreachable(void **state) {
  (void)state;
  struct stage s;
  stage_set(&s, "batch-unreachable");
  struct rrdcached_batch *batch = batch_new(s.address);
  struct refusals refused = {0};
  char err[512] = "", want[PATH_MAX + 64];
  assert_int_equal(
      rrdcached_batch_update(batch, s.rows, 4, record, &refused, err, 512),
      -ENOTCONN);
  fixture_path(want, "cannot connect to %s: No such file or directory",
               s.address);
  assert_string_equal(err, want);
  assert_int_equal(rrdcached_batch_connect(batch, err, 512), -ENOTCONN);
  assert_string_equal(err, want);
  rrdcached_batch_free(batch);
  struct rrdcached_batch *none = NULL;
  assert_int_equal(rrdcached_batch_new("", &none), -EINVAL);
  assert_int_equal(rrdcached_batch_new(NULL, &none), -EINVAL);
  assert_null(none);
  stage_end(&s);
}

/* ---- the sink ---------------------------------------------------------- */

#define LOG_MAX 64

struct log {
  pthread_mutex_t lock;
  char lines[LOG_MAX][1024];
  enum rrd_sink_level levels[LOG_MAX];
  int count;
};

static void capture(void *ctx, enum rrd_sink_level level, const char *message) {
  struct log *log = ctx;
  pthread_mutex_lock(&log->lock);
  if (log->count < LOG_MAX) {
    snprintf(log->lines[log->count], sizeof(log->lines[0]), "%s", message);
    log->levels[log->count++] = level;
  }
  pthread_mutex_unlock(&log->lock);
}

static void dump(struct log *log) {
  for (int i = 0; i < log->count; i++)
    fprintf(stderr, "log[%d] %d: %s\n", i, log->levels[i], log->lines[i]);
}

/* Line i is at level, and is before + a whole number of seconds + after
 * (before alone when after is NULL). */
static void assert_line(struct log *log, int i, enum rrd_sink_level level,
                        const char *before, const char *after) {
  if (i >= log->count) {
    dump(log);
    fail_msg("no log line %d", i);
  }
  const char *line = log->lines[i];
  size_t n = strlen(before);
  bool same = log->levels[i] == level && strncmp(line, before, n) == 0;
  if (same && after == NULL)
    same = line[n] == '\0';
  else if (same) {
    size_t digits = strspn(line + n, "0123456789");
    same = digits > 0 && strcmp(line + n + digits, after) == 0;
  }
  if (!same) {
    dump(log);
    fail_msg("log line %d is not \"%s...%s\" at level %d", i, before,
             after ? after : "", (int)level);
  }
}

struct sink_stage {
  bool set; /* for teardown() */
  char proxy_path[PATH_MAX], address[PATH_MAX + 8], daemon_socket[PATH_MAX];
  struct proxy proxy;
  struct log log;
  struct rrd_sink *sink;
};

/* The sink of a test, with its proxy (static, as real above). */
static struct sink_stage stage;

/* After each test with a daemon, whether it passed or not. */
static int teardown(void **state) {
  (void)state;
  if (stage.set) {
    rrd_sink_free(stage.sink);
    stage.sink = NULL;
    proxy_stop(&stage.proxy);
    pthread_mutex_destroy(&stage.log.lock);
    stage.set = false;
  }
  real_end(&real);
  return 0;
}

static void sink_stage_set(struct sink_stage *s, const char *tag,
                           enum proxy_mode mode) {
  memset(s, 0, sizeof(*s));
  real_start(&real, tag, false);
  char dir[PATH_MAX];
  assert_non_null(realpath(real.dir, dir));
  fixture_path(s->proxy_path, "%s/proxy", dir);
  fixture_path(s->address, "unix:%s", s->proxy_path);
  fixture_path(s->daemon_socket, "%s", real.daemon.address + 5);
  pthread_mutex_init(&s->log.lock, NULL);
  s->set = true;
  proxy_start(&s->proxy, s->proxy_path, s->daemon_socket, mode);
  struct rrd_sink_options o = {
      .data_dir = real.db,
      .daemon_address = s->address,
      .recheck_seconds = 300,
      .timeout = 2,
      .retry_min = 0.05,
      .retry_max = 0.2,
      .log = capture,
      .log_ctx = &s->log,
  };
  char err[256] = "";
  if (rrd_sink_new(&o, &s->sink, err, sizeof(err)) != 0)
    fail_msg("rrd_sink_new: %s", err);
}

/* The values of row t of guest vmid: exact in binary, distinct per row. */
static void values_at(int vmid, time_t t, double *v) {
  for (size_t i = 0; i < 17; i++)
    v[i] = NAN;
  v[10] = (double)vmid * 1e6 + (double)(t - START);
  v[11] = (double)(t - START) / 4;
}

static void write_rows(struct sink_stage *s, int guests, int times) {
  for (time_t t = START; t < START + times; t++)
    for (int vmid = 100; vmid < 100 + guests; vmid++) {
      double v[17];
      char name[16];
      values_at(vmid, t, v);
      snprintf(name, sizeof(name), "%d", vmid);
      rrd_sink_write(s->sink, &layout_pve_vm_9_0, NULL, name, t, v, 17);
    }
}

static struct rrd_sink_stats stats(struct sink_stage *s) {
  struct rrd_sink_stats st;
  rrd_sink_stats(s->sink, &st);
  return st;
}

static void wait_drained(struct sink_stage *s) {
  for (int i = 0; i < 1000; i++) {
    struct rrd_sink_stats st = stats(s);
    if (st.queued == 0 && st.reachable)
      return;
    usleep(10000);
  }
  dump(&s->log);
  fail_msg("the queue did not drain (%zu rows left)", stats(s).queued);
}

/* Every row of every guest once in the journal, in order, with its values;
 * on disk after the flush. */
static void assert_all_rows(int guests, int times) {
  for (int vmid = 100; vmid < 100 + guests; vmid++) {
    char path[PATH_MAX + 32], want[RRD_ROW_SIZE], have[RRD_ROW_SIZE];
    fixture_path(path, "%s/pve-vm-9.0/%d", real.db, vmid);
    time_t expected[32];
    for (int i = 0; i < times; i++)
      expected[i] = START + i;
    assert_times(&real, path, expected, (size_t)times);
    for (int i = 0; i < times; i++) {
      double v[17];
      values_at(vmid, START + i, v);
      rrd_row_format(&layout_pve_vm_9_0, START + i, v, 17, want, sizeof(want));
      rrdcached_journal_row(&real.daemon, path, START + i, have, sizeof(have));
      assert_string_equal(have, want);
    }
  }
}

static void assert_on_disk(int guests, time_t last) {
  for (int vmid = 100; vmid < 100 + guests; vmid++) {
    char path[PATH_MAX + 32], err[256];
    time_t t = 0;
    fixture_path(path, "%s/pve-vm-9.0/%d", real.db, vmid);
    assert_int_equal(rrd_file_last_update(path, &t, err, sizeof(err)), 0);
    assert_int_equal(t, last);
  }
}

#define GUESTS 3
#define TIMES 5
#define ROWS (GUESTS * TIMES)

/* The answer to the first exchange with rows is lost after the daemon
 * applied them: they are sent again, refused at their own times, and
 * counted as written. */
static void test_sink_answer_lost(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  struct sink_stage *s = &stage;
  sink_stage_set(s, "batch-sink-lost", CUT_FIRST_ROWS);
  /* every row queued before the sender's first exchange: its batches are
   * then one row per guest, oldest first */
  write_rows(s, GUESTS, TIMES);
  proxy_release(&s->proxy);
  wait_drained(s);
  assert_int_equal(rrd_sink_flush(s->sink, NULL, NULL, NULL), 0);
  assert_on_disk(GUESTS, START + TIMES - 1);
  struct rrd_sink_stats st = stats(s);
  rrd_sink_free(s->sink);
  s->sink = NULL;

  /* the first exchange with rows: the first row of each guest, applied */
  proxy_stop(&s->proxy); /* joined: its counts are read without the lock */
  assert_true(s->proxy.cut);
  assert_int_equal(s->proxy.cut_rows, GUESTS);
  assert_string_equal(s->proxy.cut_answer, GO_AHEAD "0 errors\n");
  /* ...and sent again: every row once more than the cut ones, and before
   * each of them, in the same exchange, the writer check whether someone else
   * wrote the file, due at the second row for a file (rrd_store.h): a
   * refusal at the file's start names the row applied before the cut,
   * which is ours */
  assert_int_equal(s->proxy.batch_rows, ROWS + GUESTS + GUESTS);
  assert_int_equal(s->proxy.batch_asks, GUESTS);
  assert_int_equal(s->proxy.single_updates, 0);

  assert_int_equal(st.queued, 0);
  assert_int_equal(st.overflowed, 0);
  const unsigned long long *rows = st.store.rows;
  assert_int_equal(rows[RRD_STORE_WRITTEN] + rows[RRD_STORE_CREATED], ROWS);
  assert_int_equal(rows[RRD_STORE_UNAVAILABLE], GUESTS); /* the cut ones */
  assert_int_equal(rows[RRD_STORE_STALE], 0);
  assert_int_equal(rows[RRD_STORE_FAILED], 0);
  assert_int_equal(rows[RRD_STORE_HELD], 0);
  assert_int_equal(rows[RRD_STORE_FOREIGN], 0);
  assert_int_equal(rows[RRD_STORE_RECOVERED], 0);

  char line[2048], queued[128];
  fixture_path(line, "Connected to rrdcached at %s.", s->address);
  assert_line(&s->log, 0, RRD_SINK_INFO, line, NULL);
  fixture_path(line,
               "Lost the connection to rrdcached at %s (the connection to %s "
               "broke: Connection reset by peer); rows are kept in a queue of "
               "up to 100000 and written once it is back.",
               s->address, s->address);
  assert_line(&s->log, 1, RRD_SINK_ERROR, line, NULL);
  fixture_path(line, "rrdcached at %s is reachable again after ", s->address);
  fixture_path(queued, " s; writing the %d rows queued meanwhile.", ROWS);
  assert_line(&s->log, 2, RRD_SINK_INFO, line, queued);
  if (s->log.count != 3) {
    dump(&s->log);
    fail_msg("%d log lines, expected 3", s->log.count);
  }

  rrdcached_stop(&real.daemon);
  assert_all_rows(GUESTS, TIMES);
}

/* A daemon that does not take BATCH: asked once, then every row through
 * librrd's client, one by one. */
static void test_sink_no_batch(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  struct sink_stage *s = &stage;
  sink_stage_set(s, "batch-sink-none", NO_BATCH);
  proxy_release(&s->proxy);
  write_rows(s, 2, 3);
  wait_drained(s);
  assert_int_equal(rrd_sink_flush(s->sink, NULL, NULL, NULL), 0);
  assert_on_disk(2, START + 2);
  struct rrd_sink_stats st = stats(s);
  rrd_sink_free(s->sink);
  s->sink = NULL;

  proxy_stop(&s->proxy); /* joined: its counts are read without the lock */
  assert_int_equal(s->proxy.refused, 1); /* asked once */
  assert_int_equal(s->proxy.batches, 0);
  assert_int_equal(st.store.rows[RRD_STORE_CREATED], 2);
  assert_int_equal(st.store.rows[RRD_STORE_WRITTEN], 4);
  assert_int_equal(st.store.rows[RRD_STORE_UNAVAILABLE], 0);

  rrdcached_stop(&real.daemon);
  assert_all_rows(2, 3);

  /* One line for the daemon without BATCH, said when connecting found it,
   * before the connection's own line. */
  char line[2048];
  fixture_path(line,
               "rrdcached at %s does not take BATCH (%s does not take BATCH: "
               "-1 Unknown command: BATCH); rows go to it one by one.",
               s->address, s->address);
  assert_line(&s->log, 0, RRD_SINK_WARNING, line, NULL);
  fixture_path(line, "Connected to rrdcached at %s.", s->address);
  assert_line(&s->log, 1, RRD_SINK_INFO, line, NULL);
  if (s->log.count != 2) {
    dump(&s->log);
    fail_msg("%d log lines, expected 2", s->log.count);
  }
}

/* Another writer between two of our rows: the writer check before our second
 * row, in its exchange, finds it out, and the file is held from then on.
 * The row after the writer check, in the same exchange, is newer than theirs
 * and goes in; later rows do not. */
static void test_sink_writer_check_in_batch(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  struct sink_stage *s = &stage;
  sink_stage_set(s, "batch-sink-writer-check", PASS);
  proxy_release(&s->proxy);
  double v[17];
  values_at(100, START, v);
  rrd_sink_write(s->sink, &layout_pve_vm_9_0, NULL, "100", START, v, 17);
  wait_drained(s);

  /* theirs, straight to the daemon */
  char path[PATH_MAX + 32], theirs[RRD_ROW_SIZE], err[512] = "";
  fixture_path(path, "%s/pve-vm-9.0/100", real.db);
  values_at(999, START + 1, v);
  rrd_row_format(&layout_pve_vm_9_0, START + 1, v, 17, theirs, sizeof(theirs));
  struct rrdcached_batch *other = batch_new(real.daemon.address);
  const struct rrdcached_batch_row row = {path, theirs};
  struct refusals refused = {0};
  assert_int_equal(
      rrdcached_batch_update(other, &row, 1, record, &refused, err, 512), 0);
  assert_int_equal(refused.count, 0);
  rrdcached_batch_free(other);

  for (time_t t = START + 2; t <= START + 3; t++) {
    values_at(100, t, v);
    rrd_sink_write(s->sink, &layout_pve_vm_9_0, NULL, "100", t, v, 17);
    wait_drained(s);
  }
  struct rrd_sink_stats st = stats(s);
  rrd_sink_free(s->sink);
  s->sink = NULL;
  proxy_stop(&s->proxy); /* joined: its counts are read without the lock */
  assert_int_equal(s->proxy.batch_asks, 1);
  /* START, then the writer check and START + 2; START + 3 is not sent */
  assert_int_equal(s->proxy.batch_rows, 2 + 1);
  assert_int_equal(s->proxy.single_updates, 0);
  const unsigned long long *rows = st.store.rows;
  assert_int_equal(rows[RRD_STORE_CREATED], 1);
  assert_int_equal(rows[RRD_STORE_WRITTEN], 0);
  assert_int_equal(rows[RRD_STORE_HELD], 2);

  rrdcached_stop(&real.daemon);
  assert_times(&real, path, (time_t[]){START, START + 1, START + 2}, 3);
  char have[RRD_ROW_SIZE];
  rrdcached_journal_row(&real.daemon, path, START + 1, have, sizeof(have));
  assert_string_equal(have, theirs);

  char line[2048], tail[512];
  fixture_path(line, "Connected to rrdcached at %s.", s->address);
  assert_line(&s->log, 0, RRD_SINK_INFO, line, NULL);
  fixture_path(tail,
               "Another writer is updating %s: its last update is %d, "
               "newer than the last row written here (%d).",
               path, START + 1, START);
  if (s->log.count != 2 || strncmp(s->log.lines[1], tail, strlen(tail)) != 0) {
    dump(&s->log);
    fail_msg("expected a line starting \"%s\"", tail);
  }
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_real_refusals, teardown),
      cmocka_unit_test_teardown(test_real_names, teardown),
      cmocka_unit_test_teardown(test_real_many_directories, teardown),
      cmocka_unit_test_teardown(test_real_restart, teardown),
      cmocka_unit_test_teardown(test_real_tcp, teardown),
      cmocka_unit_test(test_answer_whole),
      cmocka_unit_test(test_answer_byte_by_byte),
      cmocka_unit_test(test_batch_refused),
      cmocka_unit_test(test_closed_without_answer),
      cmocka_unit_test(test_malformed_answer),
      cmocka_unit_test(test_unreachable),
      cmocka_unit_test_teardown(test_sink_answer_lost, teardown),
      cmocka_unit_test_teardown(test_sink_no_batch, teardown),
      cmocka_unit_test_teardown(test_sink_writer_check_in_batch, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

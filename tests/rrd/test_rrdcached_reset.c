/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A daemon that resets the connection with a request unread -- what a real
 * rrdcached does when it is stopped while an UPDATE is in flight.  librrd
 * 1.7.2 then hands back the previous request's answer (see
 * rrdcached_socket_failed); the client must see through that and send the
 * request again on a new connection, so the row is not lost.
 *
 * The daemon here is a thread speaking just enough of the protocol: on its
 * first connection it answers one update and closes the connection under
 * the second without reading it; on its second connection it records the
 * request it gets and answers it.  The exact timing of a real daemon's
 * shutdown cannot be had on demand; this one has it every time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_fixture.h"
#include "pvecg/rrdcached_client.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define OK_ANSWER "0 errors, enqueued 1 value(s).\n"

struct fake_daemon {
  int listener;
  pthread_t thread;
  char first[512];  /* the request answered on the first connection */
  char second[512]; /* the request received on the second connection */
};

/* One line from fd into buf (without the newline); false on EOF/error. */
static bool read_line(int fd, char *buf, size_t size) {
  size_t n = 0;
  while (n + 1 < size) {
    char c;
    if (read(fd, &c, 1) != 1)
      return false;
    if (c == '\n')
      break;
    buf[n++] = c;
  }
  buf[n] = '\0';
  return true;
}

/* (no cmocka assertion in this thread: a short write shows as a failed
 * request in the test) */
static void answer(int fd) {
  if (write(fd, OK_ANSWER, strlen(OK_ANSWER)) < 0)
    perror("fake daemon: write");
}

static void *fake_daemon_main(void *arg) {
  struct fake_daemon *d = arg;
  int conn = accept(d->listener, NULL, NULL);
  if (conn < 0)
    return NULL;
  if (read_line(conn, d->first, sizeof(d->first)))
    answer(conn);
  /* wait for the next request, then close with it unread: a reset */
  struct pollfd p = {.fd = conn, .events = POLLIN};
  poll(&p, 1, 5000);
  close(conn);
  /* a client that took the reset for an answer never comes back */
  struct pollfd l = {.fd = d->listener, .events = POLLIN};
  if (poll(&l, 1, 2000) != 1)
    return NULL;
  conn = accept(d->listener, NULL, NULL);
  if (conn < 0)
    return NULL;
  if (read_line(conn, d->second, sizeof(d->second)))
    answer(conn);
  /* stay open until the client disconnects */
  char rest[64];
  while (read(conn, rest, sizeof(rest)) > 0)
    ;
  close(conn);
  return NULL;
}

static void fake_daemon_start(struct fake_daemon *d, const char *socket_path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  assert_true(strlen(socket_path) < sizeof(sa.sun_path));
  strcpy(sa.sun_path, socket_path);
  d->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true(d->listener >= 0);
  assert_int_equal(bind(d->listener, (struct sockaddr *)&sa, sizeof(sa)), 0);
  assert_int_equal(listen(d->listener, 4), 0);
  assert_int_equal(pthread_create(&d->thread, NULL, fake_daemon_main, d), 0);
}

static void test_reset_under_request(void **state) {
  (void)state;
  signal(SIGPIPE, SIG_IGN);
  char *dir = fixture_tmpdir("rrdcached-reset");
  char *real = realpath(dir, NULL); /* librrd sends the file's real path */
  assert_non_null(real);
  char socket_path[300], address[310], file[300], want[400];
  fixture_path(socket_path, "%s/sock", real);
  fixture_path(address, "unix:%s", socket_path);
  fixture_path(file, "%s/100", real);
  free(real);
  struct fake_daemon d = {0};
  fake_daemon_start(&d, socket_path);

  struct rrdcached_client *c = NULL;
  assert_int_equal(rrdcached_client_new(address, &c), 0);
  const struct rrd_access *access = rrdcached_client_access(c);
  char err[512] = "";
  time_t last = 0;
  assert_int_equal(
      access->update(access->ctx, file, "1800000000:1", &last, err, 512), 0);
  assert_int_equal(
      access->update(access->ctx, file, "1800000060:2", &last, err, 512), 0);
  rrdcached_client_free(c); /* disconnects: the daemon thread ends */
  assert_int_equal(pthread_join(d.thread, NULL), 0);
  close(d.listener);

  fixture_path(want, "update %s 1800000000:1", file);
  assert_string_equal(d.first, want);
  /* the row the reset swallowed reached the daemon on a new connection */
  fixture_path(want, "update %s 1800000060:2", file);
  assert_string_equal(d.second, want);
  fixture_remove(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reset_under_request),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/sending/http_sender.c against a loopback server that takes
 * every request (204): the totals count a batch once the caller knows it
 * is in (its next post or finish returned), not when the sender's thread
 * delivered it.  The shipper saves these totals with its cursors: a batch
 * counted before its cursors moved was counted again after a stop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/http_sender.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct server {
  int fd;
  atomic_int answered;
  pthread_t thread;
};

/* One request off c: its head, then Content-Length bytes.  false at EOF. */
static bool read_request(int c) {
  char buf[8192];
  size_t n = 0;
  char *end = NULL;
  while (end == NULL) {
    ssize_t r = read(c, buf + n, sizeof(buf) - 1 - n);
    if (r <= 0)
      return false;
    n += (size_t)r;
    buf[n] = '\0';
    end = strstr(buf, "\r\n\r\n");
  }
  const char *cl = strcasestr(buf, "Content-Length:");
  size_t body = cl != NULL ? strtoul(cl + 15, NULL, 10) : 0;
  size_t have = n - (size_t)(end + 4 - buf);
  for (char sink[512]; have < body;) {
    ssize_t r = read(c, sink, sizeof(sink));
    if (r <= 0)
      return false;
    have += (size_t)r;
  }
  return true;
}

static void *serve(void *arg) {
  struct server *s = arg;
  static const char answer[] = "HTTP/1.1 204 No Content\r\n\r\n";
  for (int c; (c = accept(s->fd, NULL, NULL)) >= 0; close(c))
    while (read_request(c) && write(c, answer, strlen(answer)) > 0)
      atomic_fetch_add(&s->answered, 1);
  return NULL;
}

static void start(struct server *s, char *url, size_t size) {
  s->fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(s->fd >= 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof(a);
  assert_int_equal(bind(s->fd, (struct sockaddr *)&a, len), 0);
  assert_int_equal(getsockname(s->fd, (struct sockaddr *)&a, &len), 0);
  assert_int_equal(listen(s->fd, 4), 0);
  atomic_init(&s->answered, 0);
  snprintf(url, size, "http://127.0.0.1:%u/write", ntohs(a.sin_port));
  assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void test_counted_once_known_in(void **state) {
  (void)state;
  struct server srv;
  char url[64], err[256];
  start(&srv, url, sizeof(url));
  struct http_sender_options o = {.url = url, .timeout = 5};
  struct http_sender *s;
  assert_int_equal(http_sender_open(&o, &s, err, sizeof(err)), 0);
  assert_int_equal(http_sender_post(s, "a v=1\n", 6, "one", err, 256), 0);
  assert_int_equal(http_sender_post(s, "b v=2\n", 6, "two", err, 256), 0);
  /* the thread delivers the second batch meanwhile */
  for (int i = 0; i < 500 && atomic_load(&srv.answered) < 2; i++)
    nanosleep(&(struct timespec){0, 10000000L}, NULL);
  assert_int_equal(atomic_load(&srv.answered), 2);
  nanosleep(&(struct timespec){0, 100000000L}, NULL);
  struct http_sender_stats st;
  http_sender_stats(s, &st);
  assert_int_equal(st.requests, 1);
  assert_int_equal(st.lines, 1);
  assert_int_equal(http_sender_finish(s, err, sizeof(err)), 0);
  http_sender_stats(s, &st);
  assert_int_equal(st.requests, 2);
  assert_int_equal(st.lines, 2);
  http_sender_free(s);
  shutdown(srv.fd, SHUT_RDWR);
  close(srv.fd);
  pthread_join(srv.thread, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counted_once_known_in),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/sending/net_sender.c: --to URLs parsed exactly (IPv6 brackets,
 * ports 1..65535, nothing else accepted); lines sent over TCP arrive
 * byte for byte and are counted; UDP packs whole lines into datagrams of
 * at most 1400 bytes, exactly as many as fit, a longer line alone; a
 * closed port and a listener that never reads give errors, not waits; a
 * stop set ends a wait for room at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/net_sender.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void check_target(const char *url, bool udp, const char *host,
                         const char *port) {
  struct net_target t;
  assert_int_equal(net_target_parse(url, &t), 0);
  assert_int_equal(t.udp, udp);
  assert_string_equal(t.host, host);
  assert_string_equal(t.port, port);
}

static void test_parse(void **state) {
  (void)state;
  check_target("tcp://graphite:2003", false, "graphite", "2003");
  check_target("udp://10.0.0.1:8089", true, "10.0.0.1", "8089");
  check_target("tcp://[::1]:1", false, "::1", "1");
  check_target("tcp://h:65535", false, "h", "65535");
  static const char *const bad[] = {
      "graphite:2003", "http://h:1",     "tcp://h",         "tcp://h:",
      "tcp://:1",      "tcp://h:0",      "tcp://h:65536",   "tcp://h:02003",
      "tcp://h:1x",    "tcp://::1:2003", "tcp://[::1]2003", "tcp://[::1",
      "tcp://a/b:1",   "TCP://h:1",      "tcp://h:123456",  "",
  };
  struct net_target t = {.port = "keep"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    assert_int_equal(net_target_parse(bad[i], &t), -EINVAL);
  assert_int_equal(net_target_parse(NULL, &t), -EINVAL);
  assert_string_equal(t.port, "keep");
}

/* A loopback socket of type on a free port; its port into target. */
static int loopback(int type, struct net_target *target) {
  int fd = socket(AF_INET, type, 0);
  assert_true(fd >= 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
  socklen_t len = sizeof(a);
  assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  if (type == SOCK_STREAM)
    assert_int_equal(listen(fd, 1), 0);
  *target = (struct net_target){.udp = type == SOCK_DGRAM, .host = "127.0.0.1"};
  snprintf(target->port, sizeof(target->port), "%u", ntohs(a.sin_port));
  return fd;
}

static void test_tcp(void **state) {
  (void)state;
  struct net_target t;
  int l = loopback(SOCK_STREAM, &t);
  struct net_sender *s;
  char err[256];
  assert_int_equal(net_sender_open(&t, 5, NULL, &s, err, sizeof(err)), 0);
  int c = accept(l, NULL, NULL);
  assert_true(c >= 0);
  const char text[] = "a.b 1 2\nc.d 3 4\n";
  assert_int_equal(net_sender_send(s, text, strlen(text), err, sizeof(err)), 0);
  assert_int_equal(net_sender_send(s, "x", 1, err, sizeof(err)), -EINVAL);
  assert_int_equal(net_sender_finish(s, err, sizeof(err)), 0);
  assert_int_equal(net_sender_lines_sent(s), 2);
  net_sender_free(s);
  char buf[64];
  size_t got = 0;
  ssize_t n;
  while ((n = read(c, buf + got, sizeof(buf) - got)) > 0)
    got += (size_t)n;
  assert_int_equal(got, strlen(text));
  assert_memory_equal(buf, text, got);
  close(c);
  close(l);
}

/* 100-byte lines: 14 fit in 1400 bytes; a 1500-byte line goes alone. */
static void test_udp_datagrams(void **state) {
  (void)state;
  struct net_target t;
  int r = loopback(SOCK_DGRAM, &t);
  struct net_sender *s;
  char err[256];
  assert_int_equal(net_sender_open(&t, 5, NULL, &s, err, sizeof(err)), 0);
  char line[100], big[1500];
  memset(line, 'l', sizeof(line) - 1);
  line[99] = '\n';
  memset(big, 'b', sizeof(big) - 1);
  big[1499] = '\n';
  for (int i = 0; i < 30; i++)
    assert_int_equal(net_sender_send(s, line, sizeof(line), err, sizeof(err)),
                     0);
  assert_int_equal(net_sender_lines_sent(s), 28); /* two full datagrams */
  assert_int_equal(net_sender_send(s, big, sizeof(big), err, sizeof(err)), 0);
  assert_int_equal(net_sender_send(s, line, sizeof(line), err, sizeof(err)), 0);
  assert_int_equal(net_sender_finish(s, err, sizeof(err)), 0);
  assert_int_equal(net_sender_lines_sent(s), 32);
  net_sender_free(s);
  static const size_t expected[] = {1400, 1400, 200, 1500, 100};
  for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
    char buf[2000];
    ssize_t n = recv(r, buf, sizeof(buf), MSG_DONTWAIT);
    assert_int_equal(n, expected[i]);
    assert_int_equal(buf[n - 1], '\n');
  }
  char buf[8];
  assert_int_equal(recv(r, buf, sizeof(buf), MSG_DONTWAIT), -1);
  close(r);
}

static void test_refused(void **state) {
  (void)state;
  struct net_target t;
  int l = loopback(SOCK_STREAM, &t);
  close(l); /* nothing listens on the port now */
  struct net_sender *s = NULL;
  char err[256] = "";
  assert_int_equal(net_sender_open(&t, 5, NULL, &s, err, sizeof(err)),
                   -ECONNREFUSED);
  assert_null(s);
  assert_non_null(strstr(err, "Connection refused"));
  t = (struct net_target){.host = "no-such-host.invalid", .port = "1"};
  assert_int_equal(net_sender_open(&t, 5, NULL, &s, err, sizeof(err)),
                   -EHOSTUNREACH);
}

/* A peer that never reads: the send fails after the timeout, with the
 * lines the kernel took counted, and nothing is sent after. */
static void test_stalled(void **state) {
  (void)state;
  struct net_target t;
  int l = loopback(SOCK_STREAM, &t);
  struct net_sender *s;
  char err[256];
  assert_int_equal(net_sender_open(&t, 0.3, NULL, &s, err, sizeof(err)), 0);
  int c = accept(l, NULL, NULL);
  assert_true(c >= 0);
  static char chunk[65536];
  for (size_t i = 0; i < sizeof(chunk); i++)
    chunk[i] = i % 64 == 63 ? '\n' : 'x';
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int r = 0;
  size_t chunks = 0;
  while (r == 0 && chunks < 4096) { /* 256 MiB: far beyond any buffer */
    r = net_sender_send(s, chunk, sizeof(chunk), err, sizeof(err));
    chunks++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  assert_int_equal(r, -ETIMEDOUT);
  assert_string_equal(err, "the listener took no data for the timeout");
  double took =
      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  assert_true(took >= 0.3 && took < 5);
  size_t sent = net_sender_lines_sent(s);
  assert_true(sent > 0 && sent < chunks * 1024);
  assert_int_equal(net_sender_send(s, chunk, 64, err, sizeof(err)), -EPIPE);
  assert_int_equal(net_sender_finish(s, err, sizeof(err)), -EPIPE);
  assert_int_equal(net_sender_lines_sent(s), sent);
  net_sender_free(s);
  close(c);
  close(l);
}

/* A stop set while the peer never reads: the send waiting for room gives
 * up at once (-ECANCELED), not after the timeout of 30 s. */
static void test_stopped(void **state) {
  (void)state;
  struct net_target t;
  int l = loopback(SOCK_STREAM, &t);
  struct net_sender *s;
  char err[256];
  static volatile sig_atomic_t stop;
  assert_int_equal(net_sender_open(&t, 30, &stop, &s, err, sizeof(err)), 0);
  int c = accept(l, NULL, NULL);
  assert_true(c >= 0);
  static char chunk[65536];
  for (size_t i = 0; i < sizeof(chunk); i++)
    chunk[i] = i % 64 == 63 ? '\n' : 'x';
  stop = 1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int r = 0;
  size_t chunks = 0;
  while (r == 0 && chunks < 4096) {
    r = net_sender_send(s, chunk, sizeof(chunk), err, sizeof(err));
    chunks++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  assert_int_equal(r, -ECANCELED);
  assert_string_equal(err, "Operation canceled");
  double took =
      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  assert_true(took < 1);
  net_sender_free(s);
  close(c);
  close(l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse),         cmocka_unit_test(test_tcp),
      cmocka_unit_test(test_udp_datagrams), cmocka_unit_test(test_refused),
      cmocka_unit_test(test_stalled),       cmocka_unit_test(test_stopped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

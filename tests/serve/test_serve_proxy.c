/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_proxy.c: a request counts as from the
 * right-most address of X-Forwarded-For's lines that is not the proxy's
 * own only when its peer is the trusted proxy (an IPv4 proxy also as a
 * dual-stack listener's mapped address); from any
 * other peer, without a proxy set, or with a header that is no address,
 * it is the peer's.  And an address as the log names it: the trusted
 * proxy logged as such, every other peer as its address alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

static struct sockaddr_storage peer_of(const char *text) {
  struct sockaddr_storage ss = {0};
  struct sockaddr_in *v4 = (struct sockaddr_in *)(void *)&ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)(void *)&ss;
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1)
    v4->sin_family = AF_INET;
  else if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1)
    v6->sin6_family = AF_INET6;
  else
    fail_msg("no address: %s", text);
  return ss;
}

/* The client's address as text. */
static const char *client(const struct serve_proxy *p, const char *peer,
                          const char *xff) {
  static char text[INET6_ADDRSTRLEN];
  struct sockaddr_storage ss = peer_of(peer), buf;
  const struct sockaddr *sa =
      serve_proxy_client(p, (const struct sockaddr *)&ss, xff, &buf);
  const void *a =
      sa->sa_family == AF_INET
          ? (const void *)&((const struct sockaddr_in *)(const void *)sa)
                ->sin_addr
          : (const void *)&((const struct sockaddr_in6 *)(const void *)sa)
                ->sin6_addr;
  assert_non_null(inet_ntop(sa->sa_family, a, text, sizeof(text)));
  return text;
}

/* serve_address_text of peer with proxy p (NULL: none) into a buffer of
 * size bytes. */
static const char *named(const struct serve_proxy *p, const char *peer,
                         size_t size) {
  static char text[128];
  struct sockaddr_storage ss = peer_of(peer);
  memset(text, 'x', sizeof(text));
  serve_address_text(p, (const struct sockaddr *)&ss, text, size);
  return text;
}

static void test_address_text(void **state) {
  (void)state;
  struct serve_proxy p = {0};
  assert_int_equal(serve_proxy_parse("127.0.0.1", &p), 0);
  assert_string_equal(named(NULL, "192.0.2.7", 128), "192.0.2.7");
  assert_string_equal(named(&p, "192.0.2.7", 128), "192.0.2.7");
  assert_string_equal(named(&p, "127.0.0.1", 128),
                      "127.0.0.1 (the trusted proxy)");
  /* a dual-stack listener's mapped address of an IPv4 proxy */
  assert_string_equal(named(&p, "::ffff:127.0.0.1", 128),
                      "::ffff:127.0.0.1 (the trusted proxy)");
  assert_string_equal(named(NULL, "127.0.0.1", 128), "127.0.0.1");
  assert_string_equal(named(&p, "2001:db8::1", 128), "2001:db8::1");
  /* cut, never past the buffer */
  assert_string_equal(named(&p, "127.0.0.1", 16), "127.0.0.1 (the ");
  char none[8];
  serve_address_text(&p, NULL, none, sizeof(none));
  assert_string_equal(none, "?");
}

static void test_parse(void **state) {
  (void)state;
  struct serve_proxy p = {0};
  assert_int_equal(serve_proxy_parse("127.0.0.1", &p), 0);
  assert_true(p.set);
  assert_int_equal(p.family, AF_INET);
  assert_int_equal(serve_proxy_parse("::1", &p), 0);
  assert_int_equal(p.family, AF_INET6);
  assert_int_equal(serve_proxy_parse("localhost", &p), -EINVAL);
  assert_int_equal(serve_proxy_parse("127.0.0.1:80", &p), -EINVAL);
  assert_int_equal(serve_proxy_parse("", &p), -EINVAL);
}

static void test_client(void **state) {
  (void)state;
  struct serve_proxy p;
  assert_int_equal(serve_proxy_parse("127.0.0.1", &p), 0);
  /* the proxy's request: the address it wrote, the last */
  assert_string_equal(client(&p, "127.0.0.1", "192.0.2.7"), "192.0.2.7");
  assert_string_equal(client(&p, "127.0.0.1", "10.9.9.9, 192.0.2.7"),
                      "192.0.2.7");
  assert_string_equal(client(&p, "127.0.0.1", " 2001:db8::5 "), "2001:db8::5");
  assert_string_equal(client(&p, "::ffff:127.0.0.1", "192.0.2.7"), "192.0.2.7");
  /* no usable header: the proxy itself */
  assert_string_equal(client(&p, "127.0.0.1", NULL), "127.0.0.1");
  assert_string_equal(client(&p, "127.0.0.1", ""), "127.0.0.1");
  assert_string_equal(client(&p, "127.0.0.1", "192.0.2.7,"), "127.0.0.1");
  assert_string_equal(client(&p, "127.0.0.1", "unknown"), "127.0.0.1");
  assert_string_equal(client(&p, "127.0.0.1", "192.0.2.7 x"), "127.0.0.1");
  /* any other peer: its own address, whatever it writes */
  assert_string_equal(client(&p, "127.0.0.2", "192.0.2.7"), "127.0.0.2");
  assert_string_equal(client(&p, "::1", "192.0.2.7"), "::1");
  /* no proxy set */
  struct serve_proxy none = {0};
  assert_string_equal(client(&none, "127.0.0.1", "192.0.2.7"), "127.0.0.1");
  assert_string_equal(client(NULL, "127.0.0.1", "192.0.2.7"), "127.0.0.1");
  /* every line of the header, joined: HAProxy adds its own after a
   * client's forged one; the right-most address that is not the proxy */
  assert_string_equal(client(&p, "127.0.0.1", "203.0.113.9,192.0.2.7"),
                      "192.0.2.7");
  assert_string_equal(
      client(&p, "127.0.0.1", "203.0.113.9, 192.0.2.7, 127.0.0.1"),
      "192.0.2.7");
  assert_string_equal(client(&p, "127.0.0.1", "127.0.0.1"), "127.0.0.1");
  assert_string_equal(client(&p, "127.0.0.1", "192.0.2.7, garbage, 127.0.0.1"),
                      "127.0.0.1");
  assert_string_equal(client(&p, "127.0.0.1", ",192.0.2.7"), "192.0.2.7");
  /* an IPv6 proxy */
  assert_int_equal(serve_proxy_parse("::1", &p), 0);
  assert_string_equal(client(&p, "::1", "192.0.2.8"), "192.0.2.8");
  assert_string_equal(client(&p, "127.0.0.1", "192.0.2.8"), "127.0.0.1");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse),
      cmocka_unit_test(test_client),
      cmocka_unit_test(test_address_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/util/host_port.c: "HOST:PORT" and "[V6]:PORT" split into
 * the host without brackets and a pointer to the port's text, which is
 * passed on unchecked (0, 65535 and 65536 alike: each caller has its own
 * rule); -EINVAL for no ':', a second ':' outside brackets, an empty host,
 * a '/' in it, or a host that does not fit, and never a byte written past
 * host[size].
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/host_port.h"

#include <string.h>

#define CANARY '#'
#define SLACK 8

/* Splits text into a host buffer of size bytes followed by SLACK canary
 * bytes; checks the result, and on success the host and that *port points
 * into text right after the separator, at want_port.  The bytes past
 * host[size] must never change. */
static void check_split(const char *text, size_t size, int want_r,
                        const char *want_host, const char *want_port) {
  char host[300 + SLACK];
  const char *port = NULL;
  int r;

  assert_true(size + SLACK <= sizeof(host));
  memset(host, CANARY, sizeof(host));
  r = host_port_split(text, host, size, &port);
  if (r != want_r)
    fail_msg("host_port_split(\"%s\", %zu) = %d, want %d", text, size, r,
             want_r);
  if (r == 0) {
    size_t port_at = strlen(text) - strlen(want_port);

    assert_string_equal(host, want_host);
    assert_ptr_equal(port, text + port_at);
    assert_int_equal(text[port_at - 1], ':');
    assert_string_equal(port, want_port);
  }
  for (size_t i = size; i < size + SLACK; i++)
    assert_int_equal(host[i], CANARY);
}

static void test_ipv4_and_names(void **state) {
  (void)state;
  check_split("127.0.0.1:25826", 64, 0, "127.0.0.1", "25826");
  check_split("0.0.0.0:8006", 64, 0, "0.0.0.0", "8006");
  check_split("localhost:80", 64, 0, "localhost", "80");
  check_split("pve1.example.org:2003", 64, 0, "pve1.example.org", "2003");
  check_split("a:1", 64, 0, "a", "1");
}

static void test_bracketed_ipv6(void **state) {
  (void)state;
  check_split("[::1]:25826", 64, 0, "::1", "25826");
  check_split("[::]:443", 64, 0, "::", "443");
  check_split("[2001:db8::17]:8080", 64, 0, "2001:db8::17", "8080");
  check_split("[fe80::1%eth0]:443", 64, 0, "fe80::1%eth0", "443");
  check_split("[127.0.0.1]:80", 64, 0, "127.0.0.1", "80");
}

/* The port's text is the caller's to check: the split passes on any. */
static void test_port_text_is_passed_on(void **state) {
  (void)state;
  check_split("host:0", 64, 0, "host", "0");
  check_split("host:65535", 64, 0, "host", "65535");
  check_split("host:65536", 64, 0, "host", "65536");
  check_split("host:http", 64, 0, "host", "http");
  check_split("host:-1", 64, 0, "host", "-1");
  check_split("host:80/x", 64, 0, "host", "80/x");
  check_split("[::1]:0", 64, 0, "::1", "0");
  check_split("[::1]:65536", 64, 0, "::1", "65536");
  /* An empty port after the ':' is a port text too, refused later. */
  check_split("host:", 64, 0, "host", "");
  check_split("[::1]:", 64, 0, "::1", "");
}

static void test_no_separator(void **state) {
  (void)state;
  check_split("", 64, -EINVAL, NULL, NULL);
  check_split("localhost", 64, -EINVAL, NULL, NULL);
  check_split("127.0.0.1", 64, -EINVAL, NULL, NULL);
  check_split("[::1]", 64, -EINVAL, NULL, NULL);
  check_split("[::1]80", 64, -EINVAL, NULL, NULL);
  check_split("[::1] :80", 64, -EINVAL, NULL, NULL);
  check_split("[::1", 64, -EINVAL, NULL, NULL);
  check_split("[::1:80", 64, -EINVAL, NULL, NULL);
  check_split("[", 64, -EINVAL, NULL, NULL);
}

/* An IPv6 address without brackets is ambiguous: its last ':' might be a
 * separator or part of the address. */
static void test_second_colon_outside_brackets(void **state) {
  (void)state;
  check_split("::1:80", 64, -EINVAL, NULL, NULL);
  check_split("2001:db8::17:8080", 64, -EINVAL, NULL, NULL);
  check_split("a:b:c", 64, -EINVAL, NULL, NULL);
  check_split("host::80", 64, -EINVAL, NULL, NULL);
  check_split("x[::1]:80", 64, -EINVAL, NULL, NULL);
  check_split("::", 64, -EINVAL, NULL, NULL);
}

/* The same rule after the brackets: "[::1]:80:90" has a second ':'
 * outside them. */
static void test_second_colon_after_brackets(void **state) {
  (void)state;
  check_split("[::1]:80:90", 64, -EINVAL, NULL, NULL);
  check_split("[::1]::80", 64, -EINVAL, NULL, NULL);
}

static void test_empty_host(void **state) {
  (void)state;
  check_split(":80", 64, -EINVAL, NULL, NULL);
  check_split(":", 64, -EINVAL, NULL, NULL);
  check_split("[]:80", 64, -EINVAL, NULL, NULL);
  check_split("[]:", 64, -EINVAL, NULL, NULL);
}

static void test_slash_in_host(void **state) {
  (void)state;
  check_split("a/b:80", 64, -EINVAL, NULL, NULL);
  check_split("/run/pvecg.sock:80", 64, -EINVAL, NULL, NULL);
  check_split("host/:80", 64, -EINVAL, NULL, NULL);
  check_split("[::1/128]:80", 64, -EINVAL, NULL, NULL);
  check_split("[/]:80", 64, -EINVAL, NULL, NULL);
}

/* The host and its NUL must fit host[size]: length size - 1 is the most. */
static void test_host_that_does_not_fit(void **state) {
  char text[300], want[300];

  (void)state;
  check_split("abcd:80", 5, 0, "abcd", "80");
  check_split("abcd:80", 4, -EINVAL, NULL, NULL);
  check_split("abcd:80", 1, -EINVAL, NULL, NULL);
  check_split("abcd:80", 0, -EINVAL, NULL, NULL);
  check_split("a:80", 2, 0, "a", "80");
  check_split("a:80", 1, -EINVAL, NULL, NULL);
  check_split("[::1]:80", 4, 0, "::1", "80");
  check_split("[::1]:80", 3, -EINVAL, NULL, NULL);
  check_split("[::1]:80", 0, -EINVAL, NULL, NULL);

  /* A 255-byte name in a 256-byte buffer, then one byte more. */
  memset(want, 'h', 255);
  want[255] = '\0';
  memcpy(text, want, 255);
  memcpy(text + 255, ":1", 3);
  check_split(text, 256, 0, want, "1");
  check_split(text, 255, -EINVAL, NULL, NULL);
  text[255] = 'h';
  memcpy(text + 256, ":1", 3);
  check_split(text, 256, -EINVAL, NULL, NULL);
}

static void test_garbage(void **state) {
  (void)state;
  check_split("[a]b:80", 64, -EINVAL, NULL, NULL);
  check_split("[::1]]:80", 64, -EINVAL, NULL, NULL);
  check_split("[[::1]]:80", 64, -EINVAL, NULL, NULL);
  check_split("[:80", 64, -EINVAL, NULL, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ipv4_and_names),
      cmocka_unit_test(test_bracketed_ipv6),
      cmocka_unit_test(test_port_text_is_passed_on),
      cmocka_unit_test(test_no_separator),
      cmocka_unit_test(test_second_colon_outside_brackets),
      cmocka_unit_test(test_second_colon_after_brackets),
      cmocka_unit_test(test_empty_host),
      cmocka_unit_test(test_slash_in_host),
      cmocka_unit_test(test_host_that_does_not_fit),
      cmocka_unit_test(test_garbage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

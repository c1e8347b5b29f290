/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_auth.c: the token file's two forms and what it
 * refuses, every way an Authorization header can be right or wrong (the
 * scheme in any case, the PVEAPIToken form with and without a token id to
 * match, secrets one byte short, long or off), and the constant-time
 * comparison's answers at its edges (no padding byte can stand in for a
 * missing one, nothing past SERVE_TOKEN_MAX is equal).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_auth.h"

#include <errno.h>
#include <string.h>

#define SECRET "12345678-1234-1234-1234-1234567890ab"

static struct serve_token token;
static const char *why;

static int parse(const char *text) {
  memset(&token, 0x5a, sizeof(token));
  why = NULL;
  return serve_token_parse(text, strlen(text), &token, &why);
}

static void check_token(const char *text, const char *id, const char *secret) {
  assert_int_equal(parse(text), 0);
  assert_int_equal(token.id_len, strlen(id));
  assert_memory_equal(token.id, id, strlen(id));
  assert_int_equal(token.secret_len, strlen(secret));
  assert_memory_equal(token.secret, secret, strlen(secret));
  /* the comparison relies on the padding */
  for (size_t i = token.secret_len; i < SERVE_TOKEN_MAX; i++)
    assert_int_equal(token.secret[i], 0);
  for (size_t i = token.id_len; i < SERVE_TOKEN_MAX; i++)
    assert_int_equal(token.id[i], 0);
}

static void check_refused(const char *text, const char *message) {
  assert_int_equal(parse(text), -EINVAL);
  assert_non_null(why);
  assert_string_equal(why, message);
}

static void test_token_file(void **state) {
  (void)state;
  check_token(SECRET, "", SECRET);
  check_token(SECRET "\n", "", SECRET);
  check_token(SECRET "\r\n# a comment\n", "", SECRET);
  check_token("root@pam!monitoring=" SECRET "\n", "root@pam!monitoring",
              SECRET);
  check_token("a@b!c==x=y", "a@b!c==x", "y");
  /* base64 with its padding: no '@' and '!' before it, all secret */
  check_token("c2VjcmV0IHRva2Vu==\n", "", "c2VjcmV0IHRva2Vu==");
  /* not the USER@REALM!TOKENID shape: all secret */
  check_token("abc!def=ghi", "", "abc!def=ghi");
  check_token("@b!c=d", "", "@b!c=d");
  check_token("a@!c=d", "", "a@!c=d");
  check_token("a@b!=d", "", "a@b!=d");
  char longest[SERVE_TOKEN_MAX + 2];
  memset(longest, 'x', SERVE_TOKEN_MAX);
  longest[SERVE_TOKEN_MAX] = '\0';
  assert_int_equal(parse(longest), 0);
  assert_int_equal(token.secret_len, SERVE_TOKEN_MAX);
}

static void test_token_file_refused(void **state) {
  (void)state;
  check_refused("", "its first line is empty");
  check_refused("\n" SECRET "\n", "its first line is empty");
  check_refused("\r\n", "its first line is empty");
  check_refused("root@pam!monitoring=\n", "no secret after the '='");
  check_refused("two words", "its first line holds a space, a control "
                             "character or a byte that is not ASCII");
  check_refused("tab\there", "its first line holds a space, a control "
                             "character or a byte that is not ASCII");
  check_refused("caf\xc3\xa9", "its first line holds a space, a control "
                               "character or a byte that is not ASCII");
  char longer[SERVE_TOKEN_MAX + 2];
  memset(longer, 'x', SERVE_TOKEN_MAX + 1);
  longer[SERVE_TOKEN_MAX + 1] = '\0';
  check_refused(longer,
                "its first line is too long (at most 256 bytes of secret)");
  /* a NUL inside the line is not ASCII text either */
  assert_int_equal(serve_token_parse("ab\0cd", 5, &token, &why), -EINVAL);
}

static enum serve_auth check(const char *header) {
  return serve_auth_check(&token, header);
}

static void test_bearer(void **state) {
  (void)state;
  assert_int_equal(parse(SECRET), 0);
  assert_int_equal(check(NULL), SERVE_AUTH_MISSING);
  assert_int_equal(check(""), SERVE_AUTH_MISSING);
  assert_int_equal(check("Bearer " SECRET), SERVE_AUTH_OK);
  assert_int_equal(check("bearer " SECRET), SERVE_AUTH_OK);
  assert_int_equal(check("BEARER " SECRET), SERVE_AUTH_OK);
  assert_int_equal(check("Bearer   " SECRET), SERVE_AUTH_OK);
  assert_int_equal(check("Bearer " SECRET "0"), SERVE_AUTH_WRONG);
  assert_int_equal(check("Bearer 12345678-1234-1234-1234-1234567890a"),
                   SERVE_AUTH_WRONG);
  assert_int_equal(check("Bearer 12345678-1234-1234-1234-1234567890aB"),
                   SERVE_AUTH_WRONG);
  assert_int_equal(check("Bearer 02345678-1234-1234-1234-1234567890ab"),
                   SERVE_AUTH_WRONG);
  assert_int_equal(check("Bearer "), SERVE_AUTH_WRONG);
  assert_int_equal(check("Bearer " SECRET " "), SERVE_AUTH_WRONG);
  assert_int_equal(check("Bearer" SECRET), SERVE_AUTH_SCHEME);
  assert_int_equal(check("Basic cm9vdDpzZWNyZXQ="), SERVE_AUTH_SCHEME);
  assert_int_equal(check(SECRET), SERVE_AUTH_SCHEME);
  assert_int_equal(check("Bearer"), SERVE_AUTH_SCHEME);
}

static void test_api_token_any_id(void **state) {
  (void)state;
  assert_int_equal(parse(SECRET), 0);
  assert_int_equal(check("PVEAPIToken=root@pam!monitoring=" SECRET),
                   SERVE_AUTH_OK);
  assert_int_equal(check("pveapitoken=x@y!z=" SECRET), SERVE_AUTH_OK);
  /* the secret is what follows the last '=' */
  assert_int_equal(check("PVEAPIToken=" SECRET), SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken=a@b!c=" SECRET "="), SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken=a@b!c=x" SECRET), SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken=a@b!c"), SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken a@b!c=" SECRET), SERVE_AUTH_SCHEME);
}

static void test_api_token_with_id(void **state) {
  (void)state;
  assert_int_equal(parse("root@pam!monitoring=" SECRET), 0);
  assert_int_equal(check("PVEAPIToken=root@pam!monitoring=" SECRET),
                   SERVE_AUTH_OK);
  assert_int_equal(check("PVEAPIToken=root@pam!other=" SECRET),
                   SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken=root@pam!monitoring=" SECRET "0"),
                   SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken=root@pam!monitorin=" SECRET),
                   SERVE_AUTH_WRONG);
  /* Bearer carries the secret alone, never the token id */
  assert_int_equal(check("Bearer " SECRET), SERVE_AUTH_OK);
  assert_int_equal(check("Bearer root@pam!monitoring=" SECRET),
                   SERVE_AUTH_WRONG);
}

static void test_equal(void **state) {
  unsigned char expected[SERVE_TOKEN_MAX] = "abc";
  char longer[SERVE_TOKEN_MAX + 1];
  (void)state;
  assert_true(serve_auth_equal(expected, 3, "abc", 3));
  assert_false(serve_auth_equal(expected, 3, "abd", 3));
  assert_false(serve_auth_equal(expected, 3, "ab", 2));
  /* the padding is zeros: a zero byte given cannot stand in for it */
  assert_false(serve_auth_equal(expected, 3, "abc\0", 4));
  assert_false(serve_auth_equal(expected, 3, "abcd", 4));
  memset(expected, 'x', sizeof(expected));
  memset(longer, 'x', sizeof(longer));
  assert_true(
      serve_auth_equal(expected, SERVE_TOKEN_MAX, longer, SERVE_TOKEN_MAX));
  assert_false(
      serve_auth_equal(expected, SERVE_TOKEN_MAX, longer, SERVE_TOKEN_MAX + 1));
  assert_false(
      serve_auth_equal(expected, SERVE_TOKEN_MAX, longer, SERVE_TOKEN_MAX - 1));
  longer[SERVE_TOKEN_MAX - 1] = 'y';
  assert_false(
      serve_auth_equal(expected, SERVE_TOKEN_MAX, longer, SERVE_TOKEN_MAX));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_token_file),
      cmocka_unit_test(test_token_file_refused),
      cmocka_unit_test(test_bearer),
      cmocka_unit_test(test_api_token_any_id),
      cmocka_unit_test(test_api_token_with_id),
      cmocka_unit_test(test_equal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

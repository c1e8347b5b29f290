/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_auth.c: every way an Authorization header can
 * be right or wrong (the scheme in any case, the PVEAPIToken form with and
 * without a token id to match, secrets one byte short, long or off), a
 * file of several tokens (each one accepted), a symbol-rich secret
 * accepted whole and refused by its tail, and the constant-time
 * comparison's answers at its edges (no padding byte can stand in for a
 * missing one, nothing past SERVE_TOKEN_MAX is equal).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_auth.h"
#include "serve_token_file.h"

#include <errno.h>
#include <string.h>

#define SECRET "12345678-1234-1234-1234-1234567890ab"

static struct serve_tokens tokens;

static int parse(const char *text) {
  char why[200];
  serve_tokens_free(&tokens);
  return serve_token_file_parse(text, strlen(text), &tokens, why, sizeof(why));
}

static enum serve_auth check(const char *header) {
  return serve_auth_check(&tokens, header, NULL);
}

/* Which token a header matched: the one whose scope goes with it. */
static size_t matched(const char *header) {
  size_t which = 99;
  assert_int_equal(serve_auth_check(&tokens, header, &which), SERVE_AUTH_OK);
  return which;
}

static void test_which_token(void **state) {
  (void)state;
  assert_int_equal(parse("# three tokens\n" SECRET "\n"
                         "root@pam!ab=abcdefgh-abcd-abcd-abcd-abcdefabcdef "
                         "vmids=100\n"
                         "0123456789abcdef pools=x\n"),
                   0);
  assert_int_equal(matched("Bearer " SECRET), 0);
  assert_int_equal(matched("Bearer abcdefgh-abcd-abcd-abcd-abcdefabcdef"), 1);
  assert_int_equal(
      matched("PVEAPIToken=root@pam!ab=abcdefgh-abcd-abcd-abcd-abcdefabcdef"),
      1);
  assert_int_equal(matched("PVEAPIToken=x@y!zz=0123456789abcdef"), 2);
  assert_int_equal(matched("Bearer 0123456789abcdef"), 2);
  assert_non_null(tokens.item[1].scope);
  assert_null(tokens.item[0].scope);
  /* the scope words are no part of the secret */
  assert_int_equal(check("Bearer 0123456789abcdef pools=x"), SERVE_AUTH_WRONG);
  size_t which = 42;
  assert_int_equal(serve_auth_check(&tokens, "Bearer nope", &which),
                   SERVE_AUTH_WRONG);
  assert_int_equal(serve_auth_check(&tokens, NULL, &which), SERVE_AUTH_MISSING);
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
  /* the secret is what follows the '=' after the token id */
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

/* A secret that holds '=' (base64 ends in it): the file and the header
 * split USER@REALM!TOKENID=SECRET alike, at the '=' after the id. */
static void test_secret_with_equals(void **state) {
  (void)state;
  assert_int_equal(parse("root@pam!b64=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==\n"
                         "user@pve!xy=a=b=c=d=e=f=g=h=i=j\n"),
                   0);
  assert_int_equal(matched("PVEAPIToken=root@pam!b64="
                           "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA=="),
                   0);
  assert_int_equal(matched("Bearer Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA=="), 0);
  assert_int_equal(matched("PVEAPIToken=user@pve!xy=a=b=c=d=e=f=g=h=i=j"), 1);
  assert_int_equal(check("PVEAPIToken=root@pam!b64="
                         "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA="),
                   SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken=root@pam!b64=Zm9vYmFyYmF6cXV4MTIzNDU2"
                         "Nzg5MA==="),
                   SERVE_AUTH_WRONG);
  /* the log names the token by its id, not by a piece of its secret */
  char user[64];
  serve_auth_user(&tokens,
                  "PVEAPIToken=root@pam!b64=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==",
                  user, sizeof(user));
  assert_string_equal(user, "root@pam!b64");
}

static void test_several_tokens(void **state) {
  (void)state;
  assert_int_equal(parse("# two tokens\n" SECRET "\n"
                         "root@pam!monitoring=abcdefgh-abcd-abcd-abcd-"
                         "abcdefabcdef\n"),
                   0);
  assert_int_equal(check("Bearer " SECRET), SERVE_AUTH_OK);
  assert_int_equal(check("PVEAPIToken=x@y!z=" SECRET), SERVE_AUTH_OK);
  assert_int_equal(check("Bearer abcdefgh-abcd-abcd-abcd-abcdefabcdef"),
                   SERVE_AUTH_OK);
  assert_int_equal(check("PVEAPIToken=root@pam!monitoring=abcdefgh-abcd-"
                         "abcd-abcd-abcdefabcdef"),
                   SERVE_AUTH_OK);
  /* the second token's id belongs to its own secret only */
  assert_int_equal(
      check("PVEAPIToken=root@pam!other=abcdefgh-abcd-abcd-abcd-abcdefabcdef"),
      SERVE_AUTH_WRONG);
  assert_int_equal(check("Bearer # two tokens"), SERVE_AUTH_WRONG);
  assert_int_equal(
      check("Bearer " SECRET "abcdefgh-abcd-abcd-abcd-abcdefabcdef"),
      SERVE_AUTH_WRONG);
}

/* A generated secret holding '@', '!' and '=': the whole line is the
 * secret, its tail after the '=' lets no one in. */
static void test_symbol_rich_secret(void **state) {
  (void)state;
  assert_int_equal(parse("a@b!c=defghijklmnopq\n"), 0);
  assert_int_equal(check("Bearer a@b!c=defghijklmnopq"), SERVE_AUTH_OK);
  assert_int_equal(check("Bearer defghijklmnopq"), SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken=a@b!c=defghijklmnopq"), SERVE_AUTH_WRONG);
  assert_int_equal(check("PVEAPIToken=root@pam!mon=defghijklmnopq"),
                   SERVE_AUTH_WRONG);
}

/* The log's user= names only a token id of the file, never client text. */
static void test_user_for_the_log(void **state) {
  char user[64];
  (void)state;
  assert_int_equal(parse(SECRET "\nroot@pam!grafana=" SECRET "x\n"), 0);
  serve_auth_user(&tokens, "PVEAPIToken=root@pam!grafana=nope", user,
                  sizeof(user));
  assert_string_equal(user, "root@pam!grafana");
  /* the id ends at the first '=' after the '!': a wrong secret with '=' */
  serve_auth_user(&tokens, "pveapitoken=root@pam!grafana=a=b", user,
                  sizeof(user));
  assert_string_equal(user, "root@pam!grafana");
  serve_auth_user(&tokens, "PVEAPIToken=root@pam!other=nope", user,
                  sizeof(user));
  assert_string_equal(user, "-");
  serve_auth_user(&tokens, "PVEAPIToken=" SECRET, user, sizeof(user));
  assert_string_equal(user, "-");
  serve_auth_user(&tokens, "Bearer root@pam!grafana", user, sizeof(user));
  assert_string_equal(user, "-");
  serve_auth_user(&tokens, NULL, user, sizeof(user));
  assert_string_equal(user, "-");
  /* too long for the buffer: not cut, left out */
  serve_auth_user(&tokens, "PVEAPIToken=root@pam!grafana=x", user, 8);
  assert_string_equal(user, "-");
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
      cmocka_unit_test(test_bearer),
      cmocka_unit_test(test_api_token_any_id),
      cmocka_unit_test(test_api_token_with_id),
      cmocka_unit_test(test_several_tokens),
      cmocka_unit_test(test_secret_with_equals),
      cmocka_unit_test(test_symbol_rich_secret),
      cmocka_unit_test(test_user_for_the_log),
      cmocka_unit_test(test_equal),
      cmocka_unit_test(test_which_token),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  serve_tokens_free(&tokens);
  return failed;
}

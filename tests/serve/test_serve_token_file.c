/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_token_file.c: the token file's lines (bare
 * secrets, Proxmox's USER@REALM!TOKENID=SECRET, comments, blank lines,
 * CRLF, several tokens), the symbol-rich secret that only looks like the
 * Proxmox form and is taken whole, and every refusal with its exact
 * message and line number.
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
#define OTHER "abcdefgh-abcd-abcd-abcd-abcdefabcdef"
#define NOT_VISIBLE                                                            \
  "it holds a space, a control character or a byte that is not ASCII"
#define SHORT                                                                  \
  "the secret is shorter than 16 bytes: make a longer one (openssl rand -hex " \
  "32)"

static struct serve_tokens tokens;
static char why[200];

static int parse_n(const char *text, size_t n) {
  serve_tokens_free(&tokens);
  memset(why, 0, sizeof(why));
  return serve_token_file_parse(text, n, &tokens, why, sizeof(why));
}

static int parse(const char *text) { return parse_n(text, strlen(text)); }

/* tokens.item[i] is id and secret, zero-padded. */
static void check_item(size_t i, const char *id, const char *secret) {
  const struct serve_token *t = &tokens.item[i];
  assert_true(i < tokens.count);
  assert_int_equal(t->id_len, strlen(id));
  assert_memory_equal(t->id, id, strlen(id));
  assert_int_equal(t->secret_len, strlen(secret));
  assert_memory_equal(t->secret, secret, strlen(secret));
  /* the comparison relies on the padding */
  for (size_t k = t->secret_len; k < SERVE_TOKEN_MAX; k++)
    assert_int_equal(t->secret[k], 0);
  for (size_t k = t->id_len; k < SERVE_TOKEN_MAX; k++)
    assert_int_equal(t->id[k], 0);
}

static void check_one(const char *text, const char *id, const char *secret) {
  assert_int_equal(parse(text), 0);
  assert_int_equal(tokens.count, 1);
  check_item(0, id, secret);
}

static void check_refused(const char *text, const char *message) {
  assert_int_equal(parse(text), -EINVAL);
  assert_string_equal(why, message);
  assert_null(tokens.item);
  assert_int_equal(tokens.count, 0);
}

static void test_one_token(void **state) {
  (void)state;
  check_one(SECRET, "", SECRET);
  check_one(SECRET "\n", "", SECRET);
  check_one(SECRET "\r\n", "", SECRET);
  check_one("root@pam!monitoring=" SECRET "\n", "root@pam!monitoring", SECRET);
  check_one("first.last@pve!grafana-1=" SECRET, "first.last@pve!grafana-1",
            SECRET);
  /* the secret is the rest: it may hold '=' */
  check_one("a@pve!t1==" SECRET "=", "a@pve!t1", "=" SECRET "=");
  /* base64 with its padding: all secret */
  check_one("c2VjcmV0IHRva2Vu==\n", "", "c2VjcmV0IHRva2Vu==");
  char longest[SERVE_TOKEN_MAX + 1];
  memset(longest, 'x', SERVE_TOKEN_MAX);
  longest[SERVE_TOKEN_MAX] = '\0';
  check_one(longest, "", longest);
  check_one("0123456789abcdef", "", "0123456789abcdef");
}

/* '@', then '!', then '=' without Proxmox's parts: the whole line. */
static void test_symbol_rich_secret(void **state) {
  (void)state;
  check_one("a@b!c=defghijklmnopq", "", "a@b!c=defghijklmnopq");
  check_one("@pam!monitoring=" SECRET, "", "@pam!monitoring=" SECRET);
  check_one("a:b@pam!monitoring=" SECRET, "", "a:b@pam!monitoring=" SECRET);
  check_one("root@1am!monitoring=" SECRET, "", "root@1am!monitoring=" SECRET);
  check_one("root@pam!m=" SECRET, "", "root@pam!m=" SECRET);
  check_one("root@pam!9lives=" SECRET, "", "root@pam!9lives=" SECRET);
  check_one("root@pam!mon+x=" SECRET, "", "root@pam!mon+x=" SECRET);
  check_one("root@p$m!monitoring=" SECRET, "", "root@p$m!monitoring=" SECRET);
  check_one("root@pam=x!monitoring=" SECRET, "",
            "root@pam=x!monitoring=" SECRET);
  check_one("Q!x@Yz!Ab=Cd%^&*()_+[]{}<>?~", "Q!x@Yz!Ab", "Cd%^&*()_+[]{}<>?~");
}

static void test_several(void **state) {
  (void)state;
  assert_int_equal(parse("# tokens of pvecg serve\n"
                         "\n" SECRET "\r\n"
                         "   \n"
                         "\t\n"
                         "#root@pam!old=" OTHER "\n"
                         "root@pam!monitoring=" OTHER "\n"
                         "a@b!c=defghijklmnopq"),
                   0);
  assert_int_equal(tokens.count, 3);
  check_item(0, "", SECRET);
  check_item(1, "root@pam!monitoring", OTHER);
  check_item(2, "", "a@b!c=defghijklmnopq");
  char many[(SERVE_TOKENS_MAX + 1) * 17 + 1];
  for (size_t i = 0; i < SERVE_TOKENS_MAX + 1; i++)
    memcpy(many + i * 17, "0123456789abcdef\n", 17);
  assert_int_equal(parse_n(many, SERVE_TOKENS_MAX * 17), 0);
  assert_int_equal(tokens.count, SERVE_TOKENS_MAX);
  assert_int_equal(parse_n(many, sizeof(many) - 1), -EINVAL);
  assert_string_equal(why, "it holds more than 1024 tokens");
}

static void test_refused(void **state) {
  (void)state;
  const char *none =
      "it holds no token (one a line: SECRET or USER@REALM!TOKENID=SECRET)";
  check_refused("", none);
  check_refused("\n\r\n  \n# only a comment\n", none);
  check_refused(SECRET "\nroot@pam!monitoring=\n",
                "line 2: no secret after the '='");
  check_refused("two words and more", "line 1: " NOT_VISIBLE);
  check_refused("# c\n\n" SECRET " \n", "line 3: " NOT_VISIBLE);
  check_refused(" " SECRET, "line 1: " NOT_VISIBLE);
  check_refused(SECRET "\ntab\there-0123456789", "line 2: " NOT_VISIBLE);
  check_refused(SECRET "\x7f", "line 1: " NOT_VISIBLE);
  check_refused("caf\xc3\xa9-0123456789abcdef", "line 1: " NOT_VISIBLE);
  check_refused(SECRET "\r\r\n", "line 1: " NOT_VISIBLE);
  check_refused("\x1b[31m" SECRET, "line 1: " NOT_VISIBLE);
  check_refused("0123456789abcde", "line 1: " SHORT);
  check_refused(SECRET "\n\n\nshort\n", "line 4: " SHORT);
  check_refused("root@pam!monitoring=0123456789abcde", "line 1: " SHORT);
  char longer[SERVE_TOKEN_MAX + 2];
  memset(longer, 'x', SERVE_TOKEN_MAX + 1);
  longer[SERVE_TOKEN_MAX + 1] = '\0';
  check_refused(longer, "line 1: it is too long (at most 256 bytes of secret)");
  /* a NUL inside a line is a control character too */
  assert_int_equal(parse_n(SECRET "\0" SECRET, 2 * strlen(SECRET) + 1),
                   -EINVAL);
  assert_string_equal(why, "line 1: " NOT_VISIBLE);
}

/* No message holds the text of a line (it may be a secret). */
static void test_message_never_holds_the_line(void **state) {
  (void)state;
  const char *bad[] = {"secret with a space", "shortsecret",
                       "root@pam!monitoring=tooshort", "caf\xc3\xa9"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    assert_int_equal(parse(bad[i]), -EINVAL);
    assert_null(strstr(why, "secret with"));
    assert_null(strstr(why, "shortsecret"));
    assert_null(strstr(why, "tooshort"));
    assert_null(strstr(why, "caf"));
  }
}

static int teardown(void **state) {
  (void)state;
  serve_tokens_free(&tokens);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_token),
      cmocka_unit_test(test_symbol_rich_secret),
      cmocka_unit_test(test_several),
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_message_never_holds_the_line),
  };
  return cmocka_run_group_tests(tests, NULL, teardown);
}

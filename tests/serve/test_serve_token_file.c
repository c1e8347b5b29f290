/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_token_file.c: the token file's lines (bare
 * secrets, Proxmox's USER@REALM!TOKENID=SECRET, comments, blank lines,
 * CRLF, several tokens), the symbol-rich secret that only looks like the
 * Proxmox form and is taken whole, scopes (vmids=, pools=, @CLUSTER) and
 * what they see, and every refusal with its exact message and line
 * number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_auth.h"
#include "serve_scope.h"
#include "serve_token_file.h"

#include "pvecg/rrd_layout.h"

#include <errno.h>
#include <stdio.h>
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
  /* each its own secret: no two lines may share one */
  char many[(SERVE_TOKENS_MAX + 1) * 17 + 1];
  for (size_t i = 0; i < SERVE_TOKENS_MAX + 1; i++)
    snprintf(many + i * 17, 18, "0123456789ab%04zx\n", i);
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
  /* the first space or tab ends the secret: what follows is a scope */
  check_refused("two words and more", "line 1: " SHORT);
  check_refused("# c\n\n" SECRET " and more\n",
                "line 3: scope word 1 is neither vmids=VMID,... nor "
                "pools=POOL,...");
  check_refused(" " SECRET, "line 1: " NOT_VISIBLE);
  check_refused("\t" SECRET, "line 1: " NOT_VISIBLE);
  check_refused(SECRET "\ntab\there-0123456789", "line 2: " SHORT);
  check_refused(SECRET " vmids=100\x7f", "line 1: " NOT_VISIBLE);
  check_refused(SECRET "\n" SECRET " vmids=100",
                "line 2: the same secret as line 1: make each line's own");
  check_refused(SECRET "\nroot@pam!mon=" SECRET,
                "line 2: the same secret as line 1: make each line's own");
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

/* Guest i of token t's scope is vmid of cluster. */
static void check_guest(const struct serve_scope *sc, size_t i,
                        const char *cluster, uint32_t vmid) {
  assert_true(i < sc->guest_count);
  assert_string_equal(sc->guest[i].cluster, cluster);
  assert_int_equal(sc->guest[i].vmid, vmid);
}

static void test_scopes(void **state) {
  (void)state;
  assert_int_equal(parse(SECRET "\n" OTHER " vmids=101,100 pools=tenantA \r\n"
                                "root@pam!tok=0123456789abcdef\t vmids=196@prod"
                                "\tpools=a/b-c/d_e.f@lab,x  vmids=100\n"),
                   0);
  assert_int_equal(tokens.count, 3);
  check_item(1, "", OTHER);
  check_item(2, "root@pam!tok", "0123456789abcdef");
  assert_null(tokens.item[0].scope);
  assert_int_equal(tokens.item[1].line, 2);
  assert_int_equal(tokens.item[2].line, 3);
  const struct serve_scope *a = tokens.item[1].scope, *b = tokens.item[2].scope;
  assert_non_null(a);
  assert_int_equal(a->guest_count, 2);
  check_guest(a, 0, "", 100);
  check_guest(a, 1, "", 101);
  assert_int_equal(a->pool_count, 1);
  assert_string_equal(a->pool[0].name, "tenantA");
  assert_string_equal(a->pool[0].cluster, "");
  /* sorted by cluster, then VMID; "" first */
  assert_int_equal(b->guest_count, 2);
  check_guest(b, 0, "", 100);
  check_guest(b, 1, "prod", 196);
  assert_int_equal(b->pool_count, 2);
  assert_string_equal(b->pool[0].name, "a/b-c/d_e.f");
  assert_string_equal(b->pool[0].cluster, "lab");
  assert_string_equal(b->pool[1].name, "x");
  assert_string_equal(b->pool[1].cluster, "");
}

static void test_scope_sees(void **state) {
  (void)state;
  const struct rrd_layout *vm = &layout_pve_vm_9_0,
                          *node = &layout_pve_node_9_0;
  assert_int_equal(parse(SECRET " vmids=100,196@prod\n" OTHER "\n"), 0);
  const struct serve_scope *sc = tokens.item[0].scope;
  assert_true(serve_scope_sees(sc, "", vm, "100"));
  assert_true(serve_scope_sees(sc, NULL, vm, "100"));
  assert_true(serve_scope_sees(sc, "prod", vm, "196"));
  /* the same VMID in another cluster is another guest */
  assert_false(serve_scope_sees(sc, "prod", vm, "100"));
  assert_false(serve_scope_sees(sc, "", vm, "196"));
  assert_false(serve_scope_sees(sc, "", vm, "101"));
  assert_false(serve_scope_sees(sc, "", vm, "0100"));
  assert_false(serve_scope_sees(sc, "", vm, "100 "));
  /* no node, not even one named like a guest in the scope */
  assert_false(serve_scope_sees(sc, "", node, "pve1"));
  assert_false(serve_scope_sees(sc, "", node, "100"));
  assert_false(serve_scope_sees(sc, "", vm, "pve1"));
  /* the guest's other files are its too, the node's KSM file is not */
  assert_true(serve_scope_sees(sc, "", &layout_pvecg_ksm_vm_1_0, "100"));
  assert_true(serve_scope_sees(sc, "", &layout_pve2_vm, "100"));
  assert_false(serve_scope_sees(sc, "", &layout_pvecg_ksm_vm_1_0, "101"));
  assert_false(serve_scope_sees(sc, "", &layout_pvecg_ksm_node_1_0, "pve1"));
  assert_false(serve_scope_sees(sc, "", &layout_pve2_node, "100"));
  /* unscoped: everything */
  assert_null(tokens.item[1].scope);
  assert_true(serve_scope_sees(NULL, "", node, "pve1"));
  assert_true(serve_scope_sees(NULL, "lab", vm, "300"));
  /* an empty scope after its pools had no members sees nothing */
  struct serve_scope *none = NULL;
  char why_scope[160];
  assert_int_equal(serve_scope_parse(" pools=empty", 12, &none, why_scope,
                                     sizeof(why_scope)),
                   0);
  assert_non_null(none);
  assert_int_equal(none->guest_count, 0);
  assert_false(serve_scope_sees(none, "", vm, "100"));
  assert_false(serve_scope_sees(none, "", node, "pve1"));
  serve_scope_free(none);
  /* only blanks: no scope */
  assert_int_equal(
      serve_scope_parse(" \t ", 3, &none, why_scope, sizeof(why_scope)), 0);
  assert_null(none);
}

#define WORD "line 1: scope word "
static void test_scope_refused(void **state) {
  (void)state;
  check_refused(SECRET " vmids=", WORD "1 (vmids), item 1: it is empty");
  check_refused(SECRET " pools=", WORD "1 (pools), item 1: it is empty");
  check_refused(SECRET " vmids=100,,101",
                WORD "1 (vmids), item 2: it is empty");
  check_refused(SECRET " vmids=100,", WORD "1 (vmids), item 2: it is empty");
  check_refused(SECRET " vmids=99",
                WORD "1 (vmids), item 1: it is not a VMID (100 to 999999999)");
  check_refused(SECRET " vmids=0100",
                WORD "1 (vmids), item 1: it is not a VMID (100 to 999999999)");
  check_refused(SECRET " vmids=1000000000",
                WORD "1 (vmids), item 1: it is not a VMID (100 to 999999999)");
  check_refused(SECRET " vmids=100 vmids=abc",
                WORD "2 (vmids), item 1: it is not a VMID (100 to 999999999)");
  check_refused(SECRET " vmids=100@",
                WORD "1 (vmids), item 1: its cluster is empty or too long");
  check_refused(SECRET " vmids=100@.hidden",
                WORD "1 (vmids), item 1: it names no possible cluster");
  check_refused(SECRET " vmids=100@pve-vm-9.0",
                WORD "1 (vmids), item 1: it names no possible cluster");
  check_refused(SECRET " pools=a/b/c/d",
                WORD "1 (pools), item 1: it is not a Proxmox pool name");
  check_refused(SECRET " pools=a//b",
                WORD "1 (pools), item 1: it is not a Proxmox pool name");
  check_refused(SECRET " pools=/a",
                WORD "1 (pools), item 1: it is not a Proxmox pool name");
  check_refused(SECRET " pools=x,tenant:a",
                WORD "1 (pools), item 2: it is not a Proxmox pool name");
  check_refused(SECRET " vmid=100",
                WORD "1 is neither vmids=VMID,... nor pools=POOL,...");
  check_refused(SECRET " vmids=100 #comment",
                WORD "2 is neither vmids=VMID,... nor pools=POOL,...");
  check_refused(SECRET " VMIDS=100",
                WORD "1 is neither vmids=VMID,... nor pools=POOL,...");
  /* a secret cut by a stray space: its rest is never in the message */
  assert_int_equal(parse("0123456789abcdef hunter2-hunter2"), -EINVAL);
  assert_null(strstr(why, "hunter"));
  assert_int_equal(parse(SECRET " vmids=hunter2"), -EINVAL);
  assert_null(strstr(why, "hunter"));
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
      cmocka_unit_test(test_scopes),
      cmocka_unit_test(test_scope_sees),
      cmocka_unit_test(test_scope_refused),
  };
  return cmocka_run_group_tests(tests, NULL, teardown);
}

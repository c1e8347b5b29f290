/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/serve/serve_auth.c, the token file and the
 * Authorization header of `pvecg serve --token-file`.  The input is the
 * token file's contents, a NUL, then the header's value.  Beyond memory
 * safety it checks:
 *   - a token file is accepted or refused with a reason; an accepted one
 *     has a secret of 1..SERVE_TOKEN_MAX visible ASCII bytes, zero-padded;
 *   - the header is judged as a naive strcmp-based oracle judges it;
 *   - "Bearer SECRET" is always accepted, and so is "PVEAPIToken=ID=SECRET"
 *     with the file's token id (any, when it has none) for a secret
 *     without '='.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "serve_auth.h"

#define INPUT_MAX 1024

static bool prefix_nocase(const char *s, const char *p) {
  for (; *p != '\0'; s++, p++) {
    char a = (*s >= 'A' && *s <= 'Z') ? (char)(*s + 32) : *s;
    char b = (*p >= 'A' && *p <= 'Z') ? (char)(*p + 32) : *p;
    if (a != b)
      return false;
  }
  return true;
}

static bool same(const unsigned char *a, size_t n, const char *b, size_t m) {
  return n == m && memcmp(a, b, n) == 0;
}

static enum serve_auth oracle(const struct serve_token *t, const char *h) {
  if (h[0] == '\0')
    return SERVE_AUTH_MISSING;
  if (prefix_nocase(h, "bearer ")) {
    const char *v = h + 7;
    v += strspn(v, " ");
    return same(t->secret, t->secret_len, v, strlen(v)) ? SERVE_AUTH_OK
                                                        : SERVE_AUTH_WRONG;
  }
  if (!prefix_nocase(h, "pveapitoken="))
    return SERVE_AUTH_SCHEME;
  const char *v = h + 12, *eq = strrchr(v, '=');
  if (eq == NULL)
    return SERVE_AUTH_WRONG;
  bool id = t->id_len == 0 || same(t->id, t->id_len, v, (size_t)(eq - v));
  return id && same(t->secret, t->secret_len, eq + 1, strlen(eq + 1))
             ? SERVE_AUTH_OK
             : SERVE_AUTH_WRONG;
}

static void check_accepted(const struct serve_token *t) {
  char h[2 * SERVE_TOKEN_MAX + 32];
  FUZZ_CHECK(t->secret_len >= 1 && t->secret_len <= SERVE_TOKEN_MAX);
  for (size_t i = 0; i < SERVE_TOKEN_MAX; i++) {
    FUZZ_CHECK(i < t->secret_len ? t->secret[i] > ' ' && t->secret[i] <= '~'
                                 : t->secret[i] == 0);
    FUZZ_CHECK(i < t->id_len || t->id[i] == 0);
  }
  snprintf(h, sizeof(h), "Bearer %.*s", (int)t->secret_len, t->secret);
  FUZZ_CHECK(serve_auth_check(t, h) == SERVE_AUTH_OK);
  if (memchr(t->secret, '=', t->secret_len) == NULL) {
    snprintf(
        h, sizeof(h), "PVEAPIToken=%.*s=%.*s", t->id_len ? (int)t->id_len : 5,
        t->id_len ? (char *)t->id : "a@b!c", (int)t->secret_len, t->secret);
    FUZZ_CHECK(serve_auth_check(t, h) == SERVE_AUTH_OK);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char input[INPUT_MAX + 1];
  struct serve_token t;
  const char *why = NULL;
  if (size > INPUT_MAX)
    return 0;
  memcpy(input, data, size);
  input[size] = '\0';
  size_t file_size = strnlen(input, size);
  const char *header = file_size < size ? input + file_size + 1 : "";
  if (serve_token_parse(input, file_size, &t, &why) != 0) {
    FUZZ_CHECK(why != NULL && why[0] != '\0');
    return 0;
  }
  check_accepted(&t);
  enum serve_auth got = serve_auth_check(&t, header);
  FUZZ_CHECK(got == oracle(&t, header));
  FUZZ_CHECK(serve_auth_check(&t, NULL) == SERVE_AUTH_MISSING);
  return 0;
}

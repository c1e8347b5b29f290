/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Authorization header against the tokens (see serve_auth.h).
 */
#include "serve_auth.h"

#include <stdio.h>
#include <string.h>

/*
 * Constant time: the loop always runs SERVE_TOKEN_MAX rounds over two
 * zero-padded buffers and ORs every difference into one accumulator, with
 * no branch on a byte or on expected_len (a difference in length is ORed
 * in too), so a client that times its answers learns neither how many of
 * its leading bytes were right nor how long the secret is.  The volatile
 * accumulator keeps the compiler from turning the loop into an early exit.
 * What may show is given_len (the copy, and the refusal of an over-long
 * value): the client's own choice.
 */
bool serve_auth_equal(const unsigned char expected[SERVE_TOKEN_MAX],
                      size_t expected_len, const char *given,
                      size_t given_len) {
  unsigned char padded[SERVE_TOKEN_MAX] = {0};
  if (given_len > SERVE_TOKEN_MAX)
    return false;
  memcpy(padded, given, given_len);
  volatile size_t diff = expected_len ^ given_len;
  for (size_t i = 0; i < SERVE_TOKEN_MAX; i++)
    diff |= (size_t)(expected[i] ^ padded[i]);
  return diff == 0;
}

/* The '=' that ends USER@REALM!TOKENID in value[0..n), found as the token
 * file splits its lines (serve_token_file.c): the first '@', the first
 * '!' after it, the first '=' after that (a token id holds no '=', a
 * secret may: base64 ends in it); NULL without one. */
static const char *id_end(const char *value, size_t n) {
  const char *end = value + n, *at = memchr(value, '@', n);
  const char *bang = at != NULL ? memchr(at, '!', (size_t)(end - at)) : NULL;
  return bang != NULL ? memchr(bang, '=', (size_t)(end - bang)) : NULL;
}

/* Whether s starts with scheme, in any case (ASCII: no locale). */
static bool has_scheme(const char *s, const char *scheme) {
  for (; *scheme != '\0'; s++, scheme++) {
    char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
    char w = *scheme >= 'A' && *scheme <= 'Z' ? (char)(*scheme - 'A' + 'a')
                                              : *scheme;
    if (c != w)
      return false;
  }
  return true;
}

/* The results of every token are ORed, never returned early, so which
 * token matched (or how close one came) does not show in the time.  The
 * index of the token that matched is kept the same way: ORed in under a
 * mask that is all ones for the match and zero otherwise, no branch on
 * which (no two lines hold one secret, so at most one matches). */
static void note_match(unsigned ok, size_t i, unsigned *any, size_t *which) {
  *any |= ok;
  *which |= ((size_t)0 - (size_t)ok) & i;
}

static enum serve_auth check_bearer(const struct serve_tokens *ts,
                                    const char *value, size_t *which) {
  while (*value == ' ')
    value++;
  size_t n = strlen(value);
  unsigned ok = 0;
  for (size_t i = 0; i < ts->count; i++)
    note_match(
        serve_auth_equal(ts->item[i].secret, ts->item[i].secret_len, value, n),
        i, &ok, which);
  return ok ? SERVE_AUTH_OK : SERVE_AUTH_WRONG;
}

/* value: "USER@REALM!TOKENID=SECRET".  Both comparisons always run (& not
 * &&), so a right id with a wrong secret takes the same time as the
 * reverse. */
static enum serve_auth check_api_token(const struct serve_tokens *ts,
                                       const char *value, size_t *which) {
  size_t n = strlen(value);
  const char *eq = id_end(value, n);
  if (eq == NULL)
    return SERVE_AUTH_WRONG;
  size_t id_len = (size_t)(eq - value);
  unsigned ok = 0;
  for (size_t i = 0; i < ts->count; i++) {
    const struct serve_token *t = &ts->item[i];
    unsigned secret_ok =
        serve_auth_equal(t->secret, t->secret_len, eq + 1, n - id_len - 1);
    unsigned id_ok =
        t->id_len == 0 || serve_auth_equal(t->id, t->id_len, value, id_len);
    note_match(secret_ok & id_ok, i, &ok, which);
  }
  return ok ? SERVE_AUTH_OK : SERVE_AUTH_WRONG;
}

enum serve_auth serve_auth_check(const struct serve_tokens *tokens,
                                 const char *authorization, size_t *which) {
  size_t index = 0;
  enum serve_auth a = SERVE_AUTH_SCHEME;
  if (authorization == NULL || authorization[0] == '\0')
    a = SERVE_AUTH_MISSING;
  else if (has_scheme(authorization, "Bearer "))
    a = check_bearer(tokens, authorization + strlen("Bearer "), &index);
  else if (has_scheme(authorization, "PVEAPIToken="))
    a = check_api_token(tokens, authorization + strlen("PVEAPIToken="), &index);
  if (which != NULL)
    *which = index;
  return a;
}

void serve_auth_user(const struct serve_tokens *tokens,
                     const char *authorization, char *out, size_t size) {
  snprintf(out, size, "-");
  if (authorization == NULL || !has_scheme(authorization, "PVEAPIToken="))
    return;
  const char *value = authorization + strlen("PVEAPIToken=");
  const char *eq = id_end(value, strlen(value));
  size_t id_len = eq != NULL ? (size_t)(eq - value) : 0;
  for (size_t i = 0; i < tokens->count; i++) {
    const struct serve_token *t = &tokens->item[i];
    if (t->id_len != 0 && t->id_len == id_len && id_len < size &&
        memcmp(t->id, value, id_len) == 0) {
      snprintf(out, size, "%.*s", (int)id_len, value);
      return;
    }
  }
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The token and the Authorization header (see serve_auth.h).
 */
#include "serve_auth.h"

#include <errno.h>
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

/* A token's bytes: visible ASCII, so that it fits a header unquoted and
 * no line end or space can hide in it. */
static bool visible(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] <= ' ' || s[i] > '~')
      return false;
  return true;
}

static const char *last_of(const char *s, size_t n, char c) {
  const char *last = NULL;
  for (size_t i = 0; i < n; i++)
    if (s[i] == c)
      last = s + i;
  return last;
}

/* The end of USER@REALM!TOKENID in "USER@REALM!TOKENID=SECRET", or NULL
 * when line has not that shape (then all of it is the secret). */
static const char *token_id_end(const char *line, size_t n) {
  const char *at = memchr(line, '@', n);
  if (at == NULL || at == line)
    return NULL;
  const char *bang = memchr(at, '!', n - (size_t)(at - line));
  const char *eq = last_of(line, n, '=');
  if (bang == NULL || bang == at + 1 || eq == NULL || eq <= bang + 1)
    return NULL;
  return eq;
}

int serve_token_parse(const char *text, size_t size, struct serve_token *ret,
                      const char **why) {
  const char *nl = memchr(text, '\n', size);
  size_t n = nl != NULL ? (size_t)(nl - text) : size;
  if (n > 0 && text[n - 1] == '\r')
    n--;
  const char *id_end = token_id_end(text, n);
  const char *secret = id_end != NULL ? id_end + 1 : text;
  size_t secret_len = n - (size_t)(secret - text);
  size_t id_len = id_end != NULL ? (size_t)(id_end - text) : 0;
  if (secret_len == 0) {
    *why = n == 0 ? "its first line is empty" : "no secret after the '='";
    return -EINVAL;
  }
  if (secret_len > SERVE_TOKEN_MAX || id_len > SERVE_TOKEN_MAX) {
    *why = "its first line is too long (at most 256 bytes of secret)";
    return -EINVAL;
  }
  if (!visible(text, n)) {
    *why = "its first line holds a space, a control character or a byte "
           "that is not ASCII";
    return -EINVAL;
  }
  memset(ret, 0, sizeof(*ret));
  memcpy(ret->secret, secret, secret_len);
  ret->secret_len = secret_len;
  memcpy(ret->id, text, id_len);
  ret->id_len = id_len;
  return 0;
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

static enum serve_auth check_bearer(const struct serve_token *t,
                                    const char *value) {
  while (*value == ' ')
    value++;
  return serve_auth_equal(t->secret, t->secret_len, value, strlen(value))
             ? SERVE_AUTH_OK
             : SERVE_AUTH_WRONG;
}

/* value: "USER@REALM!TOKENID=SECRET".  Both comparisons always run (& not
 * &&), so a right id with a wrong secret takes the same time as the
 * reverse. */
static enum serve_auth check_api_token(const struct serve_token *t,
                                       const char *value) {
  size_t n = strlen(value);
  const char *eq = last_of(value, n, '=');
  if (eq == NULL)
    return SERVE_AUTH_WRONG;
  size_t id_len = (size_t)(eq - value);
  bool secret_ok =
      serve_auth_equal(t->secret, t->secret_len, eq + 1, n - id_len - 1);
  bool id_ok =
      t->id_len == 0 || serve_auth_equal(t->id, t->id_len, value, id_len);
  return (secret_ok & id_ok) ? SERVE_AUTH_OK : SERVE_AUTH_WRONG;
}

enum serve_auth serve_auth_check(const struct serve_token *token,
                                 const char *authorization) {
  if (authorization == NULL || authorization[0] == '\0')
    return SERVE_AUTH_MISSING;
  if (has_scheme(authorization, "Bearer "))
    return check_bearer(token, authorization + strlen("Bearer "));
  if (has_scheme(authorization, "PVEAPIToken="))
    return check_api_token(token, authorization + strlen("PVEAPIToken="));
  return SERVE_AUTH_SCHEME;
}

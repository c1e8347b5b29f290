/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a request's Authorization header carries one of the tokens of
 * `pvecg serve --token-file` (the file's rules: serve_token_file.h).  Pure
 * functions, so that the rules are unit tested and fuzzed without a
 * server; serve_http.c asks serve_auth_check() before any answer that
 * needs a token.  A request carries a token as
 *   Authorization: Bearer SECRET
 *   Authorization: PVEAPIToken=USER@REALM!TOKENID=SECRET
 * the scheme's name in any case (RFC 7235).  In the PVEAPIToken form the
 * secret is what follows the last '=', as Proxmox's own server splits it,
 * so a secret sent that way cannot hold an '=' (nor can it with Proxmox);
 * Bearer carries any secret whole.
 */
#ifndef PVECG_SERVE_AUTH_H
#define PVECG_SERVE_AUTH_H

#include <stdbool.h>
#include <stddef.h>

struct serve_scope;

/* The longest secret or token id (bytes); longer lines are refused. */
#define SERVE_TOKEN_MAX 256

struct serve_token {
  /* zero-padded to SERVE_TOKEN_MAX, which serve_auth_equal relies on */
  unsigned char secret[SERVE_TOKEN_MAX];
  size_t secret_len;
  unsigned char id[SERVE_TOKEN_MAX]; /* USER@REALM!TOKENID */
  size_t id_len;                     /* 0: any token id */
  /* what it may see (serve_scope.h), NULL: everything */
  struct serve_scope *scope;
  unsigned line; /* of the token file, for messages */
};

/* The tokens of a token file, every one of them accepted. */
struct serve_tokens {
  struct serve_token *item;
  size_t count;
};

enum serve_auth {
  SERVE_AUTH_OK,
  SERVE_AUTH_MISSING, /* no Authorization header */
  SERVE_AUTH_SCHEME,  /* neither Bearer nor PVEAPIToken */
  SERVE_AUTH_WRONG    /* the scheme is right, the token is not */
};

/* Whether authorization (the header's value, NULL when not sent) carries
 * one of the tokens, and which: its index into tokens->item in *which
 * (when not NULL) with SERVE_AUTH_OK.  Every token is compared, whole,
 * whichever matches: the time depends on how many there are, not on
 * which one is right.  No two tokens have one secret (the token file
 * refuses it), so at most one matches. */
enum serve_auth serve_auth_check(const struct serve_tokens *tokens,
                                 const char *authorization, size_t *which);

/*
 * For the log: the token id USER@REALM!TOKENID a PVEAPIToken header names,
 * copied to out when it is the id of one of the tokens (those are in the
 * token file, not secret), else "-".  Text the client chose is never
 * copied otherwise: a secret mistyped or sent in the id's place must not
 * reach the log.
 */
void serve_auth_user(const struct serve_tokens *tokens,
                     const char *authorization, char *out, size_t size);

/*
 * Whether given[0..given_len) equals expected[0..expected_len), expected
 * being zero-padded to SERVE_TOKEN_MAX.  Its time depends on neither the
 * bytes nor expected_len (see serve_auth.c); only given_len, which the
 * client chose, may show.
 */
bool serve_auth_equal(const unsigned char expected[SERVE_TOKEN_MAX],
                      size_t expected_len, const char *given, size_t given_len);

#endif

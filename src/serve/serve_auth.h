/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The token of `pvecg serve --token-file`: what the file holds, and whether
 * a request's Authorization header carries it.  Pure functions, so that the
 * rules are unit tested and fuzzed without a server; serve_http.c asks
 * serve_auth_check() before any answer that needs the token.
 *
 * The file's first line is the credential, in one of two forms:
 *   SECRET                       any token id is accepted with it
 *   USER@REALM!TOKENID=SECRET    Proxmox's API token: a PVEAPIToken header
 *                                must name this very token id too
 * The second form is recognised by its shape: an '@', then a '!', then an
 * '='; SECRET is what follows the line's last '=', as Proxmox's own server
 * splits it.  A request carries the token as
 *   Authorization: Bearer SECRET
 *   Authorization: PVEAPIToken=USER@REALM!TOKENID=SECRET
 * the scheme's name in any case (RFC 7235).  In the PVEAPIToken form the
 * secret is what follows the last '=', so a secret sent that way cannot
 * hold an '=' (nor can it with Proxmox).
 */
#ifndef PVECG_SERVE_AUTH_H
#define PVECG_SERVE_AUTH_H

#include <stdbool.h>
#include <stddef.h>

/* The longest secret or token id (bytes); longer lines are refused. */
#define SERVE_TOKEN_MAX 256

struct serve_token {
  /* zero-padded to SERVE_TOKEN_MAX, which serve_auth_equal relies on */
  unsigned char secret[SERVE_TOKEN_MAX];
  size_t secret_len;
  unsigned char id[SERVE_TOKEN_MAX]; /* USER@REALM!TOKENID */
  size_t id_len;                     /* 0: any token id */
};

/*
 * Takes the token from a token file's contents [text, text + size): its
 * first line, without the line end.  Returns 0, or -EINVAL with *why saying
 * what is wrong (empty, too long, a byte that is not printable ASCII or is
 * a space).
 */
int serve_token_parse(const char *text, size_t size, struct serve_token *ret,
                      const char **why);

enum serve_auth {
  SERVE_AUTH_OK,
  SERVE_AUTH_MISSING, /* no Authorization header */
  SERVE_AUTH_SCHEME,  /* neither Bearer nor PVEAPIToken */
  SERVE_AUTH_WRONG    /* the scheme is right, the token is not */
};

/* Whether authorization (the header's value, NULL when not sent) carries
 * the token. */
enum serve_auth serve_auth_check(const struct serve_token *token,
                                 const char *authorization);

/*
 * Whether given[0..given_len) equals expected[0..expected_len), expected
 * being zero-padded to SERVE_TOKEN_MAX.  Its time depends on neither the
 * bytes nor expected_len (see serve_auth.c); only given_len, which the
 * client chose, may show.
 */
bool serve_auth_equal(const unsigned char expected[SERVE_TOKEN_MAX],
                      size_t expected_len, const char *given, size_t given_len);

#endif

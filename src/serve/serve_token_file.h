/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The token file of `pvecg serve --token-file`: the tokens it holds, one a
 * line.  Pure functions, so that the rules are unit tested and fuzzed
 * without a server; serve_secure.c reads the file, serve_auth.c checks a
 * request against the tokens.
 *
 * A line is one of:
 *   (empty, or only spaces and tabs)   ignored
 *   # anything                         ignored (a comment)
 *   USER@REALM!TOKENID=SECRET          Proxmox's API token: a PVEAPIToken
 *                                      header must name this token id too
 *   SECRET                             any token id is accepted with it
 * either one followed, after spaces or tabs, by scope words
 * (serve_scope.h: vmids=... pools=...) that limit what the token sees.
 * The Proxmox form is taken only when the text before the first '=' after
 * the '!' is exactly USER@REALM!TOKENID with Proxmox's characters (USER:
 * no '@', ':' or whitespace; REALM and TOKENID: a letter, then at least one
 * letter, digit, '.', '-' or '_'); any other line is all secret, so a
 * generated secret that happens to hold '@', '!' and '=' is never cut
 * short.  A secret is 16 to SERVE_TOKEN_MAX bytes of visible ASCII (no
 * space: it goes into a header unquoted; the first space or tab ends it).
 * No two lines may hold one secret.  A line may end in CRLF.  A scope's
 * pools are only named here: serve_secure.c reads their members.
 */
#ifndef PVECG_SERVE_TOKEN_FILE_H
#define PVECG_SERVE_TOKEN_FILE_H

#include "serve_auth.h"

#include <stddef.h>

/* The shortest secret accepted: a guessable token is no token. */
#define SERVE_SECRET_MIN 16
/* The most tokens a file may hold: each request is compared with all. */
#define SERVE_TOKENS_MAX 1024

/*
 * Takes the tokens from a token file's contents [text, text + size).
 * Returns 0, -EINVAL with why[0..why_size) saying what is wrong and on
 * which line (never the line's text: it may be a secret), or -ENOMEM.
 * serve_tokens_free() then wipes them.
 */
int serve_token_file_parse(const char *text, size_t size,
                           struct serve_tokens *ret, char *why,
                           size_t why_size);

void serve_tokens_free(struct serve_tokens *tokens);

#endif

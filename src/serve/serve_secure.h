/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What makes `pvecg serve` safe to reach from other hosts, read once at
 * start: the TLS certificate and key (--tls-cert, --tls-key) and the
 * versions and ciphers offered (--tls-priorities, serve_tls.h), the tokens
 * (--token-file, serve_token_file.h) with their scopes' pools (from
 * user.cfg of the PVE configuration, serve_pools.h), and the rule that a
 * listener beyond loopback has both, or the operator said --insecure.
 */
#ifndef PVECG_SERVE_SECURE_H
#define PVECG_SERVE_SECURE_H

#include "pvecg/serve.h"

#include "serve_auth.h"
#include "serve_listen.h"

#include <stdbool.h>
#include <stddef.h>

struct serve_secure {
  char *cert, *key; /* PEM text, NULL without TLS */
  size_t cert_size, key_size;
  const char *priorities;     /* GnuTLS's, checked (serve_tls.h) */
  struct serve_tokens tokens; /* none (count 0) without --token-file */
};

/*
 * Reads the files options names (and the user.cfg files a scope's pools
 * are in, under config->config_dir) and checks the rule for the address l.
 * Returns 0 (with at most one warning line on stderr, for --insecure),
 * -EINVAL when the options do not go together (err says what is missing)
 * or -EIO when a file cannot be read or is refused (err says which and
 * why).  serve_secure_free() then wipes the secrets.
 */
int serve_secure_load(const struct serve_config *config,
                      const struct serve_http_options *options,
                      const struct serve_listen *l, struct serve_secure *ret,
                      char *err, size_t err_size);

void serve_secure_free(struct serve_secure *s);

/* The user.cfg a pool of cluster is read from: <config_dir>/user.cfg for
 * the data directory's own files, <config_dir>/<cluster>/user.cfg for a
 * named cluster's.  Returns 0 or -ENAMETOOLONG. */
int serve_secure_pool_file(const struct serve_config *config,
                           const char *cluster, char *buf, size_t size);

/* The token file at path, its scopes' pools resolved from the user.cfg of
 * their clusters: what serve_secure_load() does for --token-file, and
 * what a running server does again when those files change.  Returns 0
 * or -EIO with err filled (*ret then untouched but for being emptied). */
int serve_secure_tokens(const struct serve_config *config, const char *path,
                        struct serve_tokens *ret, char *err, size_t err_size);

#endif

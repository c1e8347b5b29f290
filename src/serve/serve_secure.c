/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TLS files, the token file and the rule for listening beyond
 * loopback (see serve_secure.h).  A file's mode is checked on the opened
 * descriptor, so that what was checked is what was read.
 */
#include "serve_secure.h"

#include "serve_pools.h"
#include "serve_scope.h"
#include "serve_tls.h"
#include "serve_token_file.h"

#include "pvecg/file_durable.h"
#include "pvecg/data_clusters.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAX (1 << 20) /* a certificate chain is a few KB */

/* "chmod 0600 PATH": what makes a refused file's mode right. */
static void refuse_mode(const char *option, const char *path, mode_t mode,
                        mode_t forbidden, char *err, size_t err_size) {
  snprintf(err, err_size, "%s %s: %s may read it (mode %04o); chmod %04o %s",
           option, path, forbidden & 070 ? "group or others" : "others",
           (unsigned)(mode & 07777), (unsigned)(mode & 07777 & ~forbidden),
           path);
}

/* Reads path whole, NUL-terminated, refusing it when its mode has a bit
 * of forbidden.  Returns 0 or -EIO with err filled. */
static int read_whole(const char *option, const char *path, mode_t forbidden,
                      char **ret, size_t *size, char *err, size_t err_size) {
  const struct file_whole how = {
      .max = FILE_MAX, .forbidden = forbidden, .secret = true};
  mode_t mode = 0;
  int r = file_read_whole_as(path, &how, ret, size, &mode);
  if (r == -EFBIG)
    snprintf(err, err_size, "%s %s: not a regular file of at most 1 MiB",
             option, path);
  else if (r == -EPERM)
    refuse_mode(option, path, mode, forbidden, err, err_size);
  else if (r == -EIO)
    snprintf(err, err_size, "%s %s: it changed while it was read", option,
             path);
  else if (r < 0)
    snprintf(err, err_size, "%s %s: %s", option, path, strerror(-r));
  return r < 0 ? -EIO : 0;
}

/* Every byte read, NULs included, not only up to the first. */
static void wipe(char *text, size_t size) {
  if (text != NULL) {
    explicit_bzero(text, size);
    free(text);
  }
}

int serve_secure_pool_file(const struct serve_config *config,
                           const char *cluster, char *buf, size_t size) {
  char dir[PATH_MAX];
  if (data_cluster_dir(config->config_dir, cluster, dir, sizeof(dir)) != 0)
    return -ENAMETOOLONG;
  int n = snprintf(buf, size, "%s/user.cfg", dir);
  return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* One pool of a token's scope into its guests: the members user.cfg of
 * the pool's cluster gives it.  A pool that cannot be read refuses the
 * start, never widens the scope. */
static int resolve_pool(const struct serve_config *config, const char *path,
                        const struct serve_token *t,
                        const struct serve_scope_pool *pool, char *err,
                        size_t err_size) {
  char cfg[PATH_MAX + 16], option[PATH_MAX + 200], *text;
  size_t size, count;
  uint32_t *vmids;
  int n = snprintf(option, sizeof(option),
                   "--token-file %s: line %u: pool %s%s%s,"
                   " reading",
                   path, t->line, pool->name,
                   pool->cluster[0] != '\0' ? "@" : "", pool->cluster);
  if (n < 0 || (size_t)n >= sizeof(option) ||
      serve_secure_pool_file(config, pool->cluster, cfg, sizeof(cfg)) != 0)
    return -ENAMETOOLONG;
  if (read_whole(option, cfg, 0, &text, &size, err, err_size) != 0)
    return -EIO;
  int r = serve_pool_members(text, size, pool->name, &vmids, &count);
  free(text);
  if (r == -ENOENT)
    snprintf(err, err_size, "--token-file %s: line %u: pool %s is not in %s",
             path, t->line, pool->name, cfg);
  for (size_t i = 0; r == 0 && i < count; i++)
    r = serve_scope_add(t->scope, pool->cluster, vmids[i]);
  free(vmids);
  if (r == -ENOMEM)
    snprintf(err, err_size, "--token-file %s: %s", path, strerror(ENOMEM));
  return r;
}

/* The scopes' pools, each from the PVE configuration of its cluster. */
static int resolve_scopes(const struct serve_config *config, const char *path,
                          struct serve_tokens *tokens, char *err,
                          size_t err_size) {
  for (size_t i = 0; i < tokens->count; i++) {
    const struct serve_token *t = &tokens->item[i];
    if (t->scope == NULL)
      continue;
    if (t->scope->pool_count > 0 &&
        (config->config_dir == NULL || config->config_dir[0] == '\0')) {
      snprintf(err, err_size,
               "--token-file %s: line %u: pools need the PVE configuration "
               "(--pve-config-dir is \"\")",
               path, t->line);
      return -EINVAL;
    }
    for (size_t p = 0; p < t->scope->pool_count; p++) {
      int r = resolve_pool(config, path, t, &t->scope->pool[p], err, err_size);
      if (r == -ENAMETOOLONG)
        snprintf(err, err_size, "--token-file %s: line %u: %s", path, t->line,
                 strerror(ENAMETOOLONG));
      if (r != 0)
        return r;
    }
    serve_scope_sort(t->scope);
  }
  return 0;
}

int serve_secure_tokens(const struct serve_config *config, const char *path,
                        struct serve_tokens *ret, char *err, size_t err_size) {
  char *text;
  size_t size;
  char why[256];
  /* the token is the whole key to the data: no one else may read it */
  if (read_whole("--token-file", path, 077, &text, &size, err, err_size) != 0)
    return -EIO;
  int r = serve_token_file_parse(text, size, ret, why, sizeof(why));
  if (r != 0)
    snprintf(err, err_size, "--token-file %s: %s", path,
             r == -ENOMEM ? strerror(ENOMEM) : why);
  wipe(text, size);
  if (r == 0)
    r = resolve_scopes(config, path, ret, err, err_size);
  return r != 0 ? -EIO : 0;
}

/* A PEM file holds at least one "-----BEGIN "; anything else would only
 * get GnuTLS's terser complaint later. */
static int load_pem(const char *option, const char *path, mode_t forbidden,
                    char **ret, size_t *size, char *err, size_t err_size) {
  if (read_whole(option, path, forbidden, ret, size, err, err_size) != 0)
    return -EIO;
  if (strstr(*ret, "-----BEGIN ") == NULL) {
    snprintf(err, err_size, "%s %s: not a PEM file", option, path);
    wipe(*ret, *size);
    *ret = NULL;
    return -EIO;
  }
  return 0;
}

static bool is_loopback(const struct serve_listen *l) {
  if (l->addr.ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)&l->addr;
    return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
  }
  const struct in6_addr *a6 =
      &((const struct sockaddr_in6 *)&l->addr)->sin6_addr;
  return IN6_IS_ADDR_LOOPBACK(a6) ||
         (IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127);
}

/* What a listener beyond loopback lacks: "" when nothing. */
static const char *missing(const struct serve_http_options *o) {
  bool tls = o->tls_cert != NULL, token = o->token_file != NULL;
  return tls && token ? ""
         : tls        ? "a token (--token-file)"
         : token      ? "TLS (--tls-cert, --tls-key)"
                      : "TLS (--tls-cert, --tls-key) and a token "
                        "(--token-file)";
}

static int check_options(const struct serve_http_options *o,
                         const struct serve_listen *l, char *err,
                         size_t err_size) {
  if ((o->tls_cert == NULL) != (o->tls_key == NULL)) {
    snprintf(err, err_size, "--tls-cert and --tls-key go together");
    return -EINVAL;
  }
  if (o->tls_priorities != NULL && o->tls_cert == NULL) {
    snprintf(err, err_size, "--tls-priorities needs --tls-cert and --tls-key");
    return -EINVAL;
  }
  if (!is_loopback(l) && missing(o)[0] != '\0' && !o->insecure) {
    snprintf(err, err_size,
             "--listen %s is not a loopback address: it needs %s, or "
             "--insecure",
             o->listen, missing(o));
    return -EINVAL;
  }
  return 0;
}

int serve_secure_load(const struct serve_config *config,
                      const struct serve_http_options *options,
                      const struct serve_listen *l, struct serve_secure *ret,
                      char *err, size_t err_size) {
  int r = check_options(options, l, err, err_size);
  if (r != 0)
    return r;
  memset(ret, 0, sizeof(*ret));
  ret->priorities = options->tls_priorities != NULL ? options->tls_priorities
                                                    : SERVE_TLS_PRIORITIES;
  if (options->tls_cert != NULL &&
      serve_tls_check_priorities(ret->priorities, err, err_size) != 0)
    return -EINVAL;
  /* a key may be the group's (Debian's ssl-cert), never everyone's */
  if (options->tls_cert != NULL &&
      (load_pem("--tls-cert", options->tls_cert, 0, &ret->cert, &ret->cert_size,
                err, err_size) != 0 ||
       load_pem("--tls-key", options->tls_key, 007, &ret->key, &ret->key_size,
                err, err_size) != 0))
    goto fail;
  if (options->token_file != NULL &&
      serve_secure_tokens(config, options->token_file, &ret->tokens, err,
                          err_size) != 0)
    goto fail;
  if (!is_loopback(l) && missing(options)[0] != '\0')
    fprintf(stderr,
            "pvecg serve: warning: --insecure: %s is served without %s\n",
            options->listen, missing(options));
  return 0;
fail:
  serve_secure_free(ret);
  return -EIO;
}

void serve_secure_free(struct serve_secure *s) {
  free(s->cert);
  wipe(s->key, s->key_size);
  serve_tokens_free(&s->tokens);
  s->cert = s->key = NULL;
}

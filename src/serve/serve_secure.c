/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TLS files, the token file and the rule for listening beyond
 * loopback (see serve_secure.h).  A file's mode is checked on the opened
 * descriptor, so that what was checked is what was read.
 */
#include "serve_secure.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAX (1 << 20) /* a certificate chain is a few KB */

/* Reads path whole, NUL-terminated, refusing it when its mode has a bit
 * of forbidden.  Returns 0 or -EIO with err filled. */
static int read_whole(const char *option, const char *path, mode_t forbidden,
                      char **ret, size_t *size, char *err, size_t err_size) {
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(err, err_size, "%s %s: %s", option, path, strerror(errno));
    goto fail;
  }
  if (!S_ISREG(st.st_mode) || st.st_size > FILE_MAX) {
    snprintf(err, err_size, "%s %s: not a regular file of at most 1 MiB",
             option, path);
    goto fail;
  }
  if ((st.st_mode & forbidden) != 0) {
    snprintf(err, err_size, "%s %s: %s may read it (mode %04o); chmod %04o",
             option, path, forbidden & 070 ? "group or others" : "others",
             (unsigned)(st.st_mode & 07777),
             (unsigned)(st.st_mode & 07777 & ~forbidden));
    goto fail;
  }
  char *text = malloc((size_t)st.st_size + 1);
  ssize_t n = text != NULL ? read(fd, text, (size_t)st.st_size) : -1;
  if (n < 0) {
    snprintf(err, err_size, "%s %s: %s", option, path, strerror(errno));
    free(text);
    goto fail;
  }
  text[n] = '\0';
  close(fd);
  *ret = text;
  *size = (size_t)n;
  return 0;
fail:
  if (fd >= 0)
    close(fd);
  return -EIO;
}

static void wipe(char *text) {
  if (text != NULL) {
    explicit_bzero(text, strlen(text));
    free(text);
  }
}

static int load_token(const char *path, struct serve_token *ret, char *err,
                      size_t err_size) {
  char *text;
  size_t size;
  const char *why;
  /* the token is the whole key to the data: no one else may read it */
  if (read_whole("--token-file", path, 077, &text, &size, err, err_size) != 0)
    return -EIO;
  int r = serve_token_parse(text, size, ret, &why);
  if (r != 0)
    snprintf(err, err_size, "--token-file %s: %s", path, why);
  wipe(text);
  return r != 0 ? -EIO : 0;
}

/* A PEM file holds at least one "-----BEGIN "; anything else would only
 * get GnuTLS's terser complaint later. */
static int load_pem(const char *option, const char *path, mode_t forbidden,
                    char **ret, char *err, size_t err_size) {
  size_t size;
  if (read_whole(option, path, forbidden, ret, &size, err, err_size) != 0)
    return -EIO;
  if (strstr(*ret, "-----BEGIN ") == NULL) {
    snprintf(err, err_size, "%s %s: not a PEM file", option, path);
    wipe(*ret);
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
  if (!is_loopback(l) && missing(o)[0] != '\0' && !o->insecure) {
    snprintf(err, err_size,
             "--listen %s is not a loopback address: it needs %s, or "
             "--insecure",
             o->listen, missing(o));
    return -EINVAL;
  }
  return 0;
}

int serve_secure_load(const struct serve_http_options *options,
                      const struct serve_listen *l, struct serve_secure *ret,
                      char *err, size_t err_size) {
  int r = check_options(options, l, err, err_size);
  if (r != 0)
    return r;
  memset(ret, 0, sizeof(*ret));
  /* a key may be the group's (Debian's ssl-cert), never everyone's */
  if (options->tls_cert != NULL && (load_pem("--tls-cert", options->tls_cert, 0,
                                             &ret->cert, err, err_size) != 0 ||
                                    load_pem("--tls-key", options->tls_key, 007,
                                             &ret->key, err, err_size) != 0))
    goto fail;
  if (options->token_file != NULL) {
    if (load_token(options->token_file, &ret->token, err, err_size) != 0)
      goto fail;
    ret->has_token = true;
  }
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
  wipe(s->key);
  explicit_bzero(&s->token, sizeof(s->token));
  s->cert = s->key = NULL;
  s->has_token = false;
}

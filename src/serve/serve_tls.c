/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The check of a GnuTLS priority string (see serve_tls.h).  GnuTLS is
 * reached through the symbols libmicrohttpd's own GnuTLS brings into the
 * process, not linked directly: the server uses GnuTLS only through
 * libmicrohttpd, and a link of its own would add a second dependency to
 * the package for one check at start.
 */
#include "serve_tls.h"

#include <dlfcn.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <string.h>

typedef int (*priority_init_fn)(gnutls_priority_t *, const char *,
                                const char **);
typedef void (*priority_deinit_fn)(gnutls_priority_t);
typedef const char *(*strerror_fn)(int);

/* A function of the GnuTLS already loaded, or NULL. */
static void *gnutls_symbol(const char *name) {
  return dlsym(RTLD_DEFAULT, name);
}

int serve_tls_check_priorities(const char *priorities, char *err,
                               size_t err_size) {
  priority_init_fn init;
  priority_deinit_fn deinit;
  strerror_fn say;
  *(void **)&init = gnutls_symbol("gnutls_priority_init");
  *(void **)&deinit = gnutls_symbol("gnutls_priority_deinit");
  *(void **)&say = gnutls_symbol("gnutls_strerror");
  /* without GnuTLS in the process libmicrohttpd has no TLS at all, which
   * serve_http.c says before this is asked */
  if (init == NULL || deinit == NULL || say == NULL)
    return 0;
  gnutls_priority_t cache;
  const char *stop = NULL;
  int r = init(&cache, priorities, &stop);
  if (r >= 0) {
    deinit(cache);
    return 0;
  }
  /* a syntax error: where GnuTLS stopped reading says which keyword */
  if (r == GNUTLS_E_INVALID_REQUEST && stop != NULL && stop >= priorities &&
      stop <= priorities + strlen(priorities))
    snprintf(err, err_size,
             "--tls-priorities '%s': GnuTLS stops at position %zu ('%.40s'): "
             "%s",
             priorities, (size_t)(stop - priorities) + 1, stop, say(r));
  else
    snprintf(err, err_size, "--tls-priorities '%s': %s", priorities, say(r));
  return -EINVAL;
}

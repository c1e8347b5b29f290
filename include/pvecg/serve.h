/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pvecg serve` as the command starts it: where the answers come from
 * (serve_config) and how they are served (serve_http_options).  The server
 * is src/serve/: its HTTP side runs on libmicrohttpd, a pool of threads,
 * each request answered without HTTP by serve_answer.c, logged when it
 * fails, and the process stopped cleanly by SIGINT or SIGTERM.
 */
#ifndef PVECG_SERVE_H
#define PVECG_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* A data directory that keeps clusters apart (data_clusters.h) is served
 * whole: each named cluster's files are <data_dir>/<cluster>/..., listed
 * from <list_dir>/<cluster>/ and named by <config_dir>/<cluster>/. */
struct serve_config {
  const char *data_dir;   /* the files; NULL: the daemon's base directory */
  const char *list_dir;   /* where the listings look (a local directory) */
  const char *daemon;     /* rrdcached's address, or NULL */
  const char *config_dir; /* the PVE configuration, "" for none */
  time_t now;             /* 0: the current time */
  /* pvecg ship's state directory: its totals join /metrics (NULL: none) */
  const char *ship_state_dir;
};

/* The keep-alive idle time: how long a silent connection is kept between
 * requests, and the longest --header-timeout. */
#define PVECG_SERVE_IDLE_SECONDS 30
#define PVECG_SERVE_IDLE_TEXT "30"

struct serve_http_options {
  const char *listen;   /* "HOST:PORT", "[V6]:PORT"; port 0 picks one */
  unsigned threads;     /* answering threads */
  unsigned connections; /* at most this many open at once */
  /* at most this many open from one address (0: no limit of its own), so
   * that one client holding connections cannot keep the others out */
  unsigned per_client;
  /* TLS: PEM files, both or neither (NULL: plain HTTP) */
  const char *tls_cert, *tls_key;
  /* GnuTLS's priority string (NULL: TLS 1.2 and 1.3 with forward secrecy
   * and AEAD ciphers only; see src/serve/serve_tls.h) */
  const char *tls_priorities;
  /* the tokens every API path and /metrics ask for, one a line (NULL:
   * none); the file's rules are in src/serve/serve_token_file.h */
  const char *token_file;
  /* a listener beyond loopback without TLS and a token is refused
   * unless this is set */
  bool insecure;
  /* a reverse proxy's address (NULL: none): its requests count as from
   * the last address of their X-Forwarded-For (src/serve/serve_proxy.h) */
  const char *trusted_proxy;
  /* seconds a request's whole header may take, at most
   * PVECG_SERVE_IDLE_SECONDS (0: 10); see src/serve/serve_deadline.h */
  unsigned header_timeout;
};

/*
 * Serves until SIGINT or SIGTERM.  Returns 0 after a clean stop, or
 * -EINVAL (a bad --listen, options that do not go together) / -EIO (a
 * file that cannot be read or is refused, cannot listen) with err filled.
 */
int serve_http_run(const struct serve_config *config,
                   const struct serve_http_options *options, char *err,
                   size_t err_size);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The load of pvecg-bench-serve: CLIENTS threads, each on one keep-alive
 * HTTP/1.1 connection to 127.0.0.1:PORT, sending GET PATH one after the
 * other and reading each whole answer (Content-Length) before the next,
 * so every latency is one request's, queueing in the server included.
 */
#ifndef PVECG_BENCH_HTTP_LOAD_H
#define PVECG_BENCH_HTTP_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct http_load {
  unsigned short port;
  const char *path;
  unsigned clients;
  unsigned requests; /* per client */
  bool gzip;         /* ask for gzip (Accept-Encoding), as scrapers do */
};

struct http_load_result {
  double *latency_ms;  /* clients * requests, sorted */
  size_t count;        /* answered with 200 */
  size_t failed;       /* another status, or a broken connection */
  uint64_t body_bytes; /* of the last answer */
  double seconds;      /* wall time of the whole load */
};

/* Runs the load.  Returns 0 (failures are counted, not fatal) or a
 * negative errno when no thread could start. */
int http_load_run(const struct http_load *load, struct http_load_result *ret);

void http_load_result_free(struct http_load_result *r);

#endif

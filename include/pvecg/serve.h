/*
 * `pvecg serve`'s HTTP side, on libmicrohttpd: a pool of threads, each
 * request answered by serve_answer(), logged when it fails, and the
 * process stopped cleanly by SIGINT or SIGTERM.
 */
#ifndef PVECG_SERVE_HTTP_H
#define PVECG_SERVE_HTTP_H

#include "serve_answer.h"

#include <stddef.h>

struct serve_http_options {
  const char *listen;   /* "HOST:PORT", "[V6]:PORT"; port 0 picks one */
  unsigned threads;     /* answering threads */
  unsigned connections; /* at most this many open at once */
};

/*
 * Serves until SIGINT or SIGTERM.  Returns 0 after a clean stop, or
 * -EINVAL (a bad --listen) / -EIO (cannot listen) with err filled.
 */
int serve_http_run(const struct serve_config *config,
                   const struct serve_http_options *options, char *err,
                   size_t err_size);

#endif

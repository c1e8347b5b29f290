/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer to one request of `pvecg serve`, without HTTP: status,
 * headers and body, from the request rules (serve_request.h), the page's
 * files, the listings and the very function `pvecg rrddata` prints with.
 * serve_http.c only moves these answers over the wire.
 */
#ifndef PVECG_SERVE_ANSWER_H
#define PVECG_SERVE_ANSWER_H

#include "pvecg/serve.h"

#include "serve_reply.h"
#include "serve_request.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Answers a request (never fails: a problem is a 4xx or 5xx answer). */
void serve_answer(const struct serve_config *config, const char *method,
                  const char *path, const struct serve_param *params,
                  size_t count, const struct serve_headers *headers,
                  struct serve_reply *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GET /metrics: the newest values of every guest and node file for
 * Prometheus, in its text format, or OpenMetrics when the scraper's
 * Accept header asks for it.  The parameter cluster keeps the other
 * clusters' files out (a scrape job per cluster).  Under a token's scope
 * (headers->scope, serve_scope.h) only the files it sees are read and
 * shown, and pvecg ship's totals (of every guest) are left out.
 */
#ifndef PVECG_SERVE_METRICS_H
#define PVECG_SERVE_METRICS_H

#include "pvecg/serve.h"
#include "serve_reply.h"
#include "serve_request.h"

void serve_metrics_reply(const struct serve_config *config,
                         const struct serve_request *req,
                         const struct serve_headers *headers,
                         struct serve_reply *ret);

#endif

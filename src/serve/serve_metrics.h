/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GET /metrics: the newest values of every guest and node file for
 * Prometheus, in its text format, or OpenMetrics when the scraper's
 * Accept header asks for it.  The parameter cluster keeps the other
 * clusters' files out (a scrape job per cluster).
 */
#ifndef PVECG_SERVE_METRICS_H
#define PVECG_SERVE_METRICS_H

#include "serve_answer.h"

void serve_metrics_reply(const struct serve_config *config,
                         const struct serve_request *req, const char *accept,
                         struct serve_reply *ret);

#endif

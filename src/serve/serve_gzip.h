/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Answers sent gzip-compressed to a client that asks for it: a scrape of
 * 1,000 guests is 1.1 MB of text every 15 s (about 10 times less as gzip),
 * the overview's answer nearly as much, and Prometheus, VictoriaMetrics
 * and browsers all send "Accept-Encoding: gzip".  Pure functions, without
 * HTTP: serve_http.c applies them.
 */
#ifndef PVECG_SERVE_GZIP_H
#define PVECG_SERVE_GZIP_H

#include <stdbool.h>
#include <stddef.h>

/* Bodies shorter than this go as they are: compressing would not pay. */
#define SERVE_GZIP_MIN 1024

/* Whether an Accept-Encoding header's value takes gzip (RFC 9110): gzip
 * or x-gzip (any case) named with a q other than 0, or not named and "*"
 * with a q other than 0.  gzip named with q=0 is a no even beside "*".
 * NULL: no. */
bool serve_gzip_accepted(const char *accept_encoding);

/* in[0..n) as a gzip member (fast level) in a malloc'd *out of *out_n
 * bytes.  Returns 0, or -ENOMEM. */
int serve_gzip(const char *in, size_t n, char **out, size_t *out_n);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A plain HTTP/1.0 GET on 127.0.0.1, enough to ask netdata's API what it
 * collects, and a free loopback port for it to listen on.
 */
#ifndef PVECG_BENCH_HTTP_GET_H
#define PVECG_BENCH_HTTP_GET_H

#include <stddef.h>
#include <stdint.h>

/* The body of http://127.0.0.1:<port><path> into *body (malloc'd,
 * NUL-terminated; free it).  Returns 0, -EPROTO for a status other than
 * 200, or a negative errno. */
int http_get(uint16_t port, const char *path, char **body);

/* A port the kernel gives for 127.0.0.1 now (free a moment later too, as
 * ephemeral ports are handed out in turn).  Returns 0 or a negative
 * errno. */
int http_free_port(uint16_t *port);

/* How often needle occurs in haystack. */
size_t http_count(const char *haystack, const char *needle);

#endif

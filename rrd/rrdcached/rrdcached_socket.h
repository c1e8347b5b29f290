/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A connection of our own to rrdcached, for what librrd's client cannot
 * say: BATCH (rrdcached_batch.c) and PENDING (rrdcached_pending.c).
 * Addresses as rrdcached_client_new() takes them.
 */
#ifndef PVECG_RRDCACHED_SOCKET_H
#define PVECG_RRDCACHED_SOCKET_H

#include <stdbool.h>
#include <stddef.h>

/* Whether address names a unix socket ("unix:/path" or "/path"). */
bool rrdcached_socket_is_unix(const char *address);

/* A connected, close-on-exec socket, or a negative errno. */
int rrdcached_socket_connect(const char *address);

/* Sends all of p[0..n) (no SIGPIPE): 0 or a negative errno. */
int rrdcached_socket_send(int fd, const char *p, size_t n);

#endif

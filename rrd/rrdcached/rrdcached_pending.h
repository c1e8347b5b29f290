/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The updates rrdcached holds for a file and has not written yet, asked
 * with PENDING on a connection of our own (librrd's client has no such
 * call).  The daemon answers
 *
 *   <n> updates pending          then n lines "<time>:<v1>:<v2>..."
 *   -1 No such file or directory (newer daemons, for a file they do not
 *                                 know; 1.7.2 answers "0 updates pending")
 *
 * the updates in the order they came, so the last line is the newest.
 * Like librrd, no timeout; not thread-safe.
 */
#ifndef PVECG_RRDCACHED_PENDING_H
#define PVECG_RRDCACHED_PENDING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rrdcached_pending;

/* For an address as rrdcached_client_new() takes it; does not connect.
 * Returns 0, -EINVAL or -ENOMEM. */
int rrdcached_pending_new(const char *address, struct rrdcached_pending **ret);
void rrdcached_pending_free(struct rrdcached_pending *pending);

/* Offered a pending update ("<time>:<v1>:..."); true to take it. */
typedef bool rrdcached_pending_take_fn(void *ctx, const char *line);

/*
 * The pending updates of path (as the store names the file), offered to
 * take() newest first until it takes one: returns 1 when one was taken, 0
 * when the daemon holds none (or none was taken), -ENOTCONN when the
 * daemon cannot be reached (err says why), -EPROTO for an answer that is
 * not one or a path with a control character.
 */
int rrdcached_pending_newest(struct rrdcached_pending *pending,
                             const char *path, rrdcached_pending_take_fn *take,
                             void *ctx, char *err, size_t err_size);

/*
 * Parses buf[0..len) as an answer to PENDING, without I/O (fuzzed).
 * Returns the answer's length when it is whole, with its newest update at
 * buf[*newest .. *newest + *newest_len) (*newest_len 0 when none); 0 when
 * more bytes are needed; -EPROTO when the bytes cannot be such an answer.
 */
ssize_t rrdcached_pending_parse(const char *buf, size_t len, size_t *newest,
                                size_t *newest_len);

#endif

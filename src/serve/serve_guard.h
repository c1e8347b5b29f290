/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Slowing a client that guesses tokens.  Each client address that sent a
 * wrong token has an entry in a fixed-size table; SERVE_GUARD_LIMIT wrong
 * tokens within SERVE_GUARD_WINDOW seconds block the address for
 * SERVE_GUARD_BLOCK seconds, during which serve_http.c answers it 429
 * without looking at its token.  A request without any token guesses
 * nothing and is not counted (a browser's first load of the page sends
 * none).
 *
 * An IPv4 client (also as ::ffff:a.b.c.d) is its address; an IPv6 client
 * is its /64, the smallest network a provider hands out, so that the 2^64
 * addresses of one host or LAN are one entry.
 *
 * The table is set-associative: a keyed hash (a secret of each start, so
 * that no client can aim at one set) picks a set of SERVE_GUARD_WAYS
 * entries, and a new address takes the set's least recently seen entry
 * that is not blocked (the oldest one if all are).  Memory is fixed, each
 * call costs one hash and SERVE_GUARD_WAYS comparisons under one lock.
 * Times are whole seconds on a clock the caller passes (the monotonic one
 * in the server, one the tests set).
 */
#ifndef PVECG_SERVE_GUARD_H
#define PVECG_SERVE_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SERVE_GUARD_LIMIT 5   /* wrong tokens ... */
#define SERVE_GUARD_WINDOW 60 /* ... within this many seconds ... */
#define SERVE_GUARD_BLOCK 60  /* ... answered 429 for this long */
#define SERVE_GUARD_WAYS 8
#define SERVE_GUARD_SLOTS 4096 /* the server's table: 4096 addresses */

struct serve_guard;

/* What the server does with a request that needs a token. */
struct serve_guard_verdict {
  bool blocked;            /* answer 429, do not check the token */
  unsigned retry_after;    /* when blocked: seconds left, at least 1 */
  unsigned refused_before; /* 429s of a block now over, to log once */
};

/* What a wrong token did to its address. */
struct serve_guard_failure {
  unsigned failures; /* within the window, this one included */
  bool blocked_now;  /* this one reached SERVE_GUARD_LIMIT */
};

/* A table of slots entries (rounded down to a multiple of
 * SERVE_GUARD_WAYS, at least one set), sets picked by a hash keyed with
 * seed.  NULL without memory. */
struct serve_guard *serve_guard_new(size_t slots, uint64_t seed);
void serve_guard_free(struct serve_guard *g);

/* Before the token is checked: whether addr is blocked at now. */
struct serve_guard_verdict serve_guard_check(struct serve_guard *g,
                                             const struct sockaddr *addr,
                                             int64_t now);

/* After a wrong token from addr at now. */
struct serve_guard_failure serve_guard_failed(struct serve_guard *g,
                                              const struct sockaddr *addr,
                                              int64_t now);

#endif

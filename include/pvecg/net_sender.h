/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sends `pvecg export` lines to a Graphite plaintext or InfluxDB
 * line-protocol listener over TCP or UDP, and never waits longer than a
 * timeout for the network.
 *
 * TCP: a non-blocking connect finished with poll(), then sends that wait
 * with poll() for room in the socket, each wait bounded by the timeout (a
 * listener that accepts and never reads makes the send fail, not hang).
 * UDP: lines are gathered into datagrams of whole lines of at most
 * NET_DATAGRAM_MAX bytes; a longer line travels alone.  Sends use
 * MSG_NOSIGNAL, so a peer that goes away gives EPIPE, not SIGPIPE.
 *
 * "Sent" counts the lines the kernel accepted completely.  Lines still in
 * the socket's buffers when the peer stops reading may be lost; TCP gives
 * no way to know, so the TCP send buffer is kept at a fixed 256 KiB rather
 * than autotuned to megabytes.  Over UDP a missing listener is only
 * noticed (ECONNREFUSED) from the second datagram on.
 */
#ifndef PVECG_NET_SENDER_H
#define PVECG_NET_SENDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#define NET_DATAGRAM_MAX 1400
#define NET_HOST_MAX 256

struct net_target {
  bool udp;
  char host[NET_HOST_MAX]; /* name or address, without IPv6 brackets */
  char port[6];
};

/* Parses "tcp://HOST:PORT" or "udp://HOST:PORT" (an IPv6 address in
 * brackets: "tcp://[::1]:2003"); the port is 1..65535.  Returns 0 or
 * -EINVAL. */
int net_target_parse(const char *url, struct net_target *ret);

struct net_sender;

/*
 * Resolves and connects (for UDP: sets the peer) within timeout seconds.
 * stop (NULL: none) is a flag set by a signal: resolving, connecting and
 * every later send waiting for room give up (-ECANCELED) within 0.1 s of
 * it, not after the timeout.  Returns 0, -ENOMEM, -EHOSTUNREACH (the name
 * does not resolve), -ETIMEDOUT, -ECANCELED or the connect's negative
 * errno, with a message in err.
 */
int net_sender_open(const struct net_target *target, double timeout,
                    volatile sig_atomic_t *stop, struct net_sender **ret,
                    char *err, size_t err_size);

/*
 * Sends text, which must hold whole lines each ending in '\n'.  UDP keeps
 * lines back until a datagram is full or net_sender_finish() is called.
 * Returns 0, -EINVAL for text not ending in '\n', -ETIMEDOUT, -ECANCELED,
 * or the send's negative errno, with a message in err; after an error nothing
 * more is sent.
 */
int net_sender_send(struct net_sender *sender, const char *text, size_t len,
                    char *err, size_t err_size);

/* Sends what UDP kept back.  Returns 0 or as net_sender_send(). */
int net_sender_finish(struct net_sender *sender, char *err, size_t err_size);

/* Lines sent completely so far. */
size_t net_sender_lines_sent(const struct net_sender *sender);

/* Whether a TCP connection still stands: false once the listener closed
 * or reset it (seen without waiting), or a send failed.  Sending into a
 * connection the peer closed succeeds once and loses its lines; asking
 * first lets a caller connect anew instead. */
bool net_sender_alive(const struct net_sender *sender);

/* Closes the socket. */
void net_sender_free(struct net_sender *sender);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline of a request's header.  libmicrohttpd only has an
 * inactivity timeout (30 s here, the keep-alive idle time), which a client
 * trickling a byte now and then never meets; so a thread of its own shuts
 * a connection's socket down when its header is late:
 *   - a new connection must send a whole request header (after the TLS
 *     handshake, if any) within header_s of being accepted;
 *   - a connection kept alive after an answer must send the next whole
 *     header within idle_s of that answer, and within header_s of the
 *     next request line, whichever comes first.
 * While a request is answered no deadline runs: libmicrohttpd's
 * inactivity timeout closes a client that stops reading.
 *
 * The hooks are libmicrohttpd's (MHD_OPTION_NOTIFY_CONNECTION,
 * MHD_OPTION_URI_LOG_CALLBACK, MHD_OPTION_NOTIFY_COMPLETED, and one call
 * from the answering callback); serve_http.c installs them.
 */
#ifndef PVECG_SERVE_DEADLINE_H
#define PVECG_SERVE_DEADLINE_H

#include <microhttpd.h>
#include <netinet/in.h>

struct serve_deadlines;
struct serve_proxy;

/* An address as the log names it, with " (the trusted proxy)". */
#define ADDR_TEXT (INET6_ADDRSTRLEN + 24)

/* Starts the watchdog; log(addr, seconds) tells of a connection it closed
 * and the deadline that applied to it (called without the list's lock),
 * naming the peer as serve_address_text() does with proxy (NULL: none;
 * kept, not copied).  Returns 0, or a negative errno. */
int serve_deadlines_start(unsigned header_s, unsigned idle_s,
                          const struct serve_proxy *proxy,
                          void (*log)(const char *addr, unsigned seconds),
                          struct serve_deadlines **ret);

/* After MHD_stop_daemon: every connection is gone by then. */
void serve_deadlines_stop(struct serve_deadlines *d);

/* MHD_OPTION_NOTIFY_CONNECTION: a connection opened or closed. */
void serve_deadlines_notify(void *cls, struct MHD_Connection *connection,
                            void **socket_context,
                            enum MHD_ConnectionNotificationCode code);

/* MHD_OPTION_URI_LOG_CALLBACK: a request line is in.  Returns NULL, the
 * request's context the answering callback starts with. */
void *serve_deadlines_request_line(void *cls, const char *uri,
                                   struct MHD_Connection *connection);

/* MHD_OPTION_NOTIFY_COMPLETED: a request was answered (or failed). */
void serve_deadlines_completed(void *cls, struct MHD_Connection *connection,
                               void **request_context,
                               enum MHD_RequestTerminationCode code);

/* From the answering callback: the request's header is in. */
void serve_deadlines_header_in(struct serve_deadlines *d,
                               struct MHD_Connection *connection);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's access to RRD files through an rrdcached daemon, with
 * librrd's process-wide client (rrdc_*: the per-connection rrd_client_*
 * functions of rrd_client.h are not exported by librrd.so.8).
 *
 * Addresses as rrdcached and rrdtool take them: "unix:/path" or "/path" is
 * a unix socket — the daemon is on this host, paths are sent absolute
 * (librrd resolves them here, so their directories must exist here) and
 * the files may be stat()ed; anything else ("host", "host:port",
 * "[v6addr]:port") is TCP — paths are relative to the daemon's base
 * directory, which makes the directories itself when started with -R.
 *
 * Files are created through the daemon (CREATE without overwrite, after a
 * FORGET so a deleted file's cached rows cannot land in the new one), and
 * checked from the daemon's INFO, so a foreign file is recognised without
 * reading it locally.  A lost connection is re-established once inside a
 * call; if that fails too the call returns -ENOTCONN.
 *
 * librrd sets no timeout on its socket: a call waits as long as the daemon
 * does not answer.  So a client is used by one thread that may wait (the
 * sink's sender), never by collectd's write threads, and that thread must
 * block or ignore SIGPIPE (a daemon that goes away makes writes raise it).
 * librrd has one connection per process: make at most one client.  It
 * makes its socket without close-on-exec; the client sets the flag after
 * every connect (rrdcached_cloexec.h).
 */
#ifndef PVECG_RRDCACHED_CLIENT_H
#define PVECG_RRDCACHED_CLIENT_H

#include "pvecg/rrd_access.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct rrdcached_client;

/* Whether address names a unix socket ("unix:/path" or "/path"). */
bool rrdcached_address_is_unix(const char *address);

/* Returns 0, -EINVAL for an address that is empty, has spaces or control
 * characters, or names a relative unix socket, or -ENOMEM.  Does not
 * connect. */
int rrdcached_client_new(const char *address, struct rrdcached_client **ret);
/* Disconnects. */
void rrdcached_client_free(struct rrdcached_client *client);

/* Whether the address is a unix socket (paths absolute, files local). */
bool rrdcached_client_is_unix(const struct rrdcached_client *client);
const char *rrdcached_client_address(const struct rrdcached_client *client);

/* The store's access through this client; valid while the client is. */
const struct rrd_access *rrdcached_client_access(struct rrdcached_client *c);

/*
 * Whether errno -- set to 0 just before an rrdc_* call -- shows that the
 * call's socket failed, whatever the call returned.  librrd 1.7.2 keeps
 * recv()'s -1 in a size_t and, instead of failing, reads on in its buffer:
 * a daemon that resets the connection before reading a request (rrdcached
 * does when it is stopped with the request in flight) makes the request
 * look answered with the previous request's answer -- an update reported
 * written that the daemon never saw.  recv() leaves its errno behind, and
 * nothing else in a request sets one of these.  (EPIPE is not one: a send
 * that fails so is made again by librrd on a new connection, whose answer
 * is read properly.)  A false alarm -- a send that failed otherwise and was
 * made again -- costs one request more, answered as a refusal naming the
 * row's own time (see rrd_access.h).
 */
bool rrdcached_socket_failed(int error);

/* Connects unless connected: 0, or -ENOTCONN with librrd's reason in err. */
int rrdcached_client_connect(struct rrdcached_client *client, char *err,
                             size_t err_size);
void rrdcached_client_disconnect(struct rrdcached_client *client);

/* The rows of a file as the daemon reads them. */
struct rrdcached_rows {
  time_t start, end; /* asked for; then the rows' */
  unsigned long step, ds_count;
  char **names; /* librrd's: each and the array freed with rrd_freemem */
  double *data; /* librrd's rrd_value_t, ds_count per row */
};

/*
 * FETCH of path with consolidation function cf over rows->start..end: the
 * daemon answers from the finest archive covering the range (FETCH has no
 * resolution).  Returns 0, -ENOTCONN, or -EIO with the reason in err.
 */
int rrdcached_client_fetch(struct rrdcached_client *client, const char *path,
                           const char *cf, struct rrdcached_rows *rows,
                           char *err, size_t err_size);

/* The file's header as the daemon reads it from disk (INFO: rows it still
 * holds are not in it), to be freed with rrd_info_free().  Returns 0,
 * -ENOENT, -ENOTCONN, or -EIO with the reason in err. */
struct rrd_info_t;
int rrdcached_client_info(struct rrdcached_client *client, const char *path,
                          struct rrd_info_t **ret, char *err, size_t err_size);

/* Makes the daemon write the file's pending rows now (FLUSH, which returns
 * when they are on disk): 0, -ENOTCONN, or -EIO with the reason in err. */
int rrdcached_client_flush(struct rrdcached_client *client, const char *path,
                           char *err, size_t err_size);

#endif

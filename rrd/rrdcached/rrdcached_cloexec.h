/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * librrd's connection to rrdcached has no close-on-exec flag, so programs
 * started by collectd's exec plugin would inherit it.  This sets the flag
 * on it after each connect.
 */
#ifndef PVECG_RRDCACHED_CLOEXEC_H
#define PVECG_RRDCACHED_CLOEXEC_H

/* Sets FD_CLOEXEC on every socket of this process that lacks it and is
 * connected to the daemon at address (as rrdcached_client_new takes it).
 * Returns how many were marked, or -1 when /proc/self/fd cannot be read. */
int rrdcached_socket_set_cloexec(const char *address);

#endif

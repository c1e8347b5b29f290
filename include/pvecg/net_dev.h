/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/net/dev: byte counters of every interface of the network namespace.
 *
 *   Inter-|   Receive ...                         |  Transmit ...
 *    face |bytes    packets errs drop fifo frame ...|bytes    packets ...
 *     eth0: 1234 5 0 0 0 0 0 0 5678 6 0 0 0 0 0 0
 *
 * One read of this file gives every guest's tap/veth counters, where
 * /sys/class/net/<if>/statistics/ would need two files per interface.
 */
#ifndef PVECG_NET_DEV_H
#define PVECG_NET_DEV_H

#include <stddef.h>
#include <stdint.h>

/* IFNAMSIZ - 1 */
#define NET_DEV_NAME_MAX 15

struct net_dev_counters {
  char name[NET_DEV_NAME_MAX + 1];
  uint64_t rx_bytes; /* received by the host on this interface */
  uint64_t tx_bytes; /* sent by the host on this interface */
};

/* Called for every interface line; returns 0 to go on, non-zero to stop
 * (that value is returned by net_dev_parse). */
typedef int (*net_dev_fn)(const struct net_dev_counters *dev, void *ctx);

/*
 * Parses the file: the two header lines, then one line per interface:
 * spaces, the name, ':', and 16 unsigned decimals.  Returns 0, the
 * callback's non-zero value, or -EBADMSG/-ERANGE for a malformed file (the
 * callback may have been called for the lines before).
 */
int net_dev_parse(const char *buf, size_t len, net_dev_fn fn, void *ctx);

#endif

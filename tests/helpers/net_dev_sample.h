/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A /proc/net/dev of a PVE node with two VMs and a container, for tests:
 * tap100i0 + tap100i1 (VM 100), veth200i0 (CT 200), a firewall pair and
 * bridge ports that must not be counted, and the physical NIC.
 * VM 100: netin (tx) 3000 + 40000 = 43000, netout (rx) 1000 + 20000 = 21000.
 * CT 200: netin 600, netout 500.
 */
#ifndef PVECG_NET_DEV_SAMPLE_H
#define PVECG_NET_DEV_SAMPLE_H

/* The kernel's own column layout, one line per line: not reformatted. */
/* clang-format off */
static const char net_dev_sample[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
    "    lo:   16527     197    0    0    0     0          0         0    16527     197    0    0    0     0       0          0\n"
    "  eth0:123456789012 9876543    0    5    0     0          0      1234 98765432  876543    0    0    0     0       0          0\n"
    " vmbr0: 5555 55 0 0 0 0 0 0 6666 66 0 0 0 0 0 0\n"
    "tap100i0:    1000      10    0    0    0     0          0         0     3000      30    0    0    0     0       0          0\n"
    "tap100i1:   20000      20    0    0    0     0          0         0    40000      40    0    0    0     0       0          0\n"
    "fwpr100p0:  777 7 0 0 0 0 0 0 888 8 0 0 0 0 0 0\n"
    "fwln100i0:  777 7 0 0 0 0 0 0 888 8 0 0 0 0 0 0\n"
    "veth200i0:     500       5    0    0    0     0          0         0      600       6    0    0    0     0       0          0\n";
/* clang-format on */

#endif

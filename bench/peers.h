/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mode "peers --guests N": the whole pvecg pipeline (pve_cgroup and pve_rrd
 * in collectd, writing through rrdcached) against two peers reading the
 * same N real guest cgroups once a second: Proxmox's own Perl read path
 * (bench/peers/pve_read.pl, see perl_path.h) and netdata's cgroups
 * collector (see netdata_run.h).  Each is measured as CPU time per second
 * minus the same program idle (collectd without guests, perl over no
 * guests, netdata over an empty tree), per guest; reported with the ratios
 * peer / pvecg.
 */
#ifndef PVECG_BENCH_PEERS_H
#define PVECG_BENCH_PEERS_H

#include "options.h"

/* Returns 0, 1, BENCH_EXIT_SKIPPED (not root, no cgroups, a program
 * missing: says which) or BENCH_EXIT_INTERRUPTED. */
int peers_mode(const struct bench_options *options);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the peers mode checks before and after measuring: that it can run
 * here (root, and every program it runs), which versions it runs, and that
 * each peer really read every guest's memory and pressure.
 */
#ifndef PVECG_BENCH_PEERS_CHECK_H
#define PVECG_BENCH_PEERS_CHECK_H

#include "netdata_run.h"
#include "perl_path.h"

#include <stddef.h>

/* 0, or BENCH_EXIT_SKIPPED after saying on stderr what is missing. */
int peers_check_programs(const char *collectd);

/* perl's and netdata's versions, as comment lines on stdout. */
void peers_check_print_versions(void);

/* One --check pass of the Perl script: every guest must give a memory
 * figure and six pressure values.  Says so on stdout.  Returns 0 or
 * -EBADMSG (or the script's error). */
int peers_check_perl(const struct perl_path *perl, size_t guests);

/* netdata's charts per kind against N, on stdout. */
void peers_check_print_charts(const struct netdata_charts *c, size_t guests);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mode "ksm --gib G": reproduces the table of Proxmox bug 6935 on this
 * machine.  A process holding G GiB of identical anonymous pages in a real
 * guest cgroup is measured without KSM and then with its pages merged by
 * KSM: RSS, PSS, the cgroup's memhost, and the time one extraction takes by
 * the smaps_rollup PSS path and by our sampler.
 */
#ifndef PVECG_BENCH_KSM_H
#define PVECG_BENCH_KSM_H

#include "options.h"

/* Returns the process exit status: 0, 1, BENCH_EXIT_SKIPPED (no root, no
 * cgroups or no KSM here) or BENCH_EXIT_INTERRUPTED. */
int ksm_mode(const struct bench_options *options);

#endif

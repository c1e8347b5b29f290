/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sampler as the benchmark runs it: over a guest tree, configured as
 * pve_cgroup configures it by default, except that there is no PVE config
 * directory on a benchmark host (guests' CPU and memory sizes then come
 * from their cgroup limits, as on a non-PVE host).  The descriptor budget
 * is pve_cgroup's: fd_budget_for_limit() of the soft RLIMIT_NOFILE, which
 * the benchmark has raised as far as it may.
 */
#ifndef PVECG_BENCH_SAMPLER_SETUP_H
#define PVECG_BENCH_SAMPLER_SETUP_H

#include "guest_tree.h"
#include "pvecg/sampler.h"

/* Returns 0 or the negative errno of sampler_new. */
int sampler_setup_new(const struct guest_tree *tree, struct sampler **ret);

#endif

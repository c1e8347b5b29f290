/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mode "methods --soak INTERVALS": the sampler over N guests for that many
 * intervals while one guest per interval goes and another comes (a new
 * VMID, or every third time the same VMID in a re-created directory); the
 * benchmark's descriptor count and RSS must not grow.
 */
#ifndef PVECG_BENCH_SOAK_H
#define PVECG_BENCH_SOAK_H

#include "options.h"

/* Returns the process exit status: 0, 1 (growth, a guest missed, or an
 * error), 130 when interrupted. */
int soak_mode(const struct bench_options *options);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mode "methods": the four readers of readers.h side by side on N guests,
 * in one run, medians over rounds, as a table and CSV rows.
 */
#ifndef PVECG_BENCH_METHODS_H
#define PVECG_BENCH_METHODS_H

#include "options.h"

/* Largest N for which the PSS path is measured: it needs one process per
 * guest. */
#define METHODS_PSS_MAX_GUESTS 1000

/* Returns the process exit status (0, 1, or 130 when interrupted). */
int methods_mode(const struct bench_options *options);

#endif

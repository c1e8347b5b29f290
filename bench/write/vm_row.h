/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The values of a benchmark's pve-vm-9.0 row: a few that change with the
 * guest and every row (so rrd has real work), the rest unknown.
 */
#ifndef PVECG_BENCH_VM_ROW_H
#define PVECG_BENCH_VM_ROW_H

#include <stddef.h>

/* Fills v (layout_pve_vm_9_0.ds_count values) for row `n` of `guest`. */
void vm_row_values(size_t guest, unsigned n, double *v);

#endif

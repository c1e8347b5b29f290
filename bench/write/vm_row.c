/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A benchmark's pve-vm-9.0 row (see vm_row.h).
 */
#include "vm_row.h"

#include "pvecg/rrd_layout.h"

#include <math.h>

void vm_row_values(size_t guest, unsigned n, double *v) {
  for (size_t i = 0; i < layout_pve_vm_9_0.ds_count; i++)
    v[i] = NAN;
  v[0] = 4;                                       /* maxcpu */
  v[1] = (double)((guest + n) % 100) / 100;       /* cpu */
  v[3] = v[10] = (double)(1u << 30) + n * 4096.0; /* mem, memhost */
  v[6] = v[7] = (double)n * 1000;                 /* netin, netout */
  v[11] = (double)(n % 10) / 4;                   /* pressurecpusome */
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Maps a guest sample onto the columns of the pve-vm-9.0 row.
 *
 * Column positions are looked up by name in the layout table once, so the
 * row follows the table and no column index is written down twice.
 * Columns the sampler does not gather are NAN (unknown, "U" in the RRD).
 */
#ifndef PVECG_GUEST_ROW_H
#define PVECG_GUEST_ROW_H

#include "pvecg/guest.h"
#include "pvecg/rrd_layout.h"

#include <stddef.h>

struct guest_row_map {
  size_t width; /* number of columns */
  int maxcpu, cpu, maxmem, mem;
  int diskread, diskwrite;
  int netin, netout;
  int memhost;
  int pressure_some[PSI_RESOURCE_COUNT];
  int pressure_full[PSI_RESOURCE_COUNT];
};

/* Returns 0, or -ENOENT when the layout lacks one of the columns. */
int guest_row_map_init(struct guest_row_map *map,
                       const struct rrd_layout *layout);

/* Fills values[0..map->width) from the sample. */
void guest_row_fill(const struct guest_row_map *map,
                    const struct guest_sample *sample, double *values);

#endif

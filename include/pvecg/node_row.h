/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Maps a node sample onto the columns of the pve-node-9.0 row.
 *
 * Column positions are looked up by name in the layout table once, as for
 * guests (guest_row.h), so the row follows the table and no column index is
 * written down twice.  Values the sample does not have are NAN (unknown,
 * "U" in the RRD).
 */
#ifndef PVECG_NODE_ROW_H
#define PVECG_NODE_ROW_H

#include "pvecg/node_sample.h"
#include "pvecg/rrd_layout.h"

#include <stddef.h>

struct node_row_map {
  size_t width;                 /* number of columns */
  int column[NODE_VALUE_COUNT]; /* column of each node_value */
};

/* Returns 0, or -ENOENT when the layout lacks one of the columns. */
int node_row_map_init(struct node_row_map *map,
                      const struct rrd_layout *layout);

/* Fills values[0..map->width) from the sample. */
void node_row_fill(const struct node_row_map *map,
                   const struct node_sample *sample, double *values);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Node sample -> pve-node-9.0 row (see node_row.h).
 *
 * The names are pvestatd's data-source names; the sample already holds
 * PVE's units (bytes, fractions for cpu and iowait, percent for pressure),
 * so the mapping is a name lookup and a copy.
 */
#include "pvecg/node_row.h"

#include <math.h>

static const char *const column_names[NODE_VALUE_COUNT] = {
    [NODE_LOADAVG] = "loadavg",
    [NODE_MAXCPU] = "maxcpu",
    [NODE_CPU] = "cpu",
    [NODE_IOWAIT] = "iowait",
    [NODE_MEMTOTAL] = "memtotal",
    [NODE_MEMUSED] = "memused",
    [NODE_SWAPTOTAL] = "swaptotal",
    [NODE_SWAPUSED] = "swapused",
    [NODE_ROOTTOTAL] = "roottotal",
    [NODE_ROOTUSED] = "rootused",
    [NODE_NETIN] = "netin",
    [NODE_NETOUT] = "netout",
    [NODE_MEMAVAILABLE] = "memavailable",
    [NODE_ARCSIZE] = "arcsize",
    [NODE_PRESSURE_CPU_SOME] = "pressurecpusome",
    [NODE_PRESSURE_IO_SOME] = "pressureiosome",
    [NODE_PRESSURE_IO_FULL] = "pressureiofull",
    [NODE_PRESSURE_MEMORY_SOME] = "pressurememorysome",
    [NODE_PRESSURE_MEMORY_FULL] = "pressurememoryfull",
};

int node_row_map_init(struct node_row_map *map,
                      const struct rrd_layout *layout) {
  for (int v = 0; v < NODE_VALUE_COUNT; v++) {
    int i = rrd_layout_ds_index(layout, column_names[v]);
    if (i < 0)
      return i;
    map->column[v] = i;
  }
  map->width = layout->ds_count;
  return 0;
}

void node_row_fill(const struct node_row_map *map,
                   const struct node_sample *sample, double *values) {
  for (size_t i = 0; i < map->width; i++)
    values[i] = NAN;
  for (int v = 0; v < NODE_VALUE_COUNT; v++)
    if (node_sample_has(sample, (enum node_value)v))
      values[map->column[v]] = sample->value[v];
}

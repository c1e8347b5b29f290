/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest sample -> pve-vm-9.0 row (see guest_row.h).
 *
 * Semantics follow pvestatd: memhost is the cgroup memory figure for QEMU
 * and unknown for LXC; mem is the same figure for both (PVE's default for a
 * VM without balloon statistics, and its LXC formula); pressure columns are
 * the avg10 of the some/full lines; cpu is the busy fraction of maxcpu
 * (0..1, not percent); diskread/diskwrite are the raw byte counters of
 * io.stat, which the RRD's DERIVE columns turn into rates.  Where PVE writes 0
 * for a missing QEMU pressure file we write unknown: a made-up 0 would read as
 * "no stall".
 */
#include "pvecg/guest_row.h"

#include <math.h>
#include <stdio.h>

static int column(const struct rrd_layout *layout, const char *name, int *ret) {
  int i = rrd_layout_ds_index(layout, name);
  if (i < 0)
    return i;
  *ret = i;
  return 0;
}

int guest_row_map_init(struct guest_row_map *map,
                       const struct rrd_layout *layout) {
  struct {
    const char *name;
    int *slot;
  } plain[] = {{"maxcpu", &map->maxcpu},     {"cpu", &map->cpu},
               {"maxmem", &map->maxmem},     {"mem", &map->mem},
               {"diskread", &map->diskread}, {"diskwrite", &map->diskwrite},
               {"netin", &map->netin},       {"netout", &map->netout},
               {"memhost", &map->memhost}};
  int err = 0;
  for (size_t i = 0; err == 0 && i < sizeof(plain) / sizeof(*plain); i++)
    err = column(layout, plain[i].name, plain[i].slot);
  for (int r = 0; err == 0 && r < PSI_RESOURCE_COUNT; r++) {
    char name[64];
    const char *res = psi_resource_name((enum psi_resource)r);
    snprintf(name, sizeof(name), "pressure%ssome", res);
    err = column(layout, name, &map->pressure_some[r]);
    snprintf(name, sizeof(name), "pressure%sfull", res);
    if (err == 0)
      err = column(layout, name, &map->pressure_full[r]);
  }
  map->width = layout->ds_count;
  return err;
}

void guest_row_fill(const struct guest_row_map *map,
                    const struct guest_sample *sample, double *values) {
  for (size_t i = 0; i < map->width; i++)
    values[i] = NAN;
  if (sample->maxcpu_valid) {
    values[map->maxcpu] = sample->maxcpu;
    if (sample->cpu_valid)
      values[map->cpu] = sample->cpu_busy / sample->maxcpu;
  }
  if (sample->maxmem_valid)
    values[map->maxmem] = (double)sample->maxmem;
  if (sample->io_valid) {
    values[map->diskread] = (double)sample->io.rbytes;
    values[map->diskwrite] = (double)sample->io.wbytes;
  }
  if (sample->net_valid) {
    values[map->netin] = (double)sample->netin;
    values[map->netout] = (double)sample->netout;
  }
  if (sample->memory_valid) {
    values[map->mem] = (double)sample->memory_used;
    if (sample->type == GUEST_QEMU)
      values[map->memhost] = (double)sample->memory_used;
  }
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++) {
    if (!sample->psi_valid[r])
      continue;
    values[map->pressure_some[r]] = sample->psi[r].some.avg10;
    if (sample->psi[r].has_full)
      values[map->pressure_full[r]] = sample->psi[r].full.avg10;
  }
}

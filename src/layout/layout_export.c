/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layout_export types-db|markdown: writes the layout tables out in two
 * forms, at build time, so nothing downstream keeps its own copy:
 *
 *   types-db  pvecg-types.db, the collectd types of the row value lists, for
 *             a collectd that receives rows over the network without
 *             loading our plugins (e.g. one forwarding them to Graphite).
 *             The definitions match what row_type.c registers: every
 *             column a GAUGE with min 0 and no max.
 *   markdown  docs/layouts.md, the reference of every layout; a test fails
 *             when the checked-in file differs from the tables.
 */
#include "pvecg/rrd_layout.h"

#include <stdio.h>
#include <string.h>

static void print_type(const struct rrd_layout *layout) {
  printf("%s", layout->type_name);
  for (size_t i = 0; i < layout->ds_count; i++)
    printf("%s%s:GAUGE:%s:U", i ? ", " : " ", layout->ds[i].name,
           layout->ds[i].negative ? "U" : "0");
  printf("\n");
}

static void types_db(void) {
  printf("# collectd types of pvecg: one value list carries one RRD row.\n"
         "# Generated from the layout tables; do not edit.\n");
  print_type(&layout_pve_vm_9_0);
  print_type(&layout_pve_node_9_0);
  print_type(&layout_pvecg_ksm_vm_1_0);
  print_type(&layout_pvecg_ksm_node_1_0);
  print_type(&layout_pvecg_pressure_vm_1_0);
  print_type(&layout_pvecg_pressure_node_1_0);
}

static void markdown_layout(const struct rrd_layout *l) {
  printf("\n## %s\n\n", l->name);
  char max[RRD_LAYOUT_MAX_TEXT];
  printf("Step %lu s; every data source `NAME:TYPE:%lu:MIN:%s`; collectd type "
         "`%s`.\n\n",
         l->step, l->heartbeat, rrd_layout_max_text(l, max), l->type_name);
  printf("| # | data source | type | min |\n|---|---|---|---|\n");
  for (size_t i = 0; i < l->ds_count; i++)
    printf("| %zu | `%s` | %s | %s |\n", i, l->ds[i].name,
           rrd_ds_type_name(l->ds[i].type), l->ds[i].negative ? "U" : "0");
  printf("\nArchives (xff %.1f), in file order:\n\n", l->xff);
  printf("| # | CF | steps per row | rows | resolution | covers |\n"
         "|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < l->rra_count; i++) {
    const struct rrd_rra_def *r = &l->rra[i];
    unsigned long reso = r->steps * l->step;
    printf("| %zu | %s | %lu | %lu | %lu s | %.1f days |\n", i,
           rrd_cf_name(r->cf), r->steps, r->rows, reso,
           (double)(reso * r->rows) / 86400.0);
  }
}

static void markdown(void) {
  printf("# RRD layouts\n\n"
         "Generated from the layout tables in `src/layout/rrd_layout.c` by "
         "`layout_export markdown`; do not edit.\n"
         "`pve_rrd` creates and writes `pve-vm-9.0` and `pve-node-9.0`; the "
         "legacy `pve2-*` layouts are known so that their files are "
         "recognised, never written.  `pvecg-ksm-vm-1.0` and "
         "`pvecg-ksm-node-1.0` are pvecg's own, written beside Proxmox's "
         "when `pve_cgroup` reads KSM statistics (`KSM auto`, the default, "
         "where the host runs KSM; or `KSM true`): what KSM "
         "saves per VM and per node, in files of their own so that "
         "Proxmox's layouts stay exactly Proxmox's.  `pvecg-pressure-vm-1.0` "
         "and `pvecg-pressure-node-1.0` are pvecg's too: the kernel's exact "
         "stall time (PSI `total`, microseconds) as counters, so each row "
         "holds the microseconds stalled per second of its step.\n");
  for (size_t i = 0; i < rrd_layouts_count; i++)
    markdown_layout(rrd_layouts[i]);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "types-db") == 0)
    types_db();
  else if (argc == 2 && strcmp(argv[1], "markdown") == 0)
    markdown();
  else {
    fprintf(stderr, "usage: layout_export types-db|markdown\n");
    return 2;
  }
  return ferror(stdout) ? 1 : 0;
}

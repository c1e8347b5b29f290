/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names_export markdown: writes docs/metric-names.md, the names every
 * column of a file gets in Proxmox's forms (export_names.c), at build
 * time; a test fails when the checked-in file differs from the table.
 */
#include "pvecg/export_names.h"
#include "pvecg/rrd_layout.h"

#include <stdio.h>
#include <string.h>

static void prometheus_cell(const struct export_metric *m) {
  if (!m->counter) {
    printf("`%s`%s", m->prom, m->percent ? " (percent / 100)" : "");
    return;
  }
  printf("`%s_total`", m->prom);
  if (m->older != NULL)
    printf(", gauge `%s`", m->older);
}

static void markdown_file(const struct rrd_layout *l, bool node) {
  for (size_t i = 0; i < l->ds_count; i++) {
    const struct export_metric *m = export_metric_of(l, node, i);
    if (m == NULL) {
      printf("| %s | `%s` | | | | not exported |\n", l->name, l->ds[i].name);
      continue;
    }
    printf("| %s | `%s`%s | `%s` `%s`", l->name, l->ds[i].name,
           m->micro     ? " (s)"
           : m->counter ? " (counter)"
                        : "",
           m->measurement, m->field);
    if (m->instance != NULL)
      printf(" (instance `%s`)", m->instance);
    printf(" | `");
    if (node && strcmp(m->measurement, "system") != 0)
      printf("%s.", m->measurement);
    if (m->instance != NULL)
      printf("%s.", m->instance);
    printf("%s` | ", m->field);
    prometheus_cell(m);
    printf(" | %s |\n", m->help);
  }
}

static void markdown(void) {
  printf("# Metric names\n\n"
         "Generated from the table in `src/exporting/export_names.c` by "
         "`names_export markdown`; do not edit.\n"
         "The names a file's columns get from `pvecg export` and `pvecg ship` "
         "(`--names pve`, the default) and on `pvecg serve`'s `/metrics`.\n\n"
         "- InfluxDB: measurement and field.  Tags: a guest's `object` "
         "(`qemu`, `lxc`), `vmid`, `nodename`, `host` (its name, when "
         "configured); a node's `object=nodes`, `host`.\n"
         "- Graphite: the path after `PREFIX.OBJECT.VMID.` or "
         "`PREFIX.nodes.NODE.`.\n"
         "- Prometheus: the family, labelled `id` (`qemu/100`, `lxc/101`, "
         "`node/pve1`).  An older gauge has the counter's values and HELP "
         "ending \"DEPRECATED: Use <counter>_total instead.\"; in OpenMetrics "
         "the counter is then typed `unknown`, else its family is named "
         "without `_total`.\n"
         "- (counter): the RRD keeps a rate; an export rebuilds the counter "
         "from 0 at the first row it writes, `/metrics` serves the last "
         "update's counter.  (s): the same, microseconds as seconds.\n"
         "- A named cluster adds its tag, Graphite level or label "
         "(pvecg-export(1)).  A legacy `pve2-*` file's columns are named as "
         "the 9.0 file's.\n\n"
         "| file | column | InfluxDB | Graphite | Prometheus | HELP |\n"
         "|---|---|---|---|---|---|\n");
  markdown_file(&layout_pve_vm_9_0, false);
  markdown_file(&layout_pvecg_ksm_vm_1_0, false);
  markdown_file(&layout_pvecg_pressure_vm_1_0, false);
  markdown_file(&layout_pve_node_9_0, true);
  markdown_file(&layout_pvecg_ksm_node_1_0, true);
  markdown_file(&layout_pvecg_pressure_node_1_0, true);
  printf("\nA guest with a configuration also gets `%s{id", EXPORT_GUEST_INFO);
  for (size_t i = 0; i < EXPORT_GUEST_INFO_LABELS; i++)
    printf(",%s", export_guest_info_labels[i]);
  printf("} 1` (HELP \"%s\"), at each row's time in an export.\n",
         EXPORT_GUEST_INFO_HELP);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "markdown") == 0)
    markdown();
  else {
    fprintf(stderr, "usage: names_export markdown\n");
    return 2;
  }
  return ferror(stdout) ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* KSM rows (see ksm_row.h). */
#include "pvecg/ksm_row.h"

#include "pvecg/rrd_layout.h"

#include <math.h>

_Static_assert(KSM_VM_COLUMNS == 4, "pvecg-ksm-vm-1.0 has four columns");
_Static_assert(KSM_NODE_COLUMNS == 6, "pvecg-ksm-node-1.0 has six columns");

static double node_value(const struct ksm_node_sample *node,
                         enum ksm_node_value v) {
  return node != NULL && ksm_node_has(node, v) ? node->value[v] : NAN;
}

/* The fraction of a merging page that is saved, on the node's average;
 * NAN when unknown. */
static double saved_fraction(const struct ksm_node_sample *node) {
  double shared = node_value(node, KSM_NODE_PAGES_SHARED);
  double sharing = node_value(node, KSM_NODE_PAGES_SHARING);
  if (isnan(shared) || isnan(sharing))
    return NAN;
  return shared + sharing > 0 ? sharing / (shared + sharing) : 0;
}

void ksm_vm_row(const struct ksm_stat *k, const struct ksm_node_sample *node,
                double page_size, double row[KSM_VM_COLUMNS]) {
  for (int i = 0; i < KSM_VM_COLUMNS; i++)
    row[i] = NAN;
  if (k == NULL)
    return;
  double zero = k->has_zero_pages ? (double)k->zero_pages : NAN;
  row[KSM_VM_MERGING] = (double)k->merging_pages;
  row[KSM_VM_ZERO] = zero;
  row[KSM_VM_PROFIT] = k->has_profit ? (double)k->profit : NAN;
  /* a kernel that does not count zero pages per process merged none the
   * saving could include */
  row[KSM_VM_SAVED] = ((double)k->merging_pages * saved_fraction(node) +
                       (isnan(zero) ? 0 : zero)) *
                      page_size;
}

void ksm_node_row(const struct ksm_node_sample *node, double page_size,
                  double row[KSM_NODE_COLUMNS]) {
  double zero = node_value(node, KSM_NODE_ZERO_PAGES);
  double sharing = node_value(node, KSM_NODE_PAGES_SHARING);
  row[KSM_NODE_COL_RUN] = node_value(node, KSM_NODE_RUN);
  row[KSM_NODE_COL_SHARED] = node_value(node, KSM_NODE_PAGES_SHARED);
  row[KSM_NODE_COL_SHARING] = sharing;
  row[KSM_NODE_COL_ZERO] = zero;
  row[KSM_NODE_COL_PROFIT] = node_value(node, KSM_NODE_GENERAL_PROFIT);
  row[KSM_NODE_COL_SAVED] = (sharing + (isnan(zero) ? 0 : zero)) * page_size;
}

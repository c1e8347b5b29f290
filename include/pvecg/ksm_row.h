/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A VM's and the node's KSM figures on the columns of the
 * pvecg-ksm-vm-1.0 and pvecg-ksm-node-1.0 rows (src/row/ksm_row.c);
 * unknown values are NAN ("U").  docs/values.md has the formulas.
 *
 * What KSM saves: a KSM page shared by k sites (pages of processes)
 * replaces k pages by one, saving k - 1; pages_shared counts the KSM
 * pages, pages_sharing the k - 1 sites beyond the first of each.  The node
 * saves (pages_sharing + ksm_zero_pages) pages.  A VM's share: each of its
 * merging pages is one site, and a site saves (k - 1) / k of a page; k per
 * page is not published, so the node's average stands in,
 * sharing / (shared + sharing), and the VM's pages merged with the zero
 * page count whole.  The shares of all merging processes add up to the
 * node's saving.
 */
#ifndef PVECG_KSM_ROW_H
#define PVECG_KSM_ROW_H

#include "pvecg/ksm_node.h"
#include "pvecg/ksm_stat.h"

#include <stdbool.h>

/* Columns of the two layouts, in their order. */
enum {
  KSM_VM_MERGING,
  KSM_VM_ZERO,
  KSM_VM_PROFIT,
  KSM_VM_SAVED,
  KSM_VM_COLUMNS
};
enum {
  KSM_NODE_COL_RUN,
  KSM_NODE_COL_SHARED,
  KSM_NODE_COL_SHARING,
  KSM_NODE_COL_ZERO,
  KSM_NODE_COL_PROFIT,
  KSM_NODE_COL_SAVED,
  KSM_NODE_COLUMNS
};

/* The VM's row from its ksm_stat (k NULL: none read this interval, all
 * unknown) and the node's sample of the same interval (the saved bytes
 * need its shared and sharing pages).  page_size in bytes. */
void ksm_vm_row(const struct ksm_stat *k, const struct ksm_node_sample *node,
                double page_size, double row[KSM_VM_COLUMNS]);

void ksm_node_row(const struct ksm_node_sample *node, double page_size,
                  double row[KSM_NODE_COLUMNS]);

#endif

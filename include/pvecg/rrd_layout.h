/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RRD layouts of Proxmox VE's pvestatd/pmxcfs, and pvecg's own KSM
 * and stall-time layouts beside them, as data.
 *
 * Each layout is one table: data sources in file order, the archive list,
 * step and heartbeat.  File creation, validation of existing files, row
 * formatting, the collectd value-list type and the documentation are all
 * derived from these tables, so a layout is written down exactly once.
 * This module is plain data: it does not link librrd.
 */
#ifndef PVECG_RRD_LAYOUT_H
#define PVECG_RRD_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* The widest layout (pve-node-9.0 has 19 columns). */
#define RRD_LAYOUT_DS_MAX 32

enum rrd_ds_type {
  RRD_DS_GAUGE,
  RRD_DS_DERIVE, /* raw cumulative counter; rrd computes the rate */
};

enum rrd_cf {
  RRD_CF_AVERAGE,
  RRD_CF_MAX,
};

struct rrd_ds_def {
  const char *name;
  enum rrd_ds_type type;
  /* min U instead of 0: the value may be negative (only pvecg's KSM
   * profit; every Proxmox column has min 0, and a value below it is
   * stored as unknown). */
  bool negative;
};

struct rrd_rra_def {
  enum rrd_cf cf;
  unsigned long steps; /* primary data points per row */
  unsigned long rows;
};

/* Whom a layout's files are of: named by VMID, or by node name. */
enum rrd_layout_kind { RRD_LAYOUT_GUEST, RRD_LAYOUT_NODE };

struct rrd_layout {
  const char *name; /* "pve-vm-9.0": also the directory of its files */
  enum rrd_layout_kind kind;
  const char *type_name; /* collectd value-list type carrying one row */
  unsigned long step;    /* seconds */
  unsigned long heartbeat;
  /* The largest rate every column may hold, or 0 for U (every Proxmox
   * layout): a rate above it is stored as unknown.  pvecg's stall columns
   * hold microseconds stalled per second, so 1,000,000 is 100 % of the
   * time: a jump of the counter (a collectd restart after a restarted
   * cgroup) gives one unknown row, never a spike. */
  unsigned long ds_max;
  double xff;
  const struct rrd_ds_def *ds;
  size_t ds_count;
  const struct rrd_rra_def *rra;
  size_t rra_count;
};

extern const struct rrd_layout layout_pve_vm_9_0;
extern const struct rrd_layout layout_pve_node_9_0;
extern const struct rrd_layout layout_pve2_vm;   /* legacy, read-only */
extern const struct rrd_layout layout_pve2_node; /* legacy, read-only */
/* pvecg's own: what KSM saves per VM and per node.  Files of their own,
 * so that pve-vm-9.0 and pve-node-9.0 stay exactly Proxmox's. */
extern const struct rrd_layout layout_pvecg_ksm_vm_1_0;
extern const struct rrd_layout layout_pvecg_ksm_node_1_0;
/* pvecg's own: the exact stall time (PSI totals) per guest and per node. */
extern const struct rrd_layout layout_pvecg_pressure_vm_1_0;
extern const struct rrd_layout layout_pvecg_pressure_node_1_0;

/* Every layout above, for lookups by name or type. */
extern const struct rrd_layout *const rrd_layouts[];
extern const size_t rrd_layouts_count;

/* Index of the data source called name, or -ENOENT. */
int rrd_layout_ds_index(const struct rrd_layout *layout, const char *name);

/* The layout whose type_name is name, or NULL. */
const struct rrd_layout *rrd_layout_by_type(const char *type_name);

/* Whether a file's DS max (NaN for U) is the layout's. */
bool rrd_layout_max_is(const struct rrd_layout *layout, double max);

/* The layout's DS max as rrdtool writes it: "U" or the number. */
#define RRD_LAYOUT_MAX_TEXT 24
const char *rrd_layout_max_text(const struct rrd_layout *layout,
                                char buf[RRD_LAYOUT_MAX_TEXT]);

/* "GAUGE"/"DERIVE" and "AVERAGE"/"MAX", as rrdtool spells them. */
const char *rrd_ds_type_name(enum rrd_ds_type type);
const char *rrd_cf_name(enum rrd_cf cf);

#endif

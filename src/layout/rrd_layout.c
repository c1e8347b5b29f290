/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The four RRD layouts of Proxmox VE, and pvecg's two KSM layouts, as
 * static tables (see rrd_layout.h).
 *
 * The facts come from pmxcfs (status.c) and PVE's RRD.pm: every DS is
 * NAME:TYPE:120:0:U, step 60 s, xff 0.5.  The legacy pve2 layouts are
 * prefixes of the 9.0 ones (PVE 9 only appended columns), so they point into
 * the 9.0 column tables instead of repeating the names.
 */
#include "pvecg/rrd_layout.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PVE_STEP 60
#define PVE_HEARTBEAT 120
#define PVE_XFF 0.5

/* Column counts of the PVE <= 8 files: the first columns of the 9.0 ones. */
#define PVE2_VM_DS_COUNT 10
#define PVE2_NODE_DS_COUNT 12

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static const struct rrd_ds_def pve_vm_9_0_ds[] = {
    {"maxcpu", RRD_DS_GAUGE, false},
    {"cpu", RRD_DS_GAUGE, false},
    {"maxmem", RRD_DS_GAUGE, false},
    {"mem", RRD_DS_GAUGE, false},
    {"maxdisk", RRD_DS_GAUGE, false},
    {"disk", RRD_DS_GAUGE, false},
    {"netin", RRD_DS_DERIVE, false},
    {"netout", RRD_DS_DERIVE, false},
    {"diskread", RRD_DS_DERIVE, false},
    {"diskwrite", RRD_DS_DERIVE, false},
    /* 9.0 additions */
    {"memhost", RRD_DS_GAUGE, false},
    {"pressurecpusome", RRD_DS_GAUGE, false},
    {"pressurecpufull", RRD_DS_GAUGE, false},
    {"pressureiosome", RRD_DS_GAUGE, false},
    {"pressureiofull", RRD_DS_GAUGE, false},
    {"pressurememorysome", RRD_DS_GAUGE, false},
    {"pressurememoryfull", RRD_DS_GAUGE, false},
};

static const struct rrd_ds_def pve_node_9_0_ds[] = {
    {"loadavg", RRD_DS_GAUGE, false},
    {"maxcpu", RRD_DS_GAUGE, false},
    {"cpu", RRD_DS_GAUGE, false},
    {"iowait", RRD_DS_GAUGE, false},
    {"memtotal", RRD_DS_GAUGE, false},
    {"memused", RRD_DS_GAUGE, false},
    {"swaptotal", RRD_DS_GAUGE, false},
    {"swapused", RRD_DS_GAUGE, false},
    {"roottotal", RRD_DS_GAUGE, false},
    {"rootused", RRD_DS_GAUGE, false},
    {"netin", RRD_DS_DERIVE, false},
    {"netout", RRD_DS_DERIVE, false},
    /* 9.0 additions; the node has no pressurecpufull */
    {"memavailable", RRD_DS_GAUGE, false},
    {"arcsize", RRD_DS_GAUGE, false},
    {"pressurecpusome", RRD_DS_GAUGE, false},
    {"pressureiosome", RRD_DS_GAUGE, false},
    {"pressureiofull", RRD_DS_GAUGE, false},
    {"pressurememorysome", RRD_DS_GAUGE, false},
    {"pressurememoryfull", RRD_DS_GAUGE, false},
};

/* One minute for a day, 30 minutes for a month, 6 hours for a year, one
 * week for about eleven years. */
static const struct rrd_rra_def pve_9_0_rra[] = {
    {RRD_CF_AVERAGE, 1, 1440},   {RRD_CF_AVERAGE, 30, 1440},
    {RRD_CF_AVERAGE, 360, 1440}, {RRD_CF_AVERAGE, 10080, 570},
    {RRD_CF_MAX, 1, 1440},       {RRD_CF_MAX, 30, 1440},
    {RRD_CF_MAX, 360, 1440},     {RRD_CF_MAX, 10080, 570},
};

/* KSM per VM (the QEMU process's /proc/<pid>/ksm_stat) and per node
 * (/sys/kernel/mm/ksm/); docs/values.md has the formulas.  Named like
 * PVE's columns, steps and archives pve_9_0_rra's, so that their graphs
 * line up with memhost's. */
static const struct rrd_ds_def pvecg_ksm_vm_1_0_ds[] = {
    {"ksmmerging", RRD_DS_GAUGE, false}, /* pages merged */
    {"ksmzero", RRD_DS_GAUGE, false},    /* pages merged with the zero page */
    {"ksmprofit", RRD_DS_GAUGE, true},   /* bytes, the kernel's: may be < 0 */
    {"ksmsaved", RRD_DS_GAUGE, false},   /* bytes saved, the VM's share */
};

static const struct rrd_ds_def pvecg_ksm_node_1_0_ds[] = {
    {"ksmrun", RRD_DS_GAUGE,
     false}, /* ksmd: 0 stopped, 1 running, 2 unmerging */
    {"ksmshared", RRD_DS_GAUGE, false},  /* KSM pages in use */
    {"ksmsharing", RRD_DS_GAUGE, false}, /* further sites sharing them */
    {"ksmzero", RRD_DS_GAUGE, false},    /* pages merged with the zero page */
    {"ksmprofit", RRD_DS_GAUGE, true},   /* bytes, general_profit: may be < 0 */
    {"ksmsaved", RRD_DS_GAUGE, false},   /* bytes: (sharing + zero) pages */
};

static const struct rrd_rra_def pve2_rra[] = {
    {RRD_CF_AVERAGE, 1, 70},     {RRD_CF_AVERAGE, 30, 70},
    {RRD_CF_AVERAGE, 180, 70},   {RRD_CF_AVERAGE, 720, 70},
    {RRD_CF_AVERAGE, 10080, 70}, {RRD_CF_MAX, 1, 70},
    {RRD_CF_MAX, 30, 70},        {RRD_CF_MAX, 180, 70},
    {RRD_CF_MAX, 720, 70},       {RRD_CF_MAX, 10080, 70},
};

_Static_assert(COUNT(pve_vm_9_0_ds) <= RRD_LAYOUT_DS_MAX, "too many columns");
_Static_assert(COUNT(pve_node_9_0_ds) <= RRD_LAYOUT_DS_MAX, "too many columns");
_Static_assert(PVE2_VM_DS_COUNT <= COUNT(pve_vm_9_0_ds), "not a prefix");
_Static_assert(PVE2_NODE_DS_COUNT <= COUNT(pve_node_9_0_ds), "not a prefix");

const struct rrd_layout layout_pve_vm_9_0 = {
    .name = "pve-vm-9.0",
    .kind = RRD_LAYOUT_GUEST,
    .type_name = "pve_vm_9_0",
    .step = PVE_STEP,
    .heartbeat = PVE_HEARTBEAT,
    .xff = PVE_XFF,
    .ds = pve_vm_9_0_ds,
    .ds_count = COUNT(pve_vm_9_0_ds),
    .rra = pve_9_0_rra,
    .rra_count = COUNT(pve_9_0_rra),
};

const struct rrd_layout layout_pve_node_9_0 = {
    .name = "pve-node-9.0",
    .kind = RRD_LAYOUT_NODE,
    .type_name = "pve_node_9_0",
    .step = PVE_STEP,
    .heartbeat = PVE_HEARTBEAT,
    .xff = PVE_XFF,
    .ds = pve_node_9_0_ds,
    .ds_count = COUNT(pve_node_9_0_ds),
    .rra = pve_9_0_rra,
    .rra_count = COUNT(pve_9_0_rra),
};

const struct rrd_layout layout_pve2_vm = {
    .name = "pve2-vm",
    .kind = RRD_LAYOUT_GUEST,
    .type_name = "pve2_vm",
    .step = PVE_STEP,
    .heartbeat = PVE_HEARTBEAT,
    .xff = PVE_XFF,
    .ds = pve_vm_9_0_ds,
    .ds_count = PVE2_VM_DS_COUNT,
    .rra = pve2_rra,
    .rra_count = COUNT(pve2_rra),
};

const struct rrd_layout layout_pve2_node = {
    .name = "pve2-node",
    .kind = RRD_LAYOUT_NODE,
    .type_name = "pve2_node",
    .step = PVE_STEP,
    .heartbeat = PVE_HEARTBEAT,
    .xff = PVE_XFF,
    .ds = pve_node_9_0_ds,
    .ds_count = PVE2_NODE_DS_COUNT,
    .rra = pve2_rra,
    .rra_count = COUNT(pve2_rra),
};

const struct rrd_layout layout_pvecg_ksm_vm_1_0 = {
    .name = "pvecg-ksm-vm-1.0",
    .kind = RRD_LAYOUT_GUEST,
    .type_name = "pvecg_ksm_vm_1_0",
    .step = PVE_STEP,
    .heartbeat = PVE_HEARTBEAT,
    .xff = PVE_XFF,
    .ds = pvecg_ksm_vm_1_0_ds,
    .ds_count = COUNT(pvecg_ksm_vm_1_0_ds),
    .rra = pve_9_0_rra,
    .rra_count = COUNT(pve_9_0_rra),
};

const struct rrd_layout layout_pvecg_ksm_node_1_0 = {
    .name = "pvecg-ksm-node-1.0",
    .kind = RRD_LAYOUT_NODE,
    .type_name = "pvecg_ksm_node_1_0",
    .step = PVE_STEP,
    .heartbeat = PVE_HEARTBEAT,
    .xff = PVE_XFF,
    .ds = pvecg_ksm_node_1_0_ds,
    .ds_count = COUNT(pvecg_ksm_node_1_0_ds),
    .rra = pve_9_0_rra,
    .rra_count = COUNT(pve_9_0_rra),
};

/* Exact stall time per guest and per node: the kernel's PSI `total`
 * (microseconds stalled, a counter) of cpu, io and memory, some and full,
 * as DERIVE, so each row holds the microseconds stalled per second of its
 * step: the exact share of the step, where Proxmox's pressure columns are
 * sampled 10-second averages.  A counter that goes back (a guest's new
 * cgroup) is unknown for a row, never a spike; the plugin keeps each
 * update within the time elapsed, and the files' max of 1,000,000 (100 %)
 * turns any rate above it into an unknown row: DS:NAME:DERIVE:120:0:1000000,
 * the one departure from Proxmox's NAME:TYPE:120:0:U. */
#define STALL_MAX 1000000
static const struct rrd_ds_def pvecg_pressure_1_0_ds[] = {
    {"stallcpusome", RRD_DS_DERIVE, false},
    {"stallcpufull", RRD_DS_DERIVE, false},
    {"stalliosome", RRD_DS_DERIVE, false},
    {"stalliofull", RRD_DS_DERIVE, false},
    {"stallmemorysome", RRD_DS_DERIVE, false},
    {"stallmemoryfull", RRD_DS_DERIVE, false},
};

const struct rrd_layout layout_pvecg_pressure_vm_1_0 = {
    .name = "pvecg-pressure-vm-1.0",
    .kind = RRD_LAYOUT_GUEST,
    .type_name = "pvecg_pressure_vm_1_0",
    .step = PVE_STEP,
    .heartbeat = PVE_HEARTBEAT,
    .ds_max = STALL_MAX,
    .xff = PVE_XFF,
    .ds = pvecg_pressure_1_0_ds,
    .ds_count = COUNT(pvecg_pressure_1_0_ds),
    .rra = pve_9_0_rra,
    .rra_count = COUNT(pve_9_0_rra),
};

const struct rrd_layout layout_pvecg_pressure_node_1_0 = {
    .name = "pvecg-pressure-node-1.0",
    .kind = RRD_LAYOUT_NODE,
    .type_name = "pvecg_pressure_node_1_0",
    .step = PVE_STEP,
    .heartbeat = PVE_HEARTBEAT,
    .ds_max = STALL_MAX,
    .xff = PVE_XFF,
    .ds = pvecg_pressure_1_0_ds,
    .ds_count = COUNT(pvecg_pressure_1_0_ds),
    .rra = pve_9_0_rra,
    .rra_count = COUNT(pve_9_0_rra),
};

const struct rrd_layout *const rrd_layouts[] = {
    &layout_pve_vm_9_0,
    &layout_pve_node_9_0,
    &layout_pve2_vm,
    &layout_pve2_node,
    &layout_pvecg_ksm_vm_1_0,
    &layout_pvecg_ksm_node_1_0,
    &layout_pvecg_pressure_vm_1_0,
    &layout_pvecg_pressure_node_1_0,
};
const size_t rrd_layouts_count = COUNT(rrd_layouts);

int rrd_layout_ds_index(const struct rrd_layout *layout, const char *name) {
  if (layout == NULL || name == NULL)
    return -ENOENT;
  for (size_t i = 0; i < layout->ds_count; i++)
    if (strcmp(layout->ds[i].name, name) == 0)
      return (int)i;
  return -ENOENT;
}

const struct rrd_layout *rrd_layout_by_type(const char *type_name) {
  if (type_name == NULL)
    return NULL;
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (strcmp(rrd_layouts[i]->type_name, type_name) == 0)
      return rrd_layouts[i];
  return NULL;
}

bool rrd_layout_max_is(const struct rrd_layout *layout, double max) {
  return layout->ds_max == 0 ? isnan(max) : max == (double)layout->ds_max;
}

const char *rrd_layout_max_text(const struct rrd_layout *layout,
                                char buf[RRD_LAYOUT_MAX_TEXT]) {
  if (layout->ds_max == 0)
    return "U";
  snprintf(buf, RRD_LAYOUT_MAX_TEXT, "%lu", layout->ds_max);
  return buf;
}

/* Out-of-range enums get a name librrd rejects, so a corrupt table fails
 * loudly at creation instead of making a file with a guessed type. */
const char *rrd_ds_type_name(enum rrd_ds_type type) {
  switch (type) {
  case RRD_DS_GAUGE:
    return "GAUGE";
  case RRD_DS_DERIVE:
    return "DERIVE";
  }
  return "INVALID";
}

const char *rrd_cf_name(enum rrd_cf cf) {
  switch (cf) {
  case RRD_CF_AVERAGE:
    return "AVERAGE";
  case RRD_CF_MAX:
    return "MAX";
  }
  return "INVALID";
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collectd value-list type that carries one whole RRD row.
 *
 * Both plugins register it from the layout table in their init, so a
 * row dispatched by pve_cgroup, or received by the network plugin, is
 * understood by pve_rrd without a types.db entry; types.db lines for
 * receivers that run only collectd's own plugins are generated from the
 * same table (pvecg-types.db).  All its data sources are GAUGE, including
 * the byte counters: collectd's DERIVE cannot express "unknown", and the RRD
 * file's DERIVE columns compute the rates anyway.
 */
#ifndef PVECG_ROW_TYPE_H
#define PVECG_ROW_TYPE_H

#include "pvecg/rrd_layout.h"

/* Registers layout->type_name unless a data set of that name exists.
 * Returns 0 or -1 (collectd has logged why). */
int row_type_register(const struct rrd_layout *layout);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node row of pve_cgroup: samples the host (node_sampler) each
 * interval and dispatches one pve_node_9_0 value list, host = the node
 * name, which pve_rrd writes to pve-node-9.0/<node>.  Problems with a
 * source are logged when they start and when they end.
 */
#ifndef PVECG_NODE_DISPATCH_H
#define PVECG_NODE_DISPATCH_H

#include "pvecg/node_sample.h"

#include <stdbool.h>
#include <stdint.h>

/* Returns 0 or -1 (logged). */
int node_dispatch_init(const struct node_sampler_config *config,
                       const char *node_name);

/* time is collectd's cdtime_t of this interval's rows; stall: also the
 * node's stall-time row (stall_dispatch.h). */
void node_dispatch_run(uint64_t time, bool stall);

void node_dispatch_shutdown(void);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_rrd's <Cluster> blocks and StandaloneHosts option, and the hosts
 * whose rows they refuse (cluster_config.c).  The map itself, and the
 * reasons for it, are rrd_cluster_map.h's.
 */
#ifndef PVECG_PLUGIN_CLUSTER_CONFIG_H
#define PVECG_PLUGIN_CLUSTER_CONFIG_H

#include "collectd/core/daemon/configfile.h"

#include <stdbool.h>

/* Takes a <Cluster "name"> block: Host "a" "b" ..., on one or more lines.
 * Returns 0, or -1 with the reason logged: the configuration is refused. */
int cluster_config_block(const oconfig_item_t *ci);

/* Takes StandaloneHosts true|false.  Returns 0 or -1 (logged). */
int cluster_config_standalone(oconfig_item_t *ci);

/* Whether the configuration keeps clusters apart (logged at init). */
bool cluster_config_active(void);

/* The cluster whose directory host's rows go to ("": the data directory),
 * or NULL when they are refused: then the reason is logged, at error
 * level, the first time for each host (and rate-limited beyond the hosts
 * it remembers). */
const char *cluster_config_of(const char *host);

/* The cluster of host, or NULL, and nothing logged (for flush requests). */
const char *cluster_config_peek(const char *host);

void cluster_config_free(void);

#endif

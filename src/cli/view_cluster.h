/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which cluster `pvecg rrddata` and `pvecg graph` read a --vmid/--node
 * file of when --cluster is not given: the rule of `pvecg export`
 * (export_files_pick_cluster).
 */
#ifndef PVECG_CLI_VIEW_CLUSTER_H
#define PVECG_CLI_VIEW_CLUSTER_H

#include "pvecg/rrd_file_name.h"
#include "pvecg/view_source.h"

/*
 * Sets args->cluster (to buf) when the local data directory has named
 * clusters, --cluster was not given and a --vmid/--node file is in one of
 * them only.  Returns 0, or -EEXIST when several clusters have it (printed
 * on stderr as "<cmd>: ...").
 */
int view_cluster_pick(struct view_args *args, const char *cmd,
                      char buf[RRD_FILE_NAME_MAX + 1]);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which clusters of the data directory an answer covers, and where each
 * one's files and guest configurations are (data_clusters.h).  A data
 * directory without named clusters is the one cluster "", whose
 * directories are the data and configuration directories themselves, so
 * every answer over it stays what it was before clusters existed; an
 * entry of a named cluster carries its name ("cluster" in JSON, a
 * `cluster` label in /metrics).
 *
 * Proxmox's API paths name a guest by VMID and a node by name, which two
 * clusters may share.  The paths are kept as they are, so that every
 * Proxmox API client reads them, and a `cluster` parameter says which
 * cluster is meant; without it serve_cluster_pick() takes the one that
 * can be meant.
 */
#ifndef PVECG_SERVE_CLUSTER_H
#define PVECG_SERVE_CLUSTER_H

#include "pvecg/data_clusters.h"
#include "pvecg/serve.h"

#include "serve_request.h"
#include "serve_scope.h"

#include <limits.h>
#include <stddef.h>

/*
 * The clusters of config->list_dir that req covers: every one, or only the
 * one its cluster parameter names (none when it is not there).  Returns 0
 * or -ENOMEM; a list directory that cannot be read is the cluster "" alone,
 * as it was listed before clusters existed.
 */
int serve_clusters_of(const struct serve_config *config,
                      const struct serve_request *req,
                      struct data_clusters *ret);

/* Where one cluster's files are listed and its guests named; its files
 * themselves are rrd_cluster_file_path(config->data_dir, cluster, ...). */
struct serve_cluster_dirs {
  char list[PATH_MAX];   /* listings: a local directory */
  char config[PATH_MAX]; /* guests' configurations; "" for none */
};

/* Returns 0, or -EINVAL / -ENAMETOOLONG (data_cluster_dir()). */
int serve_cluster_dirs(const struct serve_config *config, const char *cluster,
                       struct serve_cluster_dirs *ret);

/*
 * The cluster of the file name of layout that a request without a cluster
 * parameter means: "" when the data directory itself has it, else the one
 * named cluster that has it.  Returns 0 with the name in ret, -ENOENT when
 * no cluster has it, or -EEXIST when several named clusters do (and "" has
 * none); their names, ", "-separated, are then in ret.  Under scope
 * (NULL: none) a cluster whose file it does not see has none.
 */
int serve_cluster_pick(const struct serve_config *config,
                       const struct rrd_layout *layout, const char *name,
                       const struct serve_scope *scope, char *ret, size_t size);

#endif

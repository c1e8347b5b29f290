/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which cluster's directory a host's rows go to: pve_rrd's <Cluster>
 * blocks and StandaloneHosts, checked once at start and looked up for
 * every row (rrd/store/rrd_cluster_map.c).
 *
 * VMIDs are unique inside one Proxmox VE cluster only; a collector for
 * several clusters or standalone hosts keeps each in a directory of its
 * own, <DataDir>/<cluster>/ laid out like a whole data directory
 * (rrd_file_name.h), the way collectd's rrdtool plugin gives each host a
 * directory -- but by cluster, not by host, because inside a cluster a
 * guest migrates between nodes and its file must follow it, as pmxcfs's
 * cluster-wide pve-vm-9.0/<vmid> does.
 *
 * - No cluster and no StandaloneHosts: every host's rows go to the data
 *   directory itself (the cluster ""), exactly as before clusters existed.
 * - Otherwise a host listed in a cluster goes to that cluster's directory;
 *   any other host is its own cluster named after it with
 *   StandaloneHosts, and is refused without: a row is never written to a
 *   directory the configuration does not name.  A standalone host whose
 *   name cannot name a directory, or is a configured cluster's name, is
 *   refused too.
 *
 * Built single-threaded at configuration time, then only read: lookups
 * need no lock.
 */
#ifndef PVECG_RRD_CLUSTER_MAP_H
#define PVECG_RRD_CLUSTER_MAP_H

#include <stdbool.h>
#include <stddef.h>

struct rrd_cluster_map;

/* An empty map (no clusters, no StandaloneHosts); NULL when out of memory. */
struct rrd_cluster_map *rrd_cluster_map_new(void);
void rrd_cluster_map_free(struct rrd_cluster_map *map);

/*
 * Adds a cluster with its hosts.  Returns 0, -ENOMEM, or -EINVAL with the
 * reason in err: a cluster name rrd_cluster_name_problem() refuses, a
 * cluster given twice, no host, a host name that cannot name a file
 * (rrd_file_name_problem()), or a host already in a cluster.
 */
int rrd_cluster_map_add(struct rrd_cluster_map *map, const char *cluster,
                        const char *const *hosts, size_t count, char *err,
                        size_t err_size);

void rrd_cluster_map_set_standalone(struct rrd_cluster_map *map, bool on);

/* Whether the map keeps clusters apart (any cluster, or StandaloneHosts). */
bool rrd_cluster_map_active(const struct rrd_cluster_map *map);

enum rrd_cluster_verdict {
  RRD_CLUSTER_OF,         /* *cluster is the host's ("" when inactive) */
  RRD_CLUSTER_UNLISTED,   /* in no cluster, and no StandaloneHosts */
  RRD_CLUSTER_BAD_NAME,   /* standalone, but its name cannot name a
                             cluster's directory */
  RRD_CLUSTER_NAME_TAKEN, /* standalone, but a configured cluster has
                             its name */
};

/* Where host's rows go; *cluster points into the map or at host. */
enum rrd_cluster_verdict rrd_cluster_map_find(const struct rrd_cluster_map *map,
                                              const char *host,
                                              const char **cluster);

/* The line that says why host's rows are refused (a verdict but
 * RRD_CLUSTER_OF), naming the setting that fixes it. */
void rrd_cluster_map_refusal(enum rrd_cluster_verdict verdict, const char *host,
                             char *buf, size_t size);

#endif

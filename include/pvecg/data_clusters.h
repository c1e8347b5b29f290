/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The clusters of a data directory, for everything that reads the files.
 *
 * A writer without <Cluster> settings keeps the layouts' directories in
 * the data directory itself (pve-vm-9.0/, pve-node-9.0/): one cluster,
 * named "" and shown without a name, exactly as before clusters existed.
 * A writer that keeps several clusters apart gives each a subdirectory,
 * <data dir>/<cluster>/, laid out like a whole data directory.  Both may be
 * there at once (files written before the settings were added), so a
 * reader takes the data directory itself as the cluster "" when it holds a
 * layout's directory, and every subdirectory whose name
 * rrd_cluster_name_problem() accepts and that holds one as a cluster.  A
 * data directory with neither (new, or not there yet) is the one cluster
 * "", with no files.
 *
 * Guests' names come from a copy of each cluster's /etc/pve the same way:
 * the configuration directory itself for "", <config dir>/<cluster>/ for
 * the others (data_cluster_dir for both).
 */
#ifndef PVECG_DATA_CLUSTERS_H
#define PVECG_DATA_CLUSTERS_H

#include "pvecg/rrd_file_name.h"

#include <stdbool.h>
#include <stddef.h>

struct data_cluster {
  char name[RRD_FILE_NAME_MAX + 1]; /* "": the data directory itself */
};

struct data_clusters {
  struct data_cluster *cluster; /* "" first, then by name (strcmp) */
  size_t count;                 /* at least 1 after a successful scan */
};

/* Lists the clusters of data_dir.  Returns 0, -ENOMEM, or the negative
 * errno of reading a data directory that exists. */
int data_clusters_scan(const char *data_dir, struct data_clusters *ret);

void data_clusters_free(struct data_clusters *clusters);

/* Whether the scan found named clusters: readers then say which cluster a
 * file is of (a label, a tag, a column), and say nothing with "" alone. */
bool data_clusters_named(const struct data_clusters *clusters);

/* The cluster's name in clusters, or NULL. */
const struct data_cluster *data_clusters_find(const struct data_clusters *c,
                                              const char *name);

/*
 * "<dir>/<cluster>", or dir itself for the cluster "" (NULL or "").
 * Returns 0, -EINVAL for a name rrd_cluster_name_problem() refuses, or
 * -ENAMETOOLONG.
 */
int data_cluster_dir(const char *dir, const char *cluster, char *buf,
                     size_t size);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who the guests of each cluster are, for the export's and the shipper's
 * names: a guest_directory per cluster, read on first use from that
 * cluster's copy of /etc/pve (data_clusters.h: the configuration directory
 * itself for the cluster "", <config dir>/<cluster> for the others), each
 * guest's configuration read at its first find and kept until
 * guest_directories_forget() (guest_directory_keep()).  A
 * VMID means another guest in each cluster, so one directory for all of
 * them would give a guest another's name.
 */
#ifndef PVECG_GUEST_DIRECTORIES_H
#define PVECG_GUEST_DIRECTORIES_H

#include "pvecg/guest_directory.h"

struct guest_directories;

/* For config_dir (NULL: nobody is known).  NULL: no memory. */
struct guest_directories *guest_directories_new(const char *config_dir);

/* The cluster's guests (NULL or "": the configuration directory's own),
 * read now when they were not yet.  NULL: no memory, or a cluster name
 * rrd_cluster_name_problem() refuses. */
const struct guest_directory *guest_directories_get(struct guest_directories *d,
                                                    const char *cluster);

/* Forgets what was read: each cluster is read again at its next use. */
void guest_directories_forget(struct guest_directories *d);

void guest_directories_free(struct guest_directories *d);

#endif

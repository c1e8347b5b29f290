/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a layout's files live: <data dir>/<layout name>/<file name>, with
 * the file name a VMID or a node name, or <data dir>/<cluster>/<layout
 * name>/<file name> when one writer keeps several clusters apart (a
 * cluster's directory is laid out like a whole data directory).  Those names
 * come from outside (a directory name, a host name over the network plugin, a
 * command line), so every path is built here, after the name has been checked,
 * by the writer (rrd_store.c), the read plugin for its node name (pve_cgroup.c)
 * and the pvecg command alike: one rule for every name.
 */
#ifndef PVECG_RRD_FILE_NAME_H
#define PVECG_RRD_FILE_NAME_H

#include "pvecg/rrd_layout.h"

#include <stddef.h>

/* Longest file name (a node name; VMIDs are at most 9 digits). */
#define RRD_FILE_NAME_MAX 64

/* Why name cannot be a file name: empty, "." or "..", a '/' or a '\\', a
 * control character, longer than RRD_FILE_NAME_MAX.  NULL when it can.
 * Proxmox VE names a node by a host name label, which meets none of these;
 * the backslash, rrdcached's escape character, was already refused by
 * pve_cgroup for its node name and now is for every name. */
const char *rrd_file_name_problem(const char *name);

/*
 * Writes "<data_dir>/<layout->name>/<name>" into buf (data_dir without a
 * trailing '/': "" is the root), or "<layout->name>/<name>" when data_dir
 * is NULL (paths relative to a daemon's base directory).  Returns 0, -EINVAL
 * for a name that rrd_file_name_problem() refuses, or -ENAMETOOLONG.
 */
int rrd_file_name_path(const char *data_dir, const struct rrd_layout *layout,
                       const char *name, char *buf, size_t size);

/*
 * Why name cannot name a cluster's directory: anything
 * rrd_file_name_problem() refuses, a leading '.' (hidden, and kept for the
 * tools' own files), a space, or the name of a directory of files itself: a
 * layout of rrd_layouts[] or one of Proxmox VE's storage layouts (pve2-storage,
 * pve-storage-9.0), which would mix a cluster with the files of the data
 * directory.  NULL when it can.
 */
const char *rrd_cluster_name_problem(const char *name);

/*
 * rrd_file_name_path() below a cluster's directory:
 * "<data_dir>/<cluster>/<layout->name>/<name>" ("<cluster>/..." when
 * data_dir is NULL); cluster NULL or "" is the data directory itself, as
 * rrd_file_name_path().  Returns 0, -EINVAL for a name or cluster the
 * checks above refuse, or -ENAMETOOLONG.
 */
int rrd_cluster_file_path(const char *data_dir, const char *cluster,
                          const struct rrd_layout *layout, const char *name,
                          char *buf, size_t size);

#endif

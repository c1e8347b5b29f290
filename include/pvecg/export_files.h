/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whose history `pvecg export` reads: the guests and nodes named on the
 * command line (--vmid, --node) or, for --all, every name that has a file
 * in the data directory's pve-vm-9.0 and pve-node-9.0 directories or in
 * their legacy pve2-vm and pve2-node ones (a legacy "<name>.old" counts as
 * <name>), and, as files of their own, pvecg's files of a guest or node:
 * KSM (pvecg-ksm-vm-1.0, pvecg-ksm-node-1.0) and the exact stall time
 * (pvecg-pressure-vm-1.0, pvecg-pressure-node-1.0), each right after the
 * pve file of its guest or node.  Names must be valid: a VMID for
 * guests, an acceptable file name for nodes; dot files and anything but regular
 * files are left out.
 */
#ifndef PVECG_EXPORT_FILES_H
#define PVECG_EXPORT_FILES_H

#include "pvecg/data_clusters.h"
#include "pvecg/export_dirs.h"
#include "pvecg/export_format.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct export_file {
  /* pve-vm-9.0 or pve-node-9.0 (and their legacy files), or one of
   * pvecg's own layouts (KSM, stall time) */
  const struct rrd_layout *layout;
  enum export_kind kind;
  char name[RRD_FILE_NAME_MAX + 1];
  char cluster[RRD_FILE_NAME_MAX + 1]; /* "": the data directory's own */
  /* What a directory scan's stat saw of the file, where it found it in its
   * own layout's directory (not a legacy file): the shipper tells a file
   * made anew, and one with nothing new, without a stat of its own. */
  bool stat_known;
  uint64_t dev, ino;
  struct timespec mtime;
  /* Whether the scan found a legacy (pve2) file of the name: a file named
   * otherwise (legacy_known false) has export_run.c look for one. */
  bool legacy_known, legacy_found;
};

struct export_files {
  struct export_file *file;
  size_t count, capacity;
  /* in: where a scan notes the directories it reads (named clusters' and
   * layouts'), or NULL */
  struct export_dirs *dirs;
};

/* Adds one file; the name is checked (a VMID for EXPORT_VM, written in
 * its canonical form).  Returns 0, -EINVAL or -ENOMEM. */
int export_files_add(struct export_files *files, enum export_kind kind,
                     const char *name);

/* export_files_add() for a file of the cluster (NULL or "": the data
 * directory's own).  -EINVAL also for a cluster name
 * rrd_cluster_name_problem() refuses. */
int export_files_add_in(struct export_files *files, const char *cluster,
                        enum export_kind kind, const char *name);

/*
 * Adds every name found under data_dir (each once): guests in VMID order,
 * then nodes in name order.  A missing layout directory is not an
 * error.  Returns 0, -ENOMEM, or the negative errno of opening a
 * directory that exists.
 */
int export_files_scan(struct export_files *files, const char *data_dir);

/* export_files_scan() of one cluster's directory, the files named as its. */
int export_files_scan_cluster(struct export_files *files, const char *data_dir,
                              const char *cluster);

/* export_files_scan_cluster() of every cluster in turn, in the order of
 * data_clusters_scan() ("" first, then by name). */
int export_files_scan_all(struct export_files *files, const char *data_dir,
                          const struct data_clusters *clusters);

/*
 * Which cluster a --vmid/--node given without --cluster means: "" when the
 * data directory's own files have it (or no cluster has it: the export
 * then says there is no such file), else the one cluster that has it (a
 * 9.0 file, or a legacy pve2 one).  Returns 0 with the name in file's
 * cluster, or -EEXIST when several named clusters have it, with a message
 * naming them in err.
 */
int export_files_pick_cluster(struct export_file *file, const char *data_dir,
                              const struct data_clusters *clusters, char *err,
                              size_t err_size);

/*
 * For every guest's or node's pve file in files (as --vmid/--node give
 * them, with their clusters), the pvecg files it has too (KSM, stall
 * time: those --all finds), right after it, in --all's order.  Returns 0
 * or -ENOMEM.
 */
int export_files_add_extras(struct export_files *files, const char *data_dir);

/* Releases the list; dirs stays as it was, the caller's. */
void export_files_free(struct export_files *files);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whose history `pvecg export` reads: the guests and nodes named on the
 * command line (--vmid, --node) or, for --all, every name that has a file
 * in the data directory's pve-vm-9.0 and pve-node-9.0 directories or in
 * their legacy pve2-vm and pve2-node ones (a legacy "<name>.old" counts as
 * <name>).  Names must be valid: a VMID for guests, an acceptable file
 * name for nodes; dot files and anything but regular files are left out.
 */
#ifndef PVECG_EXPORT_FILES_H
#define PVECG_EXPORT_FILES_H

#include "pvecg/export_format.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_layout.h"

#include <stddef.h>

struct export_file {
  const struct rrd_layout *layout; /* pve-vm-9.0 or pve-node-9.0 */
  enum export_kind kind;
  char name[RRD_FILE_NAME_MAX + 1];
};

struct export_files {
  struct export_file *file;
  size_t count, capacity;
};

/* Adds one file; the name is checked (a VMID for EXPORT_VM, written in
 * its canonical form).  Returns 0, -EINVAL or -ENOMEM. */
int export_files_add(struct export_files *files, enum export_kind kind,
                     const char *name);

/*
 * Adds every name found under data_dir (each once): guests in VMID order,
 * then nodes in name order.  A missing layout directory is not an
 * error.  Returns 0, -ENOMEM, or the negative errno of opening a
 * directory that exists.
 */
int export_files_scan(struct export_files *files, const char *data_dir);

void export_files_free(struct export_files *files);

#endif

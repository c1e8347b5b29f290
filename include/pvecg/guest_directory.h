/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who a VMID is: its type, node and name, from the PVE configuration
 * (/etc/pve, which on a cluster node shows every node's guests under
 * nodes/<node>/qemu-server and nodes/<node>/lxc, and the local node's
 * again through the links qemu-server/ and lxc/).  The RRD files do not
 * say: a VMID is unique in a cluster, so pmxcfs and our writer keep one
 * file per VMID whatever its node or type.  Used by the listings of
 * `pvecg serve` and the names of `pvecg export`.
 */
#ifndef PVECG_GUEST_DIRECTORY_H
#define PVECG_GUEST_DIRECTORY_H

#include "pvecg/guest.h"
#include "pvecg/guest_config.h"
#include "pvecg/rrd_file_name.h"

#include <stdbool.h>
#include <stdint.h>

struct guest_identity {
  enum guest_type type;
  char node[RRD_FILE_NAME_MAX + 1];  /* "" when only the links name it */
  char name[GUEST_CONFIG_NAME_SIZE]; /* "" when the config has none */
  bool template;                     /* `template: 1` */
  char tags[GUEST_CONFIG_TAGS_SIZE]; /* "" when the config has none */
  bool has_balloon_min;              /* guest_config.h */
  uint64_t balloon_min;              /* bytes */
};

struct guest_directory;

/* Lists every guest configuration below config_dir (NULL or "": none, an
 * empty directory).  Returns NULL only when out of memory. */
struct guest_directory *guest_directory_load(const char *config_dir);

/* The guest's identity, its name, template flag and tags read from its
 * configuration now (once, for a directory that keeps them).
 * Returns 0, or -ENOENT when no configuration has this VMID. */
int guest_directory_find(const struct guest_directory *directory, uint32_t vmid,
                         struct guest_identity *ret);

/* From now on each guest's configuration is read at its first find only,
 * and what it said kept: for a caller that asks of every guest again and
 * again and loads the directory anew when names may have changed (`pvecg
 * ship`, every ten minutes).  A directory that keeps them is not to be
 * shared between threads.  Returns 0 or -ENOMEM (then each find reads). */
int guest_directory_keep(struct guest_directory *directory);

void guest_directory_free(struct guest_directory *directory);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the data directory holds, as Proxmox's listings: the nodes with a
 * pve-node-9.0 file and the guests with a pve-vm-9.0 file, with each
 * guest's type, name and node where the PVE configuration (a local
 * /etc/pve, which on a cluster node shows every node's guests) tells them.
 * The RRD files themselves do not: a VMID is unique in a cluster, so
 * pmxcfs and our writer keep one file per VMID whatever its node or type.
 */
#ifndef PVECG_SERVE_LIST_H
#define PVECG_SERVE_LIST_H

#include "pvecg/data_clusters.h"
#include "pvecg/dir_names.h"
#include "pvecg/guest_directory.h"
#include "pvecg/json_writer.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/serve.h"

#include "serve_cluster.h"
#include "serve_scope.h"

#include <stdbool.h>
#include <stdint.h>

#define SERVE_LIST_MAX 100000 /* entries per directory; more are left out */

/*
 * Writes {"data":[...]}: every node as {"id":"node/N","type":"node",
 * "node":"N"}, sorted by name; with guests also every guest, sorted by
 * VMID, as {"id":"qemu/100","type":"qemu","vmid":100,"name":"web",
 * "node":"pve1"}, its type "guest" (and id "guest/100") and name and node
 * left out where the configuration does not say.  The nodes of every
 * cluster of clusters (in their order), then the guests; an entry of a
 * named cluster ends with "cluster":"NAME", with its name and node from
 * that cluster's configuration (serve_cluster.h).  A directory that is
 * not there lists nothing.  config_dir "" or NULL reads no configuration.
 * Only what scope sees is listed (serve_scope.h; NULL: everything).
 */
void serve_list_write(struct json_writer *w, const struct serve_config *config,
                      const struct data_clusters *clusters, bool guests,
                      const struct serve_scope *scope);

/* The pieces of the listing, for answers that add to its entries (the
 * overview, /metrics): the file names of a 9.0 layout's directory under
 * list_dir (cluster's) that scope sees, in the listing's order (node names
 * by name, VMIDs by number), and one entry's members, written into an
 * object the caller opened.  Every answer lists through this, so none
 * shows or reads a file outside the scope. */
void serve_list_names(const char *list_dir, const struct rrd_layout *layout,
                      const struct serve_scope *scope, const char *cluster,
                      struct dir_names *ret);
void serve_list_node_members(struct json_writer *w, const char *node);
/* A guest's type as the listings name it: "qemu" or "lxc" from its
 * configuration (*who filled, *known true), or "guest" when none has its
 * VMID. */
const char *serve_list_guest_type(const struct guest_directory *configs,
                                  const char *vmid_text,
                                  struct guest_identity *who, bool *known);
void serve_list_guest_members(struct json_writer *w, const char *vmid_text,
                              const struct guest_directory *configs);
/* "cluster":"NAME" for a named cluster's entry; nothing for "". */
void serve_list_cluster_member(struct json_writer *w, const char *cluster);

#endif

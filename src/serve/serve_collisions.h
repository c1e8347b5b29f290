/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hosts seen colliding over a guest's file, as pve_rrd keeps them in
 * <list_dir>/pvecg-owners (rrd_owner.h), for /metrics and the
 * overview: an operator sees a collision without reading collectd's log.
 */
#ifndef PVECG_SERVE_COLLISIONS_H
#define PVECG_SERVE_COLLISIONS_H

#include "pvecg/rrd_owner.h"
#include "pvecg/rrd_store.h"

#include <stdio.h>

struct serve_collision {
  char cluster[RRD_STORE_NAME_MAX + 1]; /* "": the data directory's own */
  char vmid[RRD_STORE_NAME_MAX + 1];
  char owner[RRD_OWNER_HOST_SIZE]; /* "": unknown */
  char other[RRD_OWNER_HOST_SIZE];
  long long since; /* s since the epoch */
};

/* Every collision of the owners file below dir, in the file's order (by
 * cluster and VMID), in a new array (*ret, to free; NULL when none).  A
 * missing or unreadable file has none.  Returns 0 or -ENOMEM. */
int serve_collisions_read(const char *dir, struct serve_collision **ret,
                          size_t *count);

/*
 * The families of /metrics, each series labelled vmid, owner and other
 * (and cluster for a named cluster's guest):
 *   pvecg_guest_collisions{vmid="196",owner="nodea",other="nodeb"} 1
 *   pvecg_guest_collision_since_seconds{...} 1764934800
 */
void serve_collisions_metrics(FILE *out, const struct serve_collision *c,
                              size_t count);

struct json_writer;

/* For the overview's entry of a guest (cluster "" for the data directory's
 * own) with collisions, a member
 *   "collisions":[{"owner":"nodea","other":"nodeb","since":1764934800}]
 * and nothing for one without, so that other entries stay as they were. */
void serve_collisions_json(struct json_writer *w,
                           const struct serve_collision *c, size_t count,
                           const char *cluster, const char *vmid);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scope of a token of `pvecg serve --token-file`: the guests it may
 * see.  A token line may end in scope words (serve_token_file.h):
 *   vmids=ITEM[,ITEM...]   ITEM: VMID or VMID@CLUSTER
 *   pools=ITEM[,ITEM...]   ITEM: POOL or POOL@CLUSTER
 * A VMID or a pool without "@CLUSTER" is of the data directory's own files
 * (the cluster "", data_clusters.h); one with it is of that named cluster
 * only.  A pool is Proxmox's (user.cfg's pool: lines), read once at start
 * from that cluster's PVE configuration (serve_pools.h): its VMIDs then
 * join the scope as if listed.  A line without scope words sees
 * everything; a line with them sees those guests and no node (a node's
 * files hold the totals of every guest on it).  The words may come in
 * any order and repeat: the scope is their union.
 *
 * Pure functions, so that the rules are unit tested and fuzzed.  The
 * answers ask serve_scope_sees() of every file they would show or read
 * (serve_answer.c, serve_list.c, serve_overview.c, serve_metrics.c).
 */
#ifndef PVECG_SERVE_SCOPE_H
#define PVECG_SERVE_SCOPE_H

#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Proxmox's pool ids are [A-Za-z0-9.-_]+, nested up to three deep with
 * '/'; a longer one is refused rather than cut. */
#define SERVE_POOL_NAME_MAX 128

struct serve_scope_guest {
  uint32_t vmid;
  char cluster[RRD_FILE_NAME_MAX + 1];
};

struct serve_scope_pool {
  char name[SERVE_POOL_NAME_MAX + 1];
  char cluster[RRD_FILE_NAME_MAX + 1];
};

struct serve_scope {
  struct serve_scope_guest *guest; /* sorted by cluster, then VMID */
  size_t guest_count, guest_room;
  struct serve_scope_pool *pool; /* as named; resolved into guest */
  size_t pool_count, pool_room;
};

/*
 * Parses the scope words text[0..n) (what follows a token on its line:
 * words separated by spaces or tabs).  Returns 0 with *ret NULL when there
 * are none (the token sees everything) or a scope, -EINVAL with why saying
 * which word is wrong (never its text: a secret cut by a stray space could
 * be in it), or -ENOMEM.  serve_scope_free() frees it.
 */
int serve_scope_parse(const char *text, size_t n, struct serve_scope **ret,
                      char *why, size_t why_size);

/* Adds a guest (a pool's member); serve_scope_sort() then orders the
 * guests again.  Returns 0 or -ENOMEM. */
int serve_scope_add(struct serve_scope *s, const char *cluster, uint32_t vmid);
void serve_scope_sort(struct serve_scope *s);

/*
 * Whether a token of scope s (NULL: unscoped) may see the file name of
 * layout in cluster ("" or NULL: the data directory's own): every file
 * without a scope; with one, a guest's file (of any guest layout: its
 * pve, legacy or KSM file) whose VMID is in the scope, nothing else.
 */
bool serve_scope_sees(const struct serve_scope *s, const char *cluster,
                      const struct rrd_layout *layout, const char *name);

void serve_scope_free(struct serve_scope *s);

#endif

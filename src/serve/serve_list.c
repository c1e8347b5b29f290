/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The listings of serve_list.h: two directory reads of the data directory
 * and, for guests, the PVE configuration's guests (guest_directory.h), one
 * small read per guest config for its name.
 */
#include "serve_list.h"

#include "pvecg/rrd_file_name.h"
#include "pvecg/vmid.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool node_name(const char *name) {
  return name[0] != '.' && rrd_file_name_problem(name) == NULL;
}

static bool vmid_name(const char *name) {
  uint32_t v;
  return vmid_parse_string(name, &v) == 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* VMIDs are canonical digits: shorter is smaller. */
static int by_vmid(const void *a, const void *b) {
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  size_t lx = strlen(x), ly = strlen(y);
  return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* Leaves in names only those scope sees, in their order. */
static void keep_seen(const struct serve_scope *scope, const char *cluster,
                      const struct rrd_layout *layout,
                      struct dir_names *names) {
  size_t kept = 0;
  for (size_t i = 0; i < names->count; i++) {
    if (serve_scope_sees(scope, cluster, layout, names->name[i]))
      names->name[kept++] = names->name[i];
    else
      free(names->name[i]);
  }
  names->count = kept;
}

void serve_list_names(const char *list_dir, const struct rrd_layout *layout,
                      const struct serve_scope *scope, const char *cluster,
                      struct dir_names *ret) {
  char dir[PATH_MAX];
  bool guests = layout->kind == RRD_LAYOUT_GUEST;
  snprintf(dir, sizeof(dir), "%s/%s", list_dir, layout->name);
  dir_names_read(dir, DIR_ENTRY_FILE, guests ? vmid_name : node_name,
                 SERVE_LIST_MAX, ret);
  if (scope != NULL)
    keep_seen(scope, cluster, layout, ret);
  if (ret->count > 1)
    qsort(ret->name, ret->count, sizeof(*ret->name),
          guests ? by_vmid : by_name);
}

/* ---- the JSON ------------------------------------------------------------ */

void serve_list_node_members(struct json_writer *w, const char *node) {
  char id[RRD_FILE_NAME_MAX + 8];
  snprintf(id, sizeof(id), "node/%s", node);
  json_key(w, "id");
  json_string(w, id);
  json_key(w, "type");
  json_string(w, "node");
  json_key(w, "node");
  json_string(w, node);
}

const char *serve_list_guest_type(const struct guest_directory *configs,
                                  const char *vmid_text,
                                  struct guest_identity *who, bool *known) {
  uint32_t vmid = 0;
  vmid_parse_string(vmid_text, &vmid);
  *known = guest_directory_find(configs, vmid, who) == 0;
  return !*known ? "guest" : who->type == GUEST_QEMU ? "qemu" : "lxc";
}

void serve_list_guest_members(struct json_writer *w, const char *vmid_text,
                              const struct guest_directory *configs) {
  uint32_t vmid = 0;
  vmid_parse_string(vmid_text, &vmid);
  struct guest_identity who;
  bool known;
  const char *type = serve_list_guest_type(configs, vmid_text, &who, &known);
  char id[32];
  snprintf(id, sizeof(id), "%s/%s", type, vmid_text);
  json_key(w, "id");
  json_string(w, id);
  json_key(w, "type");
  json_string(w, type);
  json_key(w, "vmid");
  json_uint(w, vmid);
  if (known && who.name[0] != '\0') {
    json_key(w, "name");
    json_string(w, who.name);
  }
  if (known && who.node[0] != '\0') {
    json_key(w, "node");
    json_string(w, who.node);
  }
}

void serve_list_cluster_member(struct json_writer *w, const char *cluster) {
  if (cluster[0] == '\0')
    return; /* the data directory's own files, as before clusters */
  json_key(w, "cluster");
  json_string(w, cluster);
}

static void write_nodes(struct json_writer *w, const char *list_dir,
                        const struct serve_scope *scope, const char *cluster) {
  struct dir_names nodes;
  serve_list_names(list_dir, &layout_pve_node_9_0, scope, cluster, &nodes);
  for (size_t i = 0; i < nodes.count; i++) {
    json_begin_object(w);
    serve_list_node_members(w, nodes.name[i]);
    serve_list_cluster_member(w, cluster);
    json_end_object(w);
  }
  dir_names_free(&nodes);
}

static void write_guests(struct json_writer *w,
                         const struct serve_cluster_dirs *dirs,
                         const struct serve_scope *scope, const char *cluster) {
  struct dir_names vmids;
  serve_list_names(dirs->list, &layout_pve_vm_9_0, scope, cluster, &vmids);
  struct guest_directory *configs = guest_directory_load(dirs->config);
  for (size_t i = 0; i < vmids.count; i++) {
    json_begin_object(w);
    serve_list_guest_members(w, vmids.name[i], configs);
    serve_list_cluster_member(w, cluster);
    json_end_object(w);
  }
  guest_directory_free(configs);
  dir_names_free(&vmids);
}

void serve_list_write(struct json_writer *w, const struct serve_config *config,
                      const struct data_clusters *clusters, bool guests,
                      const struct serve_scope *scope) {
  struct serve_cluster_dirs dirs;
  json_begin_object(w);
  json_key(w, "data");
  json_begin_array(w);
  for (size_t i = 0; i < clusters->count; i++)
    if (serve_cluster_dirs(config, clusters->cluster[i].name, &dirs) == 0)
      write_nodes(w, dirs.list, scope, clusters->cluster[i].name);
  for (size_t i = 0; guests && i < clusters->count; i++)
    if (serve_cluster_dirs(config, clusters->cluster[i].name, &dirs) == 0)
      write_guests(w, &dirs, scope, clusters->cluster[i].name);
  json_end_array(w);
  json_end_object(w);
}

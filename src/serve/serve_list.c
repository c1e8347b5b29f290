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

void serve_list_names(const char *data_dir, const struct rrd_layout *layout,
                      struct dir_names *ret) {
  char dir[PATH_MAX];
  bool guests = layout == &layout_pve_vm_9_0;
  snprintf(dir, sizeof(dir), "%s/%s", data_dir, layout->name);
  dir_names_read(dir, DIR_ENTRY_FILE, guests ? vmid_name : node_name,
                 SERVE_LIST_MAX, ret);
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

static void write_guests(struct json_writer *w, const char *data_dir,
                         const char *config_dir) {
  struct dir_names vmids;
  serve_list_names(data_dir, &layout_pve_vm_9_0, &vmids);
  struct guest_directory *configs = guest_directory_load(config_dir);
  for (size_t i = 0; i < vmids.count; i++) {
    json_begin_object(w);
    serve_list_guest_members(w, vmids.name[i], configs);
    json_end_object(w);
  }
  guest_directory_free(configs);
  dir_names_free(&vmids);
}

void serve_list_write(struct json_writer *w, const char *data_dir,
                      const char *config_dir, bool guests) {
  struct dir_names nodes;
  serve_list_names(data_dir, &layout_pve_node_9_0, &nodes);
  json_begin_object(w);
  json_key(w, "data");
  json_begin_array(w);
  for (size_t i = 0; i < nodes.count; i++) {
    json_begin_object(w);
    serve_list_node_members(w, nodes.name[i]);
    json_end_object(w);
  }
  dir_names_free(&nodes);
  if (guests)
    write_guests(w, data_dir, config_dir);
  json_end_array(w);
  json_end_object(w);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The listings of serve_list.h: two directory reads of the data directory
 * and, for guests, one of each node's qemu-server/ and lxc/ in the PVE
 * configuration, then one small read per guest config for its name.
 */
#include "serve_list.h"

#include "pvecg/file_read.h"
#include "pvecg/guest.h"
#include "pvecg/guest_config.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/vmid.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CONFIG_SIZE_MAX (64 * 1024)

/* A guest's configuration: where it was found. */
struct config_entry {
  uint32_t vmid;
  enum guest_type type;
  char node[RRD_FILE_NAME_MAX + 1]; /* "" for the local node's links */
  char path[PATH_MAX];
};

struct names {
  char **name;
  size_t count, size;
};

static void names_free(struct names *n) {
  for (size_t i = 0; i < n->count; i++)
    free(n->name[i]);
  free(n->name);
  *n = (struct names){0};
}

static int names_add(struct names *n, const char *name) {
  if (n->count == n->size) {
    size_t size = n->size ? n->size * 2 : 16;
    char **grown = realloc(n->name, size * sizeof(*grown));
    if (grown == NULL)
      return -1;
    n->name = grown;
    n->size = size;
  }
  if ((n->name[n->count] = strdup(name)) == NULL)
    return -1;
  n->count++;
  return 0;
}

enum entry_kind { ENTRY_FILE, ENTRY_DIR };

/* Whether e is of kind (d_type, or a stat where the file system does not
 * tell); symbolic links are followed, as /etc/pve's are links. */
static bool entry_is(DIR *d, const struct dirent *e, enum entry_kind kind) {
  struct stat st;
  if (e->d_type == DT_REG || e->d_type == DT_DIR)
    return (e->d_type == DT_DIR) == (kind == ENTRY_DIR);
  if (fstatat(dirfd(d), e->d_name, &st, 0) != 0)
    return false;
  return kind == ENTRY_DIR ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

/* The names of the files (or directories) in dir that accept() takes; a
 * directory that cannot be read has none (a fresh collector has no node
 * files yet). */
static void read_names(const char *dir, enum entry_kind kind,
                       bool (*accept)(const char *), struct names *ret) {
  DIR *d = opendir(dir);
  struct dirent *e;
  *ret = (struct names){0};
  if (d == NULL)
    return;
  while ((e = readdir(d)) != NULL && ret->count < SERVE_LIST_MAX)
    if (accept(e->d_name) && entry_is(d, e, kind) &&
        names_add(ret, e->d_name) != 0)
      break;
  closedir(d);
}

static bool node_name(const char *name) {
  return name[0] != '.' && rrd_file_name_problem(name) == NULL;
}

static bool vmid_name(const char *name) {
  uint32_t v;
  return vmid_parse_string(name, &v) == 0;
}

/* "<vmid>.conf" */
static bool config_name(const char *name) {
  const char *dot = strrchr(name, '.');
  uint32_t v;
  return dot != NULL && strcmp(dot, ".conf") == 0 &&
         vmid_parse(name, (size_t)(dot - name), &v) == 0;
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

static void layout_dir(char *buf, size_t size, const char *data_dir,
                       const struct rrd_layout *layout) {
  snprintf(buf, size, "%s/%s", data_dir, layout->name);
}

/* ---- the PVE configuration ---------------------------------------------- */

struct config_index {
  struct config_entry *entry;
  size_t count, size;
};

static void index_add(struct config_index *x, const char *dir, const char *node,
                      enum guest_type type, const char *file) {
  if (x->count == x->size) {
    size_t size = x->size ? x->size * 2 : 64;
    struct config_entry *grown = realloc(x->entry, size * sizeof(*grown));
    if (grown == NULL)
      return;
    x->entry = grown;
    x->size = size;
  }
  struct config_entry *e = &x->entry[x->count];
  if (vmid_parse(file, strlen(file) - strlen(".conf"), &e->vmid) != 0 ||
      snprintf(e->path, sizeof(e->path), "%s/%s", dir, file) >=
          (int)sizeof(e->path))
    return;
  e->type = type;
  snprintf(e->node, sizeof(e->node), "%s", node);
  x->count++;
}

/* <base>/qemu-server/ and <base>/lxc/ of one node ("" for the links). */
static void index_node(struct config_index *x, const char *base,
                       const char *node) {
  static const struct {
    const char *dir;
    enum guest_type type;
  } kinds[] = {{"qemu-server", GUEST_QEMU}, {"lxc", GUEST_LXC}};
  for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
    char dir[PATH_MAX];
    struct names files;
    if (snprintf(dir, sizeof(dir), "%s/%s", base, kinds[k].dir) >=
        (int)sizeof(dir))
      continue;
    read_names(dir, ENTRY_FILE, config_name, &files);
    for (size_t i = 0; i < files.count; i++)
      index_add(x, dir, node, kinds[k].type, files.name[i]);
    names_free(&files);
  }
}

/* Every node's guests (nodes/<node>/...), then the local node's links,
 * which repeat one node's guests without saying which node that is. */
static void index_configs(const char *config_dir, struct config_index *x) {
  char dir[PATH_MAX];
  struct names nodes;
  *x = (struct config_index){0};
  if (config_dir == NULL || config_dir[0] == '\0')
    return;
  snprintf(dir, sizeof(dir), "%s/nodes", config_dir);
  read_names(dir, ENTRY_DIR, node_name, &nodes);
  for (size_t i = 0; i < nodes.count; i++) {
    char base[PATH_MAX];
    if (snprintf(base, sizeof(base), "%s/%s", dir, nodes.name[i]) <
        (int)sizeof(base))
      index_node(x, base, nodes.name[i]);
  }
  names_free(&nodes);
  index_node(x, config_dir, "");
}

/* By VMID; for one VMID the entries with a node before the links'. */
static int by_entry(const void *a, const void *b) {
  const struct config_entry *x = a, *y = b;
  if (x->vmid != y->vmid)
    return x->vmid < y->vmid ? -1 : 1;
  return (x->node[0] == '\0') - (y->node[0] == '\0');
}

static const struct config_entry *index_find(const struct config_index *x,
                                             uint32_t vmid) {
  size_t lo = 0, hi = x->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (x->entry[mid].vmid < vmid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < x->count && x->entry[lo].vmid == vmid ? &x->entry[lo] : NULL;
}

/* The guest's name from its configuration, "" when it has none (or the
 * file cannot be read whole). */
static void config_name_of(const struct config_entry *e, char *name,
                           size_t size) {
  struct guest_config cfg;
  size_t len;
  char *buf = malloc(CONFIG_SIZE_MAX);
  name[0] = '\0';
  if (buf != NULL &&
      file_read_regular(AT_FDCWD, e->path, buf, CONFIG_SIZE_MAX, &len) == 0 &&
      guest_config_parse(e->type, buf, len, &cfg) == 0)
    snprintf(name, size, "%s", cfg.name);
  free(buf);
}

/* ---- the JSON ------------------------------------------------------------ */

static void write_node(struct json_writer *w, const char *node) {
  char id[RRD_FILE_NAME_MAX + 8];
  snprintf(id, sizeof(id), "node/%s", node);
  json_begin_object(w);
  json_key(w, "id");
  json_string(w, id);
  json_key(w, "type");
  json_string(w, "node");
  json_key(w, "node");
  json_string(w, node);
  json_end_object(w);
}

static void write_guest(struct json_writer *w, const char *vmid_text,
                        const struct config_index *configs) {
  uint32_t vmid = 0;
  vmid_parse_string(vmid_text, &vmid);
  const struct config_entry *e = index_find(configs, vmid);
  const char *type = e == NULL               ? "guest"
                     : e->type == GUEST_QEMU ? "qemu"
                                             : "lxc";
  char id[32], name[GUEST_CONFIG_NAME_SIZE] = "";
  snprintf(id, sizeof(id), "%s/%s", type, vmid_text);
  if (e != NULL)
    config_name_of(e, name, sizeof(name));
  json_begin_object(w);
  json_key(w, "id");
  json_string(w, id);
  json_key(w, "type");
  json_string(w, type);
  json_key(w, "vmid");
  json_uint(w, vmid);
  if (name[0] != '\0') {
    json_key(w, "name");
    json_string(w, name);
  }
  if (e != NULL && e->node[0] != '\0') {
    json_key(w, "node");
    json_string(w, e->node);
  }
  json_end_object(w);
}

static void write_guests(struct json_writer *w, const char *data_dir,
                         const char *config_dir) {
  char dir[PATH_MAX];
  struct names vmids;
  struct config_index configs;
  layout_dir(dir, sizeof(dir), data_dir, &layout_pve_vm_9_0);
  read_names(dir, ENTRY_FILE, vmid_name, &vmids);
  if (vmids.count > 1)
    qsort(vmids.name, vmids.count, sizeof(*vmids.name), by_vmid);
  index_configs(config_dir, &configs);
  if (configs.count > 1)
    qsort(configs.entry, configs.count, sizeof(*configs.entry), by_entry);
  for (size_t i = 0; i < vmids.count; i++)
    write_guest(w, vmids.name[i], &configs);
  free(configs.entry);
  names_free(&vmids);
}

void serve_list_write(struct json_writer *w, const char *data_dir,
                      const char *config_dir, bool guests) {
  char dir[PATH_MAX];
  struct names nodes;
  layout_dir(dir, sizeof(dir), data_dir, &layout_pve_node_9_0);
  read_names(dir, ENTRY_FILE, node_name, &nodes);
  if (nodes.count > 1)
    qsort(nodes.name, nodes.count, sizeof(*nodes.name), by_name);
  json_begin_object(w);
  json_key(w, "data");
  json_begin_array(w);
  for (size_t i = 0; i < nodes.count; i++)
    write_node(w, nodes.name[i]);
  names_free(&nodes);
  if (guests)
    write_guests(w, data_dir, config_dir);
  json_end_array(w);
  json_end_object(w);
}

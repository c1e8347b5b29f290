/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guests of a PVE configuration (see guest_directory.h): one listing
 * of each node's qemu-server/ and lxc/, sorted by VMID; a guest's name is
 * one small read of its file when asked for.
 */
#include "pvecg/grow.h"
#include "pvecg/guest_directory.h"

#include "pvecg/dir_names.h"
#include "pvecg/file_read.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_SIZE_MAX (64 * 1024)
#define CONFIGS_MAX 100000 /* per directory; more are left out */

struct config_entry {
  uint32_t vmid;
  enum guest_type type;
  char node[RRD_FILE_NAME_MAX + 1]; /* "" for the local node's links */
  char path[PATH_MAX];
};

/* What a configuration said, kept (guest_directory_keep). */
struct kept_identity {
  bool read;
  struct guest_identity who;
};

struct guest_directory {
  struct config_entry *entry;
  size_t count, size;
  struct kept_identity *kept; /* one per entry, or NULL: read each time */
};

static bool node_name(const char *name) {
  return name[0] != '.' && rrd_file_name_problem(name) == NULL;
}

/* "<vmid>.conf" */
static bool config_name(const char *name) {
  const char *dot = strrchr(name, '.');
  uint32_t v;
  return dot != NULL && strcmp(dot, ".conf") == 0 &&
         vmid_parse(name, (size_t)(dot - name), &v) == 0;
}

static void add(struct guest_directory *x, const char *dir, const char *node,
                enum guest_type type, const char *file) {
  struct config_entry *grown =
      grow_array(x->entry, x->count + 1, &x->size, sizeof(*x->entry), 64);
  if (grown == NULL)
    return;
  x->entry = grown;
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
static void add_node(struct guest_directory *x, const char *base,
                     const char *node) {
  static const struct {
    const char *dir;
    enum guest_type type;
  } kinds[] = {{"qemu-server", GUEST_QEMU}, {"lxc", GUEST_LXC}};
  for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
    char dir[PATH_MAX];
    struct dir_names files;
    if (snprintf(dir, sizeof(dir), "%s/%s", base, kinds[k].dir) >=
        (int)sizeof(dir))
      continue;
    dir_names_read(dir, DIR_ENTRY_FILE, config_name, CONFIGS_MAX, &files);
    for (size_t i = 0; i < files.count; i++)
      add(x, dir, node, kinds[k].type, files.name[i]);
    dir_names_free(&files);
  }
}

/* By VMID; for one VMID the entries with a node before the links'. */
static int by_entry(const void *a, const void *b) {
  const struct config_entry *x = a, *y = b;
  if (x->vmid != y->vmid)
    return x->vmid < y->vmid ? -1 : 1;
  return (x->node[0] == '\0') - (y->node[0] == '\0');
}

/* Every node's guests (nodes/<node>/...), then the local node's links,
 * which repeat one node's guests without saying which node that is. */
struct guest_directory *guest_directory_load(const char *config_dir) {
  struct guest_directory *x = calloc(1, sizeof(*x));
  if (x == NULL || config_dir == NULL || config_dir[0] == '\0')
    return x;
  char dir[PATH_MAX];
  struct dir_names nodes;
  snprintf(dir, sizeof(dir), "%s/nodes", config_dir);
  dir_names_read(dir, DIR_ENTRY_DIR, node_name, CONFIGS_MAX, &nodes);
  for (size_t i = 0; i < nodes.count; i++) {
    char base[PATH_MAX];
    if (snprintf(base, sizeof(base), "%s/%s", dir, nodes.name[i]) <
        (int)sizeof(base))
      add_node(x, base, nodes.name[i]);
  }
  dir_names_free(&nodes);
  add_node(x, config_dir, "");
  if (x->count > 1)
    qsort(x->entry, x->count, sizeof(*x->entry), by_entry);
  return x;
}

static const struct config_entry *find(const struct guest_directory *x,
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

/* The guest's name, template flag and tags from its configuration; none
 * of them when the file cannot be read whole. */
static void config_of(const struct config_entry *e,
                      struct guest_identity *ret) {
  struct guest_config cfg;
  size_t len;
  char *buf = malloc(CONFIG_SIZE_MAX);
  ret->name[0] = ret->tags[0] = '\0';
  ret->template = false;
  ret->has_balloon_min = false;
  if (buf != NULL &&
      file_read_regular(AT_FDCWD, e->path, buf, CONFIG_SIZE_MAX, &len) == 0 &&
      guest_config_parse(e->type, buf, len, &cfg) == 0) {
    snprintf(ret->name, sizeof(ret->name), "%s", cfg.name);
    snprintf(ret->tags, sizeof(ret->tags), "%s", cfg.tags);
    ret->template = cfg.template;
    ret->has_balloon_min = cfg.has_balloon_min;
    ret->balloon_min = cfg.balloon_min;
  }
  free(buf);
}

int guest_directory_find(const struct guest_directory *x, uint32_t vmid,
                         struct guest_identity *ret) {
  const struct config_entry *e = x != NULL ? find(x, vmid) : NULL;
  if (e == NULL)
    return -ENOENT;
  struct kept_identity *k = x->kept != NULL ? &x->kept[e - x->entry] : NULL;
  if (k != NULL && k->read) {
    *ret = k->who;
    return 0;
  }
  ret->type = e->type;
  snprintf(ret->node, sizeof(ret->node), "%s", e->node);
  config_of(e, ret);
  if (k != NULL)
    *k = (struct kept_identity){.read = true, .who = *ret};
  return 0;
}

int guest_directory_keep(struct guest_directory *x) {
  if (x->kept != NULL || x->count == 0)
    return 0;
  x->kept = calloc(x->count, sizeof(*x->kept));
  return x->kept != NULL ? 0 : -ENOMEM;
}

void guest_directory_free(struct guest_directory *x) {
  if (x != NULL) {
    free(x->entry);
    free(x->kept);
  }
  free(x);
}

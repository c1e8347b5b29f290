/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The list of files `pvecg export` reads (see export_files.h).  Names
 * come from the command line or a directory listing, so each is checked
 * here before it becomes part of a path.
 */
#include "pvecg/grow.h"
#include "pvecg/export_files.h"

#include "pvecg/vmid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct rrd_layout *kind_layout(enum export_kind kind) {
  return kind == EXPORT_VM ? &layout_pve_vm_9_0 : &layout_pve_node_9_0;
}

/* pvecg's own files of a guest or node, beside its pve file: KSM, then
 * the exact stall time.  Their order is the order they follow it in. */
static const struct rrd_layout *const vm_extras[] = {
    &layout_pvecg_ksm_vm_1_0, &layout_pvecg_pressure_vm_1_0};
static const struct rrd_layout *const node_extras[] = {
    &layout_pvecg_ksm_node_1_0, &layout_pvecg_pressure_node_1_0};
#define EXTRAS (sizeof(vm_extras) / sizeof(vm_extras[0]))
_Static_assert(EXTRAS == sizeof(node_extras) / sizeof(node_extras[0]),
               "a guest and a node have the same kinds of pvecg files");

static const struct rrd_layout *extra_layout(enum export_kind kind, size_t i) {
  return kind == EXPORT_VM ? vm_extras[i] : node_extras[i];
}

/* Where a file goes among a guest's or node's files: 0 for its pve file
 * (or a legacy one), 1 + i for its i-th pvecg file. */
static size_t file_rank(const struct export_file *f) {
  for (size_t i = 0; i < EXTRAS; i++)
    if (f->layout == extra_layout(f->kind, i))
      return 1 + i;
  return 0;
}

static int add_file(struct export_files *files, const char *cluster,
                    const struct rrd_layout *layout, enum export_kind kind,
                    const char *name);

int export_files_add(struct export_files *files, enum export_kind kind,
                     const char *name) {
  return export_files_add_in(files, NULL, kind, name);
}

int export_files_add_in(struct export_files *files, const char *cluster,
                        enum export_kind kind, const char *name) {
  return add_file(files, cluster, kind_layout(kind), kind, name);
}

static int add_file(struct export_files *files, const char *cluster,
                    const struct rrd_layout *layout, enum export_kind kind,
                    const char *name) {
  struct export_file f = {.layout = layout, .kind = kind};
  if (cluster != NULL && cluster[0] != '\0') {
    if (rrd_cluster_name_problem(cluster) != NULL)
      return -EINVAL;
    snprintf(f.cluster, sizeof(f.cluster), "%s", cluster);
  }
  uint32_t vmid;
  if (kind == EXPORT_VM) {
    if (vmid_parse_string(name, &vmid) < 0)
      return -EINVAL;
    snprintf(f.name, sizeof(f.name), "%" PRIu32, vmid);
  } else {
    if (rrd_file_name_problem(name) != NULL)
      return -EINVAL;
    snprintf(f.name, sizeof(f.name), "%s", name);
  }
  struct export_file *grown = grow_array(files->file, files->count + 1,
                                         &files->capacity, sizeof(*grown), 16);
  if (grown == NULL)
    return -ENOMEM;
  files->file = grown;
  files->file[files->count++] = f;
  return 0;
}

/* Guests by VMID (names are canonical, so shorter is smaller), nodes by
 * name; a guest's or node's pvecg files right after its pve file. */
static int compare_files(const void *a, const void *b) {
  const struct export_file *x = a, *y = b;
  if (x->kind != y->kind)
    return x->kind == EXPORT_VM ? -1 : 1;
  size_t lx = strlen(x->name), ly = strlen(y->name);
  if (x->kind == EXPORT_VM && lx != ly)
    return lx < ly ? -1 : 1;
  int r = strcmp(x->name, y->name);
  if (r != 0)
    return r;
  size_t rx = file_rank(x), ry = file_rank(y);
  return rx == ry ? 0 : rx > ry ? 1 : -1;
}

static bool is_regular(int dir_fd, const char *name, struct stat *st) {
  return fstatat(dir_fd, name, st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(st->st_mode);
}

/* The scan's stat of the file just added, for its identity. */
static void note_stat(struct export_files *files, const struct stat *st) {
  struct export_file *f = &files->file[files->count - 1];
  f->stat_known = true;
  f->dev = (uint64_t)st->st_dev;
  f->ino = (uint64_t)st->st_ino;
  f->mtime = st->st_mtim;
}

#define LEGACY_SUFFIX ".old"

/* A directory entry's name as a guest's or node's, or NULL when it is none
 * of ours; a legacy file's ".old" is taken off. */
static const char *entry_name(const char *entry, bool legacy,
                              enum export_kind kind,
                              char buf[RRD_FILE_NAME_MAX + 1]) {
  size_t len = strlen(entry), slen = strlen(LEGACY_SUFFIX);
  if (entry[0] == '.' || len > RRD_FILE_NAME_MAX)
    return NULL;
  if (legacy && len > slen && strcmp(entry + len - slen, LEGACY_SUFFIX) == 0)
    len -= slen;
  memcpy(buf, entry, len);
  buf[len] = '\0';
  uint32_t vmid;
  if (kind == EXPORT_VM && vmid_parse_string(buf, &vmid) < 0)
    return NULL; /* "100.old" in pve-vm-9.0, "0100", ... */
  return rrd_file_name_problem(buf) == NULL ? buf : NULL;
}

static int scan_layout(struct export_files *files, const char *data_dir,
                       const char *cluster, const struct rrd_layout *layout,
                       bool legacy, enum export_kind kind) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof(path), "%s/%s", data_dir, layout->name) >=
      (int)sizeof(path))
    return -ENAMETOOLONG;
  DIR *dir = opendir(path);
  if (dir == NULL) /* one made later changes the cluster's directory */
    return errno == ENOENT ? 0 : -errno;
  if (files->dirs != NULL)
    export_dirs_note(files->dirs, path, dirfd(dir));
  int r = 0;
  struct dirent *e;
  while (r == 0 && (e = readdir(dir)) != NULL) {
    char buf[RRD_FILE_NAME_MAX + 1];
    const char *name = entry_name(e->d_name, legacy, kind, buf);
    /* a legacy file is the history of its 9.0 file: one entry for both */
    struct stat st;
    if (name == NULL || !is_regular(dirfd(dir), e->d_name, &st))
      continue;
    r = add_file(files, cluster, legacy ? kind_layout(kind) : layout, kind,
                 name);
    if (r < 0)
      break;
    struct export_file *f = &files->file[files->count - 1];
    f->legacy_known = true;
    f->legacy_found = legacy;
    if (!legacy)
      note_stat(files, &st);
  }
  closedir(dir);
  return r;
}

/* Sorted, a name found in several directories is adjacent: keep one,
 * the 9.0 file's entry, which says whether a legacy one was found. */
static void drop_repeats(struct export_files *files, size_t first) {
  size_t kept = first;
  for (size_t i = first; i < files->count; i++) {
    struct export_file *f = &files->file[i], *last = &files->file[kept - 1];
    if (kept == first || compare_files(last, f) != 0) {
      files->file[kept++] = *f;
      continue;
    }
    bool legacy = last->legacy_found || f->legacy_found;
    if (!last->stat_known && f->stat_known) /* legacy first: the 9.0 */
      *last = *f;
    last->legacy_found = legacy;
  }
  files->count = kept;
}

int export_files_scan(struct export_files *files, const char *data_dir) {
  return export_files_scan_cluster(files, data_dir, NULL);
}

int export_files_scan_cluster(struct export_files *files, const char *data_dir,
                              const char *cluster) {
  char dir[PATH_MAX];
  int d = data_cluster_dir(data_dir, cluster, dir, sizeof(dir));
  if (d < 0)
    return d;
  const struct {
    const struct rrd_layout *layout;
    bool legacy;
    enum export_kind kind;
  } dirs[] = {{&layout_pve_vm_9_0, false, EXPORT_VM},
              {&layout_pve2_vm, true, EXPORT_VM},
              {&layout_pvecg_ksm_vm_1_0, false, EXPORT_VM},
              {&layout_pvecg_pressure_vm_1_0, false, EXPORT_VM},
              {&layout_pve_node_9_0, false, EXPORT_NODE},
              {&layout_pve2_node, true, EXPORT_NODE},
              {&layout_pvecg_ksm_node_1_0, false, EXPORT_NODE},
              {&layout_pvecg_pressure_node_1_0, false, EXPORT_NODE}};
  size_t first = files->count;
  int r = 0;
  if (files->dirs != NULL && cluster != NULL && cluster[0] != '\0')
    export_dirs_note(files->dirs, dir, -1);
  for (size_t i = 0; r == 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++)
    r = scan_layout(files, dir, cluster, dirs[i].layout, dirs[i].legacy,
                    dirs[i].kind);
  if (r < 0)
    return r;
  qsort(files->file + first, files->count - first, sizeof(*files->file),
        compare_files);
  drop_repeats(files, first);
  return 0;
}

int export_files_scan_all(struct export_files *files, const char *data_dir,
                          const struct data_clusters *clusters) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < clusters->count; i++)
    r = export_files_scan_cluster(files, data_dir, clusters->cluster[i].name);
  return r;
}

static bool has_regular(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether the cluster holds the file: its 9.0 file or a legacy one (as
 * export_run.c reads them). */
static bool cluster_has(const char *data_dir, const char *cluster,
                        const struct export_file *file) {
  const struct rrd_layout *legacy =
      file->kind == EXPORT_VM ? &layout_pve2_vm : &layout_pve2_node;
  const struct rrd_layout *layouts[] = {file->layout, legacy, legacy};
  const char *suffixes[] = {"", "", LEGACY_SUFFIX};
  for (size_t i = 0; i < 3; i++) {
    char name[RRD_FILE_NAME_MAX + sizeof(LEGACY_SUFFIX)], path[PATH_MAX];
    snprintf(name, sizeof(name), "%s%s", file->name, suffixes[i]);
    if (rrd_cluster_file_path(data_dir, cluster, layouts[i], name, path,
                              sizeof(path)) == 0 &&
        has_regular(path))
      return true;
  }
  return false;
}

/* "lab, prod": the named clusters that have the file. */
static void list_holders(const char *data_dir,
                         const struct data_clusters *clusters,
                         const struct export_file *file, char *buf,
                         size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < clusters->count; i++) {
    const char *c = clusters->cluster[i].name;
    if (c[0] == '\0' || !cluster_has(data_dir, c, file) || len >= size)
      continue;
    int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", c);
    len += n > 0 ? (size_t)n : 0;
  }
}

int export_files_pick_cluster(struct export_file *file, const char *data_dir,
                              const struct data_clusters *clusters, char *err,
                              size_t err_size) {
  const char *found = NULL;
  size_t holders = 0;
  file->cluster[0] = '\0';
  if (data_clusters_find(clusters, "") != NULL &&
      cluster_has(data_dir, "", file))
    return 0;
  for (size_t i = 0; i < clusters->count; i++) {
    const char *c = clusters->cluster[i].name;
    if (c[0] != '\0' && cluster_has(data_dir, c, file)) {
      found = c;
      holders++;
    }
  }
  if (holders == 1)
    snprintf(file->cluster, sizeof(file->cluster), "%s", found);
  if (holders <= 1)
    return 0;
  char names[1024];
  list_holders(data_dir, clusters, file, names, sizeof(names));
  snprintf(err, err_size,
           "%s %s is in the clusters %s: say which with --cluster",
           file->kind == EXPORT_VM ? "guest" : "node", file->name, names);
  return -EEXIST;
}

/* The pvecg files the data directory has of f's guest or node, into out
 * in their order. */
static int add_extras_of(struct export_files *out, const char *data_dir,
                         const struct export_file *f) {
  int r = 0;
  for (size_t i = 0; r == 0 && i < EXTRAS; i++) {
    const struct rrd_layout *layout = extra_layout(f->kind, i);
    char path[PATH_MAX];
    if (rrd_cluster_file_path(data_dir, f->cluster, layout, f->name, path,
                              sizeof(path)) == 0 &&
        has_regular(path))
      r = add_file(out, f->cluster, layout, f->kind, f->name);
  }
  return r;
}

int export_files_add_extras(struct export_files *files, const char *data_dir) {
  /* made anew in one pass: each guest's or node's pvecg files right after
   * its pve file, the given order otherwise */
  struct export_files out = {.dirs = files->dirs};
  int r = 0;
  for (size_t i = 0; r == 0 && i < files->count; i++) {
    const struct export_file *f = &files->file[i];
    r = add_file(&out, f->cluster, f->layout, f->kind, f->name);
    if (r == 0 && f->layout == kind_layout(f->kind))
      r = add_extras_of(&out, data_dir, f);
  }
  if (r < 0) {
    export_files_free(&out);
    return r;
  }
  export_files_free(files);
  *files = out;
  return 0;
}

void export_files_free(struct export_files *files) {
  free(files->file);
  *files = (struct export_files){.dirs = files->dirs};
}

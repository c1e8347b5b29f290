/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The list of files `pvecg export` reads (see export_files.h).  Names
 * come from the command line or a directory listing, so each is checked
 * here before it becomes part of a path.
 */
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

int export_files_add(struct export_files *files, enum export_kind kind,
                     const char *name) {
  struct export_file f = {.layout = kind_layout(kind), .kind = kind};
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
  if (files->count == files->capacity) {
    size_t cap = files->capacity ? files->capacity * 2 : 16;
    struct export_file *grown = realloc(files->file, cap * sizeof(*grown));
    if (grown == NULL)
      return -ENOMEM;
    files->file = grown;
    files->capacity = cap;
  }
  files->file[files->count++] = f;
  return 0;
}

/* Guests by VMID (names are canonical, so shorter is smaller), nodes by
 * name. */
static int compare_files(const void *a, const void *b) {
  const struct export_file *x = a, *y = b;
  if (x->kind != y->kind)
    return x->kind == EXPORT_VM ? -1 : 1;
  size_t lx = strlen(x->name), ly = strlen(y->name);
  if (x->kind == EXPORT_VM && lx != ly)
    return lx < ly ? -1 : 1;
  return strcmp(x->name, y->name);
}

static bool is_regular(int dir_fd, const char *name) {
  struct stat st;
  return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(st.st_mode);
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
                       const struct rrd_layout *layout, bool legacy,
                       enum export_kind kind) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof(path), "%s/%s", data_dir, layout->name) >=
      (int)sizeof(path))
    return -ENAMETOOLONG;
  DIR *dir = opendir(path);
  if (dir == NULL)
    return errno == ENOENT ? 0 : -errno;
  int r = 0;
  struct dirent *e;
  while (r == 0 && (e = readdir(dir)) != NULL) {
    char buf[RRD_FILE_NAME_MAX + 1];
    const char *name = entry_name(e->d_name, legacy, kind, buf);
    if (name != NULL && is_regular(dirfd(dir), e->d_name))
      r = export_files_add(files, kind, name);
  }
  closedir(dir);
  return r;
}

/* Sorted, a name found in several directories is adjacent: keep one. */
static void drop_repeats(struct export_files *files, size_t first) {
  size_t kept = first;
  for (size_t i = first; i < files->count; i++)
    if (kept == first ||
        compare_files(&files->file[kept - 1], &files->file[i]) != 0)
      files->file[kept++] = files->file[i];
  files->count = kept;
}

int export_files_scan(struct export_files *files, const char *data_dir) {
  const struct {
    const struct rrd_layout *layout;
    bool legacy;
    enum export_kind kind;
  } dirs[] = {{&layout_pve_vm_9_0, false, EXPORT_VM},
              {&layout_pve2_vm, true, EXPORT_VM},
              {&layout_pve_node_9_0, false, EXPORT_NODE},
              {&layout_pve2_node, true, EXPORT_NODE}};
  size_t first = files->count;
  int r = 0;
  for (size_t i = 0; r == 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++)
    r = scan_layout(files, data_dir, dirs[i].layout, dirs[i].legacy,
                    dirs[i].kind);
  if (r < 0)
    return r;
  qsort(files->file + first, files->count - first, sizeof(*files->file),
        compare_files);
  drop_repeats(files, first);
  return 0;
}

void export_files_free(struct export_files *files) {
  free(files->file);
  *files = (struct export_files){0};
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* File names and paths of the layouts' files (see rrd_file_name.h). */
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *rrd_file_name_problem(const char *name) {
  if (name == NULL || name[0] == '\0')
    return "the file name is empty";
  if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return "the file name is \".\" or \"..\"";
  size_t len = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++, len++) {
    if (*p == '/')
      return "the file name contains '/'";
    if (*p == '\\')
      return "the file name contains '\\'";
    if (*p < 0x20 || *p == 0x7f)
      return "the file name contains a control character";
  }
  return len > RRD_FILE_NAME_MAX ? "the file name is longer than 64 bytes"
                                 : NULL;
}

int rrd_file_name_path(const char *data_dir, const struct rrd_layout *layout,
                       const char *name, char *buf, size_t size) {
  return rrd_cluster_file_path(data_dir, NULL, layout, name, buf, size);
}

/* Directories of files that are not in rrd_layouts[]: Proxmox VE's
 * storages', which a data directory copied from pmxcfs may hold. */
static const char *const other_layout_dirs[] = {"pve2-storage",
                                                "pve-storage-9.0"};

const char *rrd_cluster_name_problem(const char *name) {
  if (rrd_file_name_problem(name) != NULL)
    return "not a valid directory name (empty, \".\" or \"..\", a '/', a "
           "'\\' or a control character, or longer than 64 bytes)";
  if (name[0] == '.')
    return "it begins with '.'";
  if (strchr(name, ' ') != NULL) /* the owners file splits lines at spaces */
    return "it contains a space";
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (strcmp(name, rrd_layouts[i]->name) == 0)
      return "it is the name of a layout's directory";
  for (size_t i = 0; i < sizeof(other_layout_dirs) / sizeof(*other_layout_dirs);
       i++)
    if (strcmp(name, other_layout_dirs[i]) == 0)
      return "it is the name of a layout's directory";
  return NULL;
}

/* The parts joined by '/' into buf, or "" and -ENAMETOOLONG when they do
 * not fit.  Not snprintf: the shipper makes a file's key each pass. */
static int join(char *buf, size_t size, const char *const *part, size_t count) {
  size_t len = 0;
  for (size_t i = 0; i < count; i++) {
    size_t n = strlen(part[i]), sep = i > 0;
    if (len + sep + n >= size) {
      if (size > 0)
        buf[0] = '\0';
      return -ENAMETOOLONG;
    }
    if (sep)
      buf[len++] = '/';
    memcpy(buf + len, part[i], n);
    len += n;
  }
  if (size > 0)
    buf[len] = '\0';
  return size > 0 ? 0 : -ENAMETOOLONG;
}

int rrd_cluster_file_path(const char *data_dir, const char *cluster,
                          const struct rrd_layout *layout, const char *name,
                          char *buf, size_t size) {
  bool clustered = cluster != NULL && cluster[0] != '\0';
  if (layout == NULL || rrd_file_name_problem(name) != NULL ||
      (clustered && rrd_cluster_name_problem(cluster) != NULL))
    return -EINVAL;
  const char *part[4];
  size_t n = 0;
  if (data_dir != NULL)
    part[n++] = data_dir;
  if (clustered)
    part[n++] = cluster;
  part[n++] = layout->name;
  part[n++] = name;
  return join(buf, size, part, n);
}

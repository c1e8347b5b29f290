/* SPDX-License-Identifier: GPL-2.0-or-later */
/* File names and paths of the layouts' files (see rrd_file_name.h). */
#include "pvecg/rrd_file_name.h"

#include <errno.h>
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
  if (layout == NULL || rrd_file_name_problem(name) != NULL)
    return -EINVAL;
  int n = data_dir == NULL
              ? snprintf(buf, size, "%s/%s", layout->name, name)
              : snprintf(buf, size, "%s/%s/%s", data_dir, layout->name, name);
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/layout/rrd_file_name.c: the names of RRD files, which
 * arrive from directories, the network plugin and the command line.  The first
 * byte picks the data directory and the layout, the rest is the name.
 * Checks, beyond memory safety: a name is accepted exactly when it is
 * 1..64 bytes, not "." or "..", without '/' or '\\' and without a control
 * character (below 0x20, or DEL); the path of an accepted name is exactly
 * "<dir>/<layout>/<name>" (or "<layout>/<name>" without a directory),
 * -ENAMETOOLONG one byte short; a refused name or layout gives -EINVAL.
 * The same name as a cluster's: accepted exactly when it is an acceptable
 * file name that does not begin with '.' and is no layout's directory,
 * and then "<dir>/<name>/<layout>/100" is its path for guest 100.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/rrd_file_name.h"

#define PATH_SIZE 512

static bool name_acceptable(const char *s) {
  size_t n = strlen(s);

  if (n == 0 || n > 64 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
    return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '/' || s[i] == '\\' || (unsigned char)s[i] < 0x20 ||
        (unsigned char)s[i] == 0x7f)
      return false;
  return true;
}

static void check_path(const char *dir, const struct rrd_layout *layout,
                       const char *name, bool acceptable) {
  char want[PATH_SIZE], got[PATH_SIZE];
  size_t n;

  if (!acceptable) {
    FUZZ_CHECK(rrd_file_name_path(dir, layout, name, got, sizeof(got)) ==
               -EINVAL);
    return;
  }
  want[0] = '\0';
  if (dir != NULL) {
    strcat(want, dir);
    strcat(want, "/");
  }
  strcat(want, layout->name);
  strcat(want, "/");
  strcat(want, name);
  n = strlen(want);
  FUZZ_CHECK(rrd_file_name_path(dir, layout, name, got, n + 1) == 0);
  FUZZ_CHECK(strcmp(got, want) == 0);
  FUZZ_CHECK(rrd_file_name_path(dir, layout, name, got, n) == -ENAMETOOLONG);
  FUZZ_CHECK(rrd_file_name_path(dir, NULL, name, got, sizeof(got)) == -EINVAL);
}

static bool cluster_acceptable(const char *s) {
  static const char *const layout_dirs[] = {"pve-vm-9.0",
                                            "pve-node-9.0",
                                            "pve2-vm",
                                            "pve2-node",
                                            "pve2-storage",
                                            "pve-storage-9.0",
                                            "pvecg-ksm-vm-1.0",
                                            "pvecg-ksm-node-1.0",
                                            "pvecg-pressure-vm-1.0",
                                            "pvecg-pressure-node-1.0"};
  if (!name_acceptable(s) || s[0] == '.' || strchr(s, ' ') != NULL)
    return false;
  for (size_t i = 0; i < sizeof(layout_dirs) / sizeof(*layout_dirs); i++)
    if (strcmp(s, layout_dirs[i]) == 0)
      return false;
  return true;
}

static void check_cluster(const char *dir, const struct rrd_layout *layout,
                          const char *cluster) {
  char want[PATH_SIZE], got[PATH_SIZE];
  bool acceptable = cluster_acceptable(cluster);
  FUZZ_CHECK((rrd_cluster_name_problem(cluster) == NULL) == acceptable);
  int r = rrd_cluster_file_path(dir, cluster, layout, "100", got, sizeof(got));
  if (!acceptable) {
    FUZZ_CHECK(r == -EINVAL);
    return;
  }
  snprintf(want, sizeof(want), "%s%s%s/%s/100", dir ? dir : "", dir ? "/" : "",
           cluster, layout->name);
  FUZZ_CHECK(r == 0 && strcmp(got, want) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const dirs[] = {NULL, "", "/var/lib/rrdcached/db", "pve"};
  const struct rrd_layout *layout;
  const char *dir, *problem;
  char *name;
  bool acceptable;

  if (size == 0)
    return 0;
  dir = dirs[data[0] & 3];
  layout = rrd_layouts[(data[0] >> 2) % rrd_layouts_count];
  name = malloc(size);
  FUZZ_CHECK(name != NULL);
  memcpy(name, data + 1, size - 1);
  name[size - 1] = '\0';
  acceptable = name_acceptable(name);
  problem = rrd_file_name_problem(name);
  FUZZ_CHECK((problem == NULL) == acceptable);
  FUZZ_CHECK(problem == NULL || problem[0] != '\0');
  check_path(dir, layout, name, acceptable);
  if (name[0] != '\0') /* "" is no cluster: the data directory itself */
    check_cluster(dir, layout, name);
  free(name);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clusters an answer covers (see serve_cluster.h). */
#include "serve_cluster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int serve_clusters_of(const struct serve_config *config,
                      const struct serve_request *req,
                      struct data_clusters *ret) {
  int r = data_clusters_scan(config->list_dir, ret);
  if (r == -ENOMEM)
    return r;
  if (r != 0) {
    /* unreadable: the directory itself, listed as before clusters */
    ret->cluster = calloc(1, sizeof(*ret->cluster));
    if (ret->cluster == NULL)
      return -ENOMEM;
    ret->count = 1;
  }
  if (!req->has_cluster)
    return 0;
  const struct data_cluster *c = data_clusters_find(ret, req->cluster);
  if (c == NULL) {
    ret->count = 0;
    return 0;
  }
  ret->cluster[0] = *c;
  ret->count = 1;
  return 0;
}

int serve_cluster_dirs(const struct serve_config *config, const char *cluster,
                       struct serve_cluster_dirs *ret) {
  int r =
      data_cluster_dir(config->list_dir, cluster, ret->list, sizeof(ret->list));
  if (r != 0)
    return r;
  ret->config[0] = '\0';
  if (config->config_dir == NULL || config->config_dir[0] == '\0')
    return 0;
  return data_cluster_dir(config->config_dir, cluster, ret->config,
                          sizeof(ret->config));
}

/* The stat() runs whether the scope sees the file or not: the work is
 * the same for a file outside the scope as for a missing one. */
static bool has_file(const struct serve_config *config, const char *cluster,
                     const struct rrd_layout *layout, const char *name,
                     const struct serve_scope *scope) {
  char path[PATH_MAX];
  struct stat st;
  bool there = rrd_cluster_file_path(config->list_dir, cluster, layout, name,
                                     path, sizeof(path)) == 0 &&
               stat(path, &st) == 0;
  return there & serve_scope_sees(scope, cluster, layout, name);
}

int serve_cluster_pick(const struct serve_config *config,
                       const struct rrd_layout *layout, const char *name,
                       const struct serve_scope *scope, char *ret,
                       size_t size) {
  struct data_clusters all;
  struct serve_request every = {.has_cluster = false};
  if (serve_clusters_of(config, &every, &all) != 0)
    return -ENOMEM;
  size_t found = 0, n = 0;
  ret[0] = '\0';
  for (size_t i = 0; i < all.count; i++) {
    const char *c = all.cluster[i].name;
    if (!has_file(config, c, layout, name, scope))
      continue;
    if (c[0] == '\0') { /* the data directory's own file comes first */
      found = 1;
      ret[0] = '\0';
      break;
    }
    int w = snprintf(ret + n, size - n, "%s%s", found > 0 ? ", " : "", c);
    n = w > 0 && (size_t)w < size - n ? n + (size_t)w : size - 1;
    found++;
  }
  data_clusters_free(&all);
  return found == 0 ? -ENOENT : found == 1 ? 0 : -EEXIST;
}

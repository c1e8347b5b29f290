/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cluster of a viewed file when --cluster is absent (see
 * view_cluster.h).  Names that are no VMID or node name are left to
 * view_source_resolve(), which says what is wrong with them.
 */
#include "view_cluster.h"

#include "pvecg/data_clusters.h"
#include "pvecg/export_files.h"
#include "pvecg/rrdcached_client.h"

#include <errno.h>
#include <stdio.h>

/* The local data directory, or NULL: through a daemon over TCP the files
 * are the daemon's, and cannot be looked at here. */
static const char *local_dir(const struct view_args *args) {
  if (args->daemon != NULL && args->daemon[0] != '\0' &&
      !rrdcached_address_is_unix(args->daemon))
    return NULL;
  return args->data_dir != NULL ? args->data_dir : PVECG_DEFAULT_DATA_DIR;
}

static int pick(struct view_args *args, const char *dir,
                const struct data_clusters *c, const char *cmd,
                char buf[RRD_FILE_NAME_MAX + 1]) {
  struct export_files files = {0};
  enum export_kind kind = args->vmid != NULL ? EXPORT_VM : EXPORT_NODE;
  const char *name = args->vmid != NULL ? args->vmid : args->node;
  char err[1024];
  int r = 0;
  if (export_files_add(&files, kind, name) == 0) {
    r = export_files_pick_cluster(&files.file[0], dir, c, err, sizeof(err));
    if (r < 0)
      fprintf(stderr, "%s: %s\n", cmd, err);
    else if (files.file[0].cluster[0] != '\0') {
      snprintf(buf, RRD_FILE_NAME_MAX + 1, "%s", files.file[0].cluster);
      args->cluster = buf;
    }
  }
  export_files_free(&files);
  return r;
}

int view_cluster_pick(struct view_args *args, const char *cmd,
                      char buf[RRD_FILE_NAME_MAX + 1]) {
  const char *dir = local_dir(args);
  if (args->cluster != NULL || (args->vmid == NULL) == (args->node == NULL) ||
      dir == NULL)
    return 0;
  struct data_clusters c;
  if (data_clusters_scan(dir, &c) < 0)
    return 0; /* reading the file will say what is wrong */
  int r = data_clusters_named(&c) ? pick(args, dir, &c, cmd, buf) : 0;
  data_clusters_free(&c);
  return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clusters of a data directory (see data_clusters.h). */
#include "pvecg/grow.h"
#include "pvecg/data_clusters.h"

#include "pvecg/rrd_layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the directory open as fd holds a layout's directory. */
static bool holds_layout(int fd) {
  for (size_t i = 0; i < rrd_layouts_count; i++) {
    struct stat st;
    if (fstatat(fd, rrd_layouts[i]->name, &st, 0) == 0 && S_ISDIR(st.st_mode))
      return true;
  }
  return false;
}

/* Whether entry name of the data directory open as dir_fd is a cluster. */
static bool is_cluster(int dir_fd, const char *name) {
  if (rrd_cluster_name_problem(name) != NULL)
    return false;
  int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool yes = holds_layout(fd);
  close(fd);
  return yes;
}

static int add(struct data_clusters *c, size_t *capacity, const char *name) {
  size_t len = strlen(name);
  if (len >= sizeof(c->cluster->name))
    return 0; /* longer than a cluster's name may be: not one */
  struct data_cluster *grown =
      grow_array(c->cluster, c->count + 1, capacity, sizeof(*c->cluster), 4);
  if (grown == NULL)
    return -ENOMEM;
  c->cluster = grown;
  memcpy(c->cluster[c->count++].name, name, len + 1);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const struct data_cluster *)a)->name,
                ((const struct data_cluster *)b)->name);
}

/* The named clusters of the directory open as fd (closed here). */
static int scan_named(int fd, struct data_clusters *c, size_t *capacity) {
  DIR *dir = fdopendir(fd);
  if (dir == NULL) {
    int err = -errno;
    close(fd);
    return err;
  }
  int err = 0;
  struct dirent *d;
  while (err == 0 && (d = readdir(dir)) != NULL)
    if (is_cluster(dirfd(dir), d->d_name))
      err = add(c, capacity, d->d_name);
  closedir(dir);
  return err;
}

int data_clusters_scan(const char *data_dir, struct data_clusters *ret) {
  *ret = (struct data_clusters){0};
  size_t capacity = 0;
  int fd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno != ENOENT && errno != ENOTDIR)
    return -errno;
  bool itself = fd < 0 || holds_layout(fd);
  int err = itself ? add(ret, &capacity, "") : 0;
  if (fd >= 0 && err == 0)
    err = scan_named(fd, ret, &capacity);
  else if (fd >= 0)
    close(fd);
  if (err == 0 && ret->count == 0)
    err = add(ret, &capacity, ""); /* neither: a directory with no files */
  if (err != 0) {
    data_clusters_free(ret);
    return err;
  }
  qsort(ret->cluster, ret->count, sizeof(*ret->cluster), by_name);
  return 0;
}

void data_clusters_free(struct data_clusters *clusters) {
  free(clusters->cluster);
  *clusters = (struct data_clusters){0};
}

bool data_clusters_named(const struct data_clusters *clusters) {
  return clusters->count > 1 ||
         (clusters->count == 1 && clusters->cluster[0].name[0] != '\0');
}

const struct data_cluster *data_clusters_find(const struct data_clusters *c,
                                              const char *name) {
  for (size_t i = 0; i < c->count; i++)
    if (strcmp(c->cluster[i].name, name ? name : "") == 0)
      return &c->cluster[i];
  return NULL;
}

int data_cluster_dir(const char *dir, const char *cluster, char *buf,
                     size_t size) {
  int n;
  if (cluster == NULL || cluster[0] == '\0')
    n = snprintf(buf, size, "%s", dir);
  else if (rrd_cluster_name_problem(cluster) != NULL)
    return -EINVAL;
  else
    n = snprintf(buf, size, "%s/%s", dir, cluster);
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

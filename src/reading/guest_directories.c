/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each cluster's guests, read on first use (see guest_directories.h).  A
 * collector keeps few clusters, so a list searched by name is enough.
 */
#include "pvecg/grow.h"
#include "pvecg/guest_directories.h"

#include "pvecg/data_clusters.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cluster_guests {
  char cluster[RRD_FILE_NAME_MAX + 1];
  struct guest_directory *guests;
};

struct guest_directories {
  char *config_dir; /* NULL: nobody is known */
  struct cluster_guests *item;
  size_t count, capacity;
};

struct guest_directories *guest_directories_new(const char *config_dir) {
  struct guest_directories *d = calloc(1, sizeof(*d));
  if (d == NULL || config_dir == NULL)
    return d;
  if ((d->config_dir = strdup(config_dir)) == NULL) {
    free(d);
    return NULL;
  }
  return d;
}

static struct guest_directory *load(const struct guest_directories *d,
                                    const char *cluster) {
  char dir[PATH_MAX];
  if (d->config_dir == NULL)
    return guest_directory_load(NULL);
  if (data_cluster_dir(d->config_dir, cluster, dir, sizeof(dir)) < 0)
    return NULL;
  return guest_directory_load(dir);
}

const struct guest_directory *guest_directories_get(struct guest_directories *d,
                                                    const char *cluster) {
  const char *name = cluster != NULL ? cluster : "";
  for (size_t i = 0; i < d->count; i++)
    if (strcmp(d->item[i].cluster, name) == 0)
      return d->item[i].guests;
  if (strlen(name) > RRD_FILE_NAME_MAX)
    return NULL;
  struct cluster_guests *grown =
      grow_array(d->item, d->count + 1, &d->capacity, sizeof(*d->item), 4);
  if (grown == NULL)
    return NULL;
  d->item = grown;
  struct guest_directory *g = load(d, name);
  if (g == NULL)
    return NULL;
  /* asked of every file at every pass: each configuration read once, until
   * guest_directories_forget(); without the memory, read at each find */
  (void)guest_directory_keep(g);
  struct cluster_guests *c = &d->item[d->count++];
  snprintf(c->cluster, sizeof(c->cluster), "%s", name);
  c->guests = g;
  return g;
}

void guest_directories_forget(struct guest_directories *d) {
  for (size_t i = 0; i < d->count; i++)
    guest_directory_free(d->item[i].guests);
  d->count = 0;
}

void guest_directories_free(struct guest_directories *d) {
  if (d == NULL)
    return;
  guest_directories_forget(d);
  free(d->item);
  free(d->config_dir);
  free(d);
}

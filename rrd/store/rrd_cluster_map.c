/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hosts to clusters (see rrd_cluster_map.h): the clusters' names, and the
 * hosts sorted by name for a binary search per row.
 */
#include "pvecg/rrd_cluster_map.h"

#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct host_entry {
  char *host;
  size_t cluster; /* index into clusters */
};

struct rrd_cluster_map {
  char **clusters;
  size_t cluster_count;
  struct host_entry *hosts; /* sorted by host */
  size_t host_count;
  bool standalone;
};

struct rrd_cluster_map *rrd_cluster_map_new(void) {
  return calloc(1, sizeof(struct rrd_cluster_map));
}

void rrd_cluster_map_free(struct rrd_cluster_map *map) {
  if (map == NULL)
    return;
  for (size_t i = 0; i < map->cluster_count; i++)
    free(map->clusters[i]);
  for (size_t i = 0; i < map->host_count; i++)
    free(map->hosts[i].host);
  free(map->clusters);
  free(map->hosts);
  free(map);
}

/* The first host entry not less than host (the insertion point). */
static size_t lower_bound(const struct rrd_cluster_map *map, const char *host) {
  size_t lo = 0, hi = map->host_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(map->hosts[mid].host, host) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static const struct host_entry *host_entry(const struct rrd_cluster_map *map,
                                           const char *host) {
  size_t i = lower_bound(map, host);
  return i < map->host_count && strcmp(map->hosts[i].host, host) == 0
             ? &map->hosts[i]
             : NULL;
}

static bool cluster_known(const struct rrd_cluster_map *map,
                          const char *cluster) {
  for (size_t i = 0; i < map->cluster_count; i++)
    if (strcmp(map->clusters[i], cluster) == 0)
      return true;
  return false;
}

/* What is wrong with the block, before anything of it is kept. */
static int check_block(const struct rrd_cluster_map *map, const char *cluster,
                       const char *const *hosts, size_t count, char *err,
                       size_t err_size) {
  const char *problem = rrd_cluster_name_problem(cluster);
  if (problem != NULL)
    snprintf(err, err_size, "the cluster name \"%s\" cannot be used: %s",
             cluster, problem);
  else if (cluster_known(map, cluster))
    snprintf(err, err_size, "the cluster \"%s\" is configured twice", cluster);
  else if (count == 0)
    snprintf(err, err_size, "the cluster \"%s\" has no Host", cluster);
  for (size_t i = 0; problem == NULL && err[0] == '\0' && i < count; i++) {
    const struct host_entry *e = host_entry(map, hosts[i]);
    if (rrd_file_name_problem(hosts[i]) != NULL)
      snprintf(err, err_size,
               "the host name \"%s\" of cluster \"%s\" cannot name a node's "
               "file: %s",
               hosts[i], cluster, rrd_file_name_problem(hosts[i]));
    else if (e != NULL)
      snprintf(err, err_size,
               "the host \"%s\" is in both cluster \"%s\" and cluster \"%s\"",
               hosts[i], map->clusters[e->cluster], cluster);
    for (size_t j = 0; err[0] == '\0' && j < i; j++)
      if (strcmp(hosts[i], hosts[j]) == 0)
        snprintf(err, err_size,
                 "the host \"%s\" is given twice in cluster \"%s\"", hosts[i],
                 cluster);
  }
  return err[0] != '\0' ? -EINVAL : 0;
}

static int add_host(struct rrd_cluster_map *map, const char *host,
                    size_t cluster) {
  struct host_entry *grown =
      realloc(map->hosts, (map->host_count + 1) * sizeof(*grown));
  if (grown == NULL)
    return -ENOMEM;
  map->hosts = grown;
  char *copy = strdup(host);
  if (copy == NULL)
    return -ENOMEM;
  size_t at = lower_bound(map, host);
  memmove(&map->hosts[at + 1], &map->hosts[at],
          (map->host_count - at) * sizeof(*map->hosts));
  map->hosts[at] = (struct host_entry){.host = copy, .cluster = cluster};
  map->host_count++;
  return 0;
}

int rrd_cluster_map_add(struct rrd_cluster_map *map, const char *cluster,
                        const char *const *hosts, size_t count, char *err,
                        size_t err_size) {
  err[0] = '\0';
  if (check_block(map, cluster, hosts, count, err, err_size) != 0)
    return -EINVAL;
  char **grown =
      realloc(map->clusters, (map->cluster_count + 1) * sizeof(*grown));
  if (grown == NULL)
    return -ENOMEM;
  map->clusters = grown;
  if ((map->clusters[map->cluster_count] = strdup(cluster)) == NULL)
    return -ENOMEM;
  size_t index = map->cluster_count++;
  for (size_t i = 0; i < count; i++)
    if (add_host(map, hosts[i], index) != 0)
      return -ENOMEM; /* the hosts added so far stay: the map is freed */
  return 0;
}

void rrd_cluster_map_set_standalone(struct rrd_cluster_map *map, bool on) {
  map->standalone = on;
}

bool rrd_cluster_map_active(const struct rrd_cluster_map *map) {
  return map->cluster_count > 0 || map->standalone;
}

enum rrd_cluster_verdict rrd_cluster_map_find(const struct rrd_cluster_map *map,
                                              const char *host,
                                              const char **cluster) {
  *cluster = "";
  if (!rrd_cluster_map_active(map))
    return RRD_CLUSTER_OF;
  const struct host_entry *e = host_entry(map, host);
  if (e != NULL) {
    *cluster = map->clusters[e->cluster];
    return RRD_CLUSTER_OF;
  }
  if (!map->standalone)
    return RRD_CLUSTER_UNLISTED;
  if (rrd_cluster_name_problem(host) != NULL)
    return RRD_CLUSTER_BAD_NAME;
  if (cluster_known(map, host))
    return RRD_CLUSTER_NAME_TAKEN;
  *cluster = host;
  return RRD_CLUSTER_OF;
}

void rrd_cluster_map_refusal(enum rrd_cluster_verdict verdict, const char *host,
                             char *buf, size_t size) {
  switch (verdict) {
  case RRD_CLUSTER_UNLISTED:
    snprintf(buf, size,
             "the rows of host \"%s\" are dropped: it is in no <Cluster> "
             "block. Add Host \"%s\" to its cluster's block, or set "
             "StandaloneHosts true to give every unlisted host a cluster of "
             "its own.",
             host, host);
    break;
  case RRD_CLUSTER_BAD_NAME:
    snprintf(buf, size,
             "the rows of standalone host \"%s\" are dropped: its name "
             "cannot name its cluster's directory (%s). Put it in a "
             "<Cluster> block.",
             host, rrd_cluster_name_problem(host));
    break;
  case RRD_CLUSTER_NAME_TAKEN:
    snprintf(buf, size,
             "the rows of standalone host \"%s\" are dropped: a <Cluster> "
             "block of that name is configured, and they would be mixed "
             "with its files. Add the host to that block, or rename one.",
             host);
    break;
  default:
    snprintf(buf, size, "the rows of host \"%s\" are written.", host);
  }
}

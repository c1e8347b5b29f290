/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_rrd's cluster settings (see cluster_config.h): collectd's config
 * items onto an rrd_cluster_map, and one error line per refused host.
 *
 * The map is built while collectd reads its configuration, before any
 * write thread runs, and only read afterwards; the set of hosts already
 * told about is the only thing write threads change, under its own lock,
 * never held across a log call.
 */
#include "cluster_config.h"

#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"
#include "collectd/core/daemon/utils_complain.h"

#include "pvecg/rrd_cluster_map.h"

#include <pthread.h>

#define PLUGIN_NAME "pve_rrd"
/* Refused hosts told about once each; more than this are rate-limited
 * together, so a flood of host names costs bounded memory. */
#define TOLD_MAX 256
/* Hosts in one <Cluster> block: far above Proxmox VE's largest clusters. */
#define HOSTS_MAX 4096

static struct rrd_cluster_map *map;
static pthread_mutex_t told_lock = PTHREAD_MUTEX_INITIALIZER;
static char told[TOLD_MAX][DATA_MAX_NAME_LEN];
static size_t told_count;
static c_complain_t told_overflow = C_COMPLAIN_INIT_STATIC;

static int ensure_map(void) {
  if (map == NULL && (map = rrd_cluster_map_new()) == NULL) {
    ERROR(PLUGIN_NAME " plugin: out of memory for the cluster settings.");
    return -1;
  }
  return 0;
}

/* The Host values of a block, in order; -1 (logged) for anything else. */
static int block_hosts(const oconfig_item_t *ci, const char **hosts, size_t max,
                       size_t *count) {
  *count = 0;
  for (int i = 0; i < ci->children_num; i++) {
    const oconfig_item_t *child = &ci->children[i];
    if (strcasecmp("Host", child->key) != 0) {
      ERROR(PLUGIN_NAME " plugin: <Cluster \"%s\">: unknown option \"%s\" "
                        "(a block takes Host lines).",
            ci->values[0].value.string, child->key);
      return -1;
    }
    for (int j = 0; j < child->values_num; j++) {
      if (child->values[j].type != OCONFIG_TYPE_STRING || *count == max) {
        ERROR(PLUGIN_NAME " plugin: <Cluster \"%s\">: Host takes quoted host "
                          "names (at most %zu in a block).",
              ci->values[0].value.string, max);
        return -1;
      }
      hosts[(*count)++] = child->values[j].value.string;
    }
  }
  return 0;
}

int cluster_config_block(const oconfig_item_t *ci) {
  if (ci->values_num != 1 || ci->values[0].type != OCONFIG_TYPE_STRING) {
    ERROR(PLUGIN_NAME " plugin: <Cluster> takes one quoted name.");
    return -1;
  }
  size_t max = HOSTS_MAX, count;
  const char **hosts = calloc(max, sizeof(*hosts));
  if (hosts == NULL || ensure_map() != 0 ||
      block_hosts(ci, hosts, max, &count) != 0) {
    free(hosts);
    return -1;
  }
  char err[512];
  int r = rrd_cluster_map_add(map, ci->values[0].value.string, hosts, count,
                              err, sizeof(err));
  free(hosts);
  if (r == -EINVAL)
    ERROR(PLUGIN_NAME " plugin: %s; the configuration is refused.", err);
  else if (r != 0)
    ERROR(PLUGIN_NAME " plugin: out of memory for the cluster settings.");
  return r == 0 ? 0 : -1;
}

int cluster_config_standalone(oconfig_item_t *ci) {
  bool on = false;
  if (cf_util_get_boolean(ci, &on) != 0 || ensure_map() != 0)
    return -1;
  rrd_cluster_map_set_standalone(map, on);
  return 0;
}

bool cluster_config_active(void) {
  return map != NULL && rrd_cluster_map_active(map);
}

/* Whether host was told about before; remembers it if there is room. */
static bool told_before(const char *host, bool *full) {
  bool found = false;
  pthread_mutex_lock(&told_lock);
  for (size_t i = 0; !found && i < told_count; i++)
    found = strcmp(told[i], host) == 0;
  *full = !found && told_count == TOLD_MAX;
  if (!found && !*full)
    sstrncpy(told[told_count++], host, sizeof(told[0]));
  pthread_mutex_unlock(&told_lock);
  return found;
}

const char *cluster_config_of(const char *host) {
  const char *cluster = "";
  if (map == NULL)
    return cluster;
  enum rrd_cluster_verdict v = rrd_cluster_map_find(map, host, &cluster);
  if (v == RRD_CLUSTER_OF)
    return cluster;
  bool full;
  if (!told_before(host, &full)) {
    char line[1024];
    rrd_cluster_map_refusal(v, host, line, sizeof(line));
    if (full)
      c_complain(LOG_ERR, &told_overflow, PLUGIN_NAME " plugin: %s", line);
    else
      ERROR(PLUGIN_NAME " plugin: %s", line);
  }
  return NULL;
}

const char *cluster_config_peek(const char *host) {
  const char *cluster = "";
  return map == NULL ||
                 rrd_cluster_map_find(map, host, &cluster) == RRD_CLUSTER_OF
             ? cluster
             : NULL;
}

void cluster_config_free(void) {
  rrd_cluster_map_free(map);
  map = NULL;
  pthread_mutex_lock(&told_lock);
  told_count = 0;
  pthread_mutex_unlock(&told_lock);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_cgroup's node row (see node_dispatch.h): collectd glue around
 * src/sample/node_sampler.c and src/row/node_row.c.
 */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"

#include "pvecg/error_text.h"
#include "node_dispatch.h"
#include "pvecg/node_row.h"
#include "stall_dispatch.h"

#define PLUGIN_NAME "pve_cgroup"

static struct node_sampler *node;
static struct node_row_map map;
static char name[DATA_MAX_NAME_LEN];

int node_dispatch_init(const struct node_sampler_config *config,
                       const char *node_name) {
  node_dispatch_shutdown();
  if (node_row_map_init(&map, &layout_pve_node_9_0) < 0) {
    ERROR(PLUGIN_NAME " plugin: the pve-node-9.0 layout lacks a column.");
    return -1;
  }
  int err = node_sampler_new(config, &node);
  if (err < 0) {
    ERROR(PLUGIN_NAME " plugin: cannot set up the node sampler: %s.",
          STRERROR(-err));
    return -1;
  }
  sstrncpy(name, node_name, sizeof(name));
  return 0;
}

static void log_changes(const struct node_sample *s) {
  unsigned changed = s->failed ^ s->failed_before;
  for (int i = 0; i < NODE_SOURCE_COUNT; i++) {
    if (!(changed & (1u << i)))
      continue;
    const char *path = node_sampler_source_path(node, (enum node_source)i);
    if (s->failed & (1u << i))
      WARNING(PLUGIN_NAME " plugin: node: %s: %s; the values it feeds are "
                          "recorded as unknown until it recovers.",
              path, error_text(s->error[i]));
    else
      INFO(PLUGIN_NAME " plugin: node: %s is readable again.", path);
  }
}

void node_dispatch_run(uint64_t time, bool stall) {
  if (!node)
    return;
  struct node_sample s;
  int err = node_sampler_run(node, &s);
  if (s.failed != s.failed_before)
    log_changes(&s);
  if (err < 0)
    return; /* nothing at all: the sources were logged */
  double row[RRD_LAYOUT_DS_MAX];
  value_t values[RRD_LAYOUT_DS_MAX];
  node_row_fill(&map, &s, row);
  for (size_t i = 0; i < map.width; i++)
    values[i].gauge = row[i];
  value_list_t vl = VALUE_LIST_INIT;
  vl.values = values;
  vl.values_len = map.width;
  vl.time = (cdtime_t)time;
  sstrncpy(vl.host, name, sizeof(vl.host));
  sstrncpy(vl.plugin, PLUGIN_NAME, sizeof(vl.plugin));
  sstrncpy(vl.type, layout_pve_node_9_0.type_name, sizeof(vl.type));
  plugin_dispatch_values(&vl);
  if (stall)
    stall_dispatch_node(&s, (cdtime_t)time);
}

void node_dispatch_shutdown(void) {
  node_sampler_free(node);
  node = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in for the parts of the collectd daemon the plugins call, so the
 * plugin sources can be unit-tested in-process: registrations are recorded,
 * dispatched value lists and log lines are kept for inspection.
 */
#ifndef PVECG_COLLECTD_STUB_H
#define PVECG_COLLECTD_STUB_H

#include "collectd/core/daemon/plugin.h"

#define STUB_MAX_VALUE_LISTS 4096
#define STUB_MAX_LOG_LINES 256

struct stub_value_list {
  value_list_t vl; /* values points into the record below */
  value_t values[32];
  char meta_pve_name[128]; /* the "pve_name" meta data, "" when none */
};

struct stub {
  int (*config)(oconfig_item_t *);
  int (*init)(void);
  int (*read)(void);
  int (*write)(const data_set_t *, const value_list_t *, user_data_t *);
  int (*shutdown)(void);
  plugin_flush_cb flush;
  data_set_t data_sets[8];
  data_source_t data_sources[8][32];
  int data_set_count;
  struct stub_value_list dispatched[STUB_MAX_VALUE_LISTS];
  int dispatched_count;
  char log[STUB_MAX_LOG_LINES][1024];
  int log_level[STUB_MAX_LOG_LINES];
  int log_count;
  cdtime_t now; /* what cdtime() answers; 0: the real clock */
};

extern struct stub stub;

/* Forgets dispatched values and log lines (registrations stay). */
void stub_reset_records(void);

/* The first log line containing text, or NULL. */
const char *stub_log_find(const char *text);

/* The registered data set called type, or NULL. */
const data_set_t *stub_data_set(const char *type);

/* Config trees for tests: a block with children "Key" "value"... */
oconfig_item_t *stub_config_new(void);
void stub_config_add_strings(oconfig_item_t *block, const char *key, int n,
                             ...);
void stub_config_add_boolean(oconfig_item_t *block, const char *key,
                             bool value);
void stub_config_add_number(oconfig_item_t *block, const char *key,
                            double value);
/* A block <key "value"> ... </key> in block; add its children to the item
 * returned, before anything else is added to block (which moves it). */
oconfig_item_t *stub_config_add_block(oconfig_item_t *block, const char *key,
                                      const char *value);
void stub_config_free(oconfig_item_t *block);

#endif

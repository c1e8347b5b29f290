/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collectd stand-in for plugin unit tests (see collectd_stub.h).  The
 * cf_util_get_* helpers follow collectd's own semantics: exactly one
 * argument of the right type, an error logged otherwise.
 */
#include "collectd_stub.h"

#include "collectd/core/daemon/configfile.h"
#include "collectd/core/daemon/utils_complain.h"
#include "collectd/core/utils/common/common.h"
#include "collectd/core/utils/metadata/meta_data.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct stub stub;

/* The one meta data entry the plugins use. */
struct stub_meta {
  char key[64];
  char value[128];
};

meta_data_t *meta_data_create(void) {
  return calloc(1, sizeof(struct stub_meta));
}

void meta_data_destroy(meta_data_t *md) { free(md); }

int meta_data_add_string(meta_data_t *md, const char *key, const char *value) {
  struct stub_meta *m = (struct stub_meta *)md;
  snprintf(m->key, sizeof(m->key), "%s", key);
  snprintf(m->value, sizeof(m->value), "%s", value);
  return 0;
}
char *hostname_g = "stubhost";
cdtime_t interval_g;

void stub_reset_records(void) {
  stub.dispatched_count = 0;
  stub.log_count = 0;
}

const char *stub_log_find(const char *text) {
  for (int i = 0; i < stub.log_count; i++)
    if (strstr(stub.log[i], text))
      return stub.log[i];
  return NULL;
}

const data_set_t *stub_data_set(const char *type) {
  for (int i = 0; i < stub.data_set_count; i++)
    if (strcmp(stub.data_sets[i].type, type) == 0)
      return &stub.data_sets[i];
  return NULL;
}

void plugin_log(int level, const char *format, ...) {
  if (stub.log_count >= STUB_MAX_LOG_LINES)
    return;
  va_list ap;
  va_start(ap, format);
  vsnprintf(stub.log[stub.log_count], sizeof(stub.log[0]), format, ap);
  va_end(ap);
  stub.log_level[stub.log_count++] = level;
}

void c_complain(int level, c_complain_t *c, const char *format, ...) {
  (void)c;
  if (stub.log_count >= STUB_MAX_LOG_LINES)
    return;
  va_list ap;
  va_start(ap, format);
  vsnprintf(stub.log[stub.log_count], sizeof(stub.log[0]), format, ap);
  va_end(ap);
  stub.log_level[stub.log_count++] = level;
}

char *sstrncpy(char *dest, const char *src, size_t n) {
  strncpy(dest, src, n);
  dest[n - 1] = '\0';
  return dest;
}

/* As collectd's: "host/plugin[-instance]/type[-instance]". */
int parse_identifier_vl(const char *str, value_list_t *vl) {
  char copy[6 * DATA_MAX_NAME_LEN];
  sstrncpy(copy, str, sizeof(copy));
  char *plugin = strchr(copy, '/');
  char *type = plugin ? strchr(plugin + 1, '/') : NULL;
  if (type == NULL || strchr(type + 1, '/') != NULL)
    return -1;
  *plugin++ = '\0';
  *type++ = '\0';
  char *pi = strchr(plugin, '-'), *ti = strchr(type, '-');
  if (pi != NULL)
    *pi++ = '\0';
  if (ti != NULL)
    *ti++ = '\0';
  sstrncpy(vl->host, copy, sizeof(vl->host));
  sstrncpy(vl->plugin, plugin, sizeof(vl->plugin));
  sstrncpy(vl->plugin_instance, pi ? pi : "", sizeof(vl->plugin_instance));
  sstrncpy(vl->type, type, sizeof(vl->type));
  sstrncpy(vl->type_instance, ti ? ti : "", sizeof(vl->type_instance));
  return 0;
}

char *sstrerror(int errnum, char *buf, size_t buflen) {
  snprintf(buf, buflen, "%s", strerror(errnum));
  return buf;
}

cdtime_t plugin_get_interval(void) {
  return interval_g ? interval_g : TIME_T_TO_CDTIME_T_STATIC(10);
}

cdtime_t cdtime(void) {
  if (stub.now)
    return stub.now;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return TIMESPEC_TO_CDTIME_T(&ts);
}

const char *global_option_get(const char *option) {
  (void)option;
  return NULL;
}

int plugin_register_complex_config(const char *type,
                                   int (*callback)(oconfig_item_t *)) {
  (void)type;
  stub.config = callback;
  return 0;
}

int plugin_register_init(const char *name, plugin_init_cb callback) {
  (void)name;
  stub.init = callback;
  return 0;
}

int plugin_register_read(const char *name, int (*callback)(void)) {
  (void)name;
  stub.read = callback;
  return 0;
}

int plugin_register_write(const char *name, plugin_write_cb callback,
                          user_data_t const *ud) {
  (void)name;
  (void)ud;
  stub.write = callback;
  return 0;
}

int plugin_register_flush(const char *name, plugin_flush_cb callback,
                          user_data_t const *ud) {
  (void)name;
  (void)ud;
  stub.flush = callback;
  return 0;
}

int plugin_register_shutdown(const char *name, plugin_shutdown_cb callback) {
  (void)name;
  stub.shutdown = callback;
  return 0;
}

int plugin_register_data_set(const data_set_t *ds) {
  int i = stub.data_set_count++;
  stub.data_sets[i] = *ds;
  memcpy(stub.data_sources[i], ds->ds, ds->ds_num * sizeof(*ds->ds));
  stub.data_sets[i].ds = stub.data_sources[i];
  return 0;
}

int plugin_dispatch_values(value_list_t const *vl) {
  if (stub.dispatched_count >= STUB_MAX_VALUE_LISTS)
    return -1;
  struct stub_value_list *r = &stub.dispatched[stub.dispatched_count++];
  r->vl = *vl;
  memcpy(r->values, vl->values, vl->values_len * sizeof(*vl->values));
  r->vl.values = r->values;
  r->meta_pve_name[0] = '\0';
  if (vl->meta)
    sstrncpy(r->meta_pve_name, ((const struct stub_meta *)vl->meta)->value,
             sizeof(r->meta_pve_name));
  r->vl.meta = NULL;
  if (r->vl.host[0] == '\0')
    sstrncpy(r->vl.host, hostname_g, sizeof(r->vl.host));
  return 0;
}

static int one_value(const oconfig_item_t *ci, int type) {
  if (ci->values_num != 1 || ci->values[0].type != type) {
    plugin_log(LOG_ERR, "The \"%s\" option requires exactly one %s argument.",
               ci->key, type == OCONFIG_TYPE_STRING ? "string" : "other");
    return -1;
  }
  return 0;
}

int cf_util_get_string_buffer(const oconfig_item_t *ci, char *buffer,
                              size_t buffer_size) {
  if (one_value(ci, OCONFIG_TYPE_STRING) != 0)
    return -1;
  sstrncpy(buffer, ci->values[0].value.string, buffer_size);
  return 0;
}

int cf_util_get_boolean(const oconfig_item_t *ci, bool *ret_bool) {
  if (one_value(ci, OCONFIG_TYPE_BOOLEAN) != 0)
    return -1;
  *ret_bool = ci->values[0].value.boolean != 0;
  return 0;
}

int cf_util_get_cdtime(const oconfig_item_t *ci, cdtime_t *ret_value) {
  if (one_value(ci, OCONFIG_TYPE_NUMBER) != 0 || ci->values[0].value.number < 0)
    return -1;
  *ret_value = DOUBLE_TO_CDTIME_T(ci->values[0].value.number);
  return 0;
}

oconfig_item_t *stub_config_new(void) {
  return calloc(1, sizeof(oconfig_item_t));
}

static oconfig_item_t *add_child(oconfig_item_t *block, const char *key,
                                 int n) {
  block->children = realloc(block->children, (size_t)(block->children_num + 1) *
                                                 sizeof(*block->children));
  oconfig_item_t *c = &block->children[block->children_num++];
  memset(c, 0, sizeof(*c));
  c->key = strdup(key);
  c->values = calloc((size_t)(n ? n : 1), sizeof(*c->values));
  c->values_num = n;
  return c;
}

void stub_config_add_strings(oconfig_item_t *block, const char *key, int n,
                             ...) {
  oconfig_item_t *c = add_child(block, key, n);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    c->values[i].type = OCONFIG_TYPE_STRING;
    c->values[i].value.string = strdup(va_arg(ap, const char *));
  }
  va_end(ap);
}

void stub_config_add_boolean(oconfig_item_t *block, const char *key,
                             bool value) {
  oconfig_item_t *c = add_child(block, key, 1);
  c->values[0].type = OCONFIG_TYPE_BOOLEAN;
  c->values[0].value.boolean = value;
}

void stub_config_add_number(oconfig_item_t *block, const char *key,
                            double value) {
  oconfig_item_t *c = add_child(block, key, 1);
  c->values[0].type = OCONFIG_TYPE_NUMBER;
  c->values[0].value.number = value;
}

oconfig_item_t *stub_config_add_block(oconfig_item_t *block, const char *key,
                                      const char *value) {
  oconfig_item_t *c = add_child(block, key, 1);
  c->values[0].type = OCONFIG_TYPE_STRING;
  c->values[0].value.string = strdup(value);
  return c;
}

/* What an item holds, its blocks' children too. */
static void free_contents(oconfig_item_t *c) {
  for (int v = 0; v < c->values_num; v++)
    if (c->values[v].type == OCONFIG_TYPE_STRING)
      free(c->values[v].value.string);
  free(c->values);
  free(c->key);
  for (int i = 0; i < c->children_num; i++)
    free_contents(&c->children[i]);
  free(c->children);
}

void stub_config_free(oconfig_item_t *block) {
  for (int i = 0; i < block->children_num; i++)
    free_contents(&block->children[i]);
  free(block->children);
  free(block);
}

const data_set_t *plugin_get_ds(const char *name) {
  return stub_data_set(name);
}

/* Plugins that complain with c_complain also release with c_do_release. */
void c_do_release(int level, c_complain_t *c, const char *format, ...) {
  (void)level;
  (void)format;
  c->interval = 0;
}

/*
 * collectd write plugin "pve_rrd": writes row value lists (types
 * pve_vm_9_0 and pve_node_9_0, from pve_cgroup locally or from other hosts
 * through the network plugin) into RRD files in Proxmox VE's layout:
 *
 *   <DataDir>/pve-vm-9.0/<vmid>     one per guest (plugin_instance)
 *   <DataDir>/pve-node-9.0/<host>   one per node
 *
 * Everything about files -- creation, layout checks, refusing foreign
 * files, dropping rows that are not newer, when a problem deserves a log
 * line -- lives in rrd/rrd_store.c; this file maps value lists to rows and
 * logs what the store reports.  Write callbacks run on several collectd
 * threads at once; the store is thread-safe.
 */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"
#include "collectd/core/daemon/configfile.h"
#include "collectd/core/daemon/utils_complain.h"

#include "row_type.h"
#include "rrd_layout.h"
#include "rrd_store.h"
#include "vmid.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>

#define PLUGIN_NAME "pve_rrd"
#define DEFAULT_RECHECK_SECONDS 300

static char data_dir[PATH_MAX];
static cdtime_t recheck_interval;
static struct rrd_store *store;
static c_complain_t bad_row_complaint = C_COMPLAIN_INIT_STATIC;

/* Layouts this plugin writes; the legacy pve2 ones are read-only. */
static const struct rrd_layout *const writable[] = {&layout_pve_vm_9_0,
                                                    &layout_pve_node_9_0};

static int pve_rrd_config(oconfig_item_t *ci) {
  for (int i = 0; i < ci->children_num; i++) {
    oconfig_item_t *child = &ci->children[i];
    int status;
    if (strcasecmp("DataDir", child->key) == 0)
      status = cf_util_get_string_buffer(child, data_dir, sizeof(data_dir));
    else if (strcasecmp("RecheckInterval", child->key) == 0)
      status = cf_util_get_cdtime(child, &recheck_interval);
    else {
      ERROR(PLUGIN_NAME " plugin: unknown config option \"%s\".", child->key);
      status = -1;
    }
    if (status != 0)
      return -1;
    if (strcasecmp("DataDir", child->key) == 0 && data_dir[0] == '\0') {
      ERROR(PLUGIN_NAME " plugin: \"DataDir\" must not be empty.");
      return -1;
    }
  }
  return 0;
}

/* DataDir defaults to "pve" and, like collectd's rrdtool plugin, is taken
 * relative to BaseDir (collectd's working directory). */
static int resolve_data_dir(char *out, size_t size) {
  const char *dir = data_dir[0] ? data_dir : "pve";
  if (dir[0] == '/')
    return snprintf(out, size, "%s", dir) < (int)size ? 0 : -ENAMETOOLONG;
  char base[PATH_MAX];
  const char *option = global_option_get("BaseDir");
  if (option && option[0] == '/')
    sstrncpy(base, option, sizeof(base));
  else if (!getcwd(base, sizeof(base)))
    return -errno;
  int n = snprintf(out, size, "%s/%s", base, dir);
  return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static int pve_rrd_init(void) {
  for (size_t i = 0; i < STATIC_ARRAY_SIZE(writable); i++)
    if (row_type_register(writable[i]) != 0)
      return -1;
  char dir[PATH_MAX];
  int err = resolve_data_dir(dir, sizeof(dir));
  if (err < 0) {
    ERROR(PLUGIN_NAME " plugin: cannot make DataDir absolute: %s.",
          STRERROR(-err));
    return -1;
  }
  struct rrd_store_options options = {
      .data_dir = dir,
      .recheck_seconds = recheck_interval
                             ? (unsigned long)CDTIME_T_TO_TIME_T(recheck_interval)
                             : DEFAULT_RECHECK_SECONDS,
  };
  rrd_store_free(store); /* init is not expected twice, but be safe */
  store = NULL;
  err = rrd_store_new(&options, &store);
  if (err < 0) {
    ERROR(PLUGIN_NAME " plugin: cannot set up the store in %s: %s.", dir,
          STRERROR(-err));
    return -1;
  }
  INFO(PLUGIN_NAME " plugin: writing RRD files below %s.", dir);
  return 0;
}

static const struct rrd_layout *writable_layout(const char *type) {
  const struct rrd_layout *layout = rrd_layout_by_type(type);
  for (size_t i = 0; layout && i < STATIC_ARRAY_SIZE(writable); i++)
    if (layout == writable[i])
      return layout;
  return NULL;
}

/* The file name of a row: the VMID for guests, the host for the node. */
static int row_file_name(const struct rrd_layout *layout,
                         const value_list_t *vl, const char **ret) {
  if (layout == &layout_pve_node_9_0) {
    *ret = vl->host;
    return 0;
  }
  uint32_t vmid;
  if (vmid_parse_string(vl->plugin_instance, &vmid) < 0)
    return -EINVAL;
  *ret = vl->plugin_instance;
  return 0;
}

/* A receiver's types.db may define the type differently: check names and
 * order, and convert whatever DS types it uses to doubles. */
static int row_values(const struct rrd_layout *layout, const data_set_t *ds,
                      const value_list_t *vl, double *out) {
  if (ds->ds_num != layout->ds_count || vl->values_len != layout->ds_count)
    return -EPROTO;
  for (size_t i = 0; i < layout->ds_count; i++) {
    if (strcmp(ds->ds[i].name, layout->ds[i].name) != 0)
      return -EPROTO;
    switch (ds->ds[i].type) {
    case DS_TYPE_GAUGE:
      out[i] = vl->values[i].gauge;
      break;
    case DS_TYPE_DERIVE:
      out[i] = (double)vl->values[i].derive;
      break;
    case DS_TYPE_COUNTER:
      out[i] = (double)vl->values[i].counter;
      break;
    default:
      out[i] = (double)vl->values[i].absolute;
    }
  }
  return 0;
}

static void log_result(const struct rrd_store_result *res) {
  switch (res->outcome) {
  case RRD_STORE_FOREIGN:
  case RRD_STORE_FAILED:
    ERROR(PLUGIN_NAME " plugin: %s", res->message);
    break;
  case RRD_STORE_STALE:
    WARNING(PLUGIN_NAME " plugin: %s", res->message);
    break;
  default:
    INFO(PLUGIN_NAME " plugin: %s", res->message);
  }
}

static int pve_rrd_write(const data_set_t *ds, const value_list_t *vl,
                         user_data_t *ud) {
  (void)ud;
  const struct rrd_layout *layout = writable_layout(vl->type);
  if (!layout || !store)
    return 0;
  const char *name;
  double values[RRD_LAYOUT_DS_MAX];
  if (row_file_name(layout, vl, &name) < 0 ||
      row_values(layout, ds, vl, values) < 0) {
    c_complain(LOG_WARNING, &bad_row_complaint,
               PLUGIN_NAME " plugin: ignoring a %s row from host \"%s\" with "
                           "plugin instance \"%s\": not a VMID, or the type's "
                           "columns differ from the %s layout.",
               vl->type, vl->host, vl->plugin_instance, layout->name);
    return 0;
  }
  struct rrd_store_result res;
  int err = rrd_store_write(store, layout, name, CDTIME_T_TO_TIME_T(vl->time),
                            values, layout->ds_count, time(NULL), &res);
  if (err < 0 || res.report)
    log_result(&res);
  return 0;
}

static int pve_rrd_shutdown(void) {
  rrd_store_free(store);
  store = NULL;
  return 0;
}

__attribute__((visibility("default"))) void module_register(void) {
  plugin_register_complex_config(PLUGIN_NAME, pve_rrd_config);
  plugin_register_init(PLUGIN_NAME, pve_rrd_init);
  plugin_register_write(PLUGIN_NAME, pve_rrd_write, NULL);
  plugin_register_shutdown(PLUGIN_NAME, pve_rrd_shutdown);
}

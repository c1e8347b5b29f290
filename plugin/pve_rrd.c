/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collectd write plugin "pve_rrd": writes row value lists (types
 * pve_vm_9_0 and pve_node_9_0, from pve_cgroup locally or from other hosts
 * through the network plugin) into RRD files in Proxmox VE's layout:
 *
 *   <DataDir>/pve-vm-9.0/<vmid>     one per guest (plugin_instance)
 *   <DataDir>/pve-node-9.0/<host>   one per node
 *
 * and pvecg's KSM and stall-time rows beside them, in
 * pvecg-ksm-vm-1.0/<vmid>, pvecg-ksm-node-1.0/<host>,
 * pvecg-pressure-vm-1.0/<vmid> and pvecg-pressure-node-1.0/<host>,
 *
 * either with librrd directly or through rrdcached (DaemonAddress).
 * Everything about files -- creation, layout checks, refusing foreign
 * files, leaving alone files someone else writes, dropping rows that are
 * not newer, when a problem deserves a log line -- is the store's
 * (rrd/store/); how rows reach a daemon without making collectd's write
 * threads wait is the sink's (rrd/sink/); which host a guest's file
 * belongs to when hosts sharing VMIDs send to one collector is the
 * owners' (rrd/owner/), kept in <DataDir>/pvecg-owners across restarts.
 * Which cluster's directory a host's rows go to, <DataDir>/<cluster>/...
 * with <Cluster> blocks, is cluster_config.c's.  This file maps value
 * lists to rows (with their cluster, host and interval) and collectd's
 * FLUSH to the sink's, and hands the sink collectd's log.  Write
 * callbacks run on several collectd threads at once; the sink is
 * thread-safe.
 */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"
#include "collectd/core/daemon/configfile.h"
#include "collectd/core/daemon/utils_complain.h"

#include "cluster_config.h"
#include "row_type.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_sink.h"
#include "pvecg/rrdcached_client.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>

#define PLUGIN_NAME "pve_rrd"
#define DEFAULT_RECHECK_SECONDS 300
#define DEFAULT_MAX_TIME_AHEAD 300
#define QUEUE_SIZE_MAX 10000000

static char data_dir[PATH_MAX];
static char daemon_address[PATH_MAX];
static cdtime_t recheck_interval;
static cdtime_t max_time_ahead =
    TIME_T_TO_CDTIME_T_STATIC(DEFAULT_MAX_TIME_AHEAD); /* 0: no limit */
static cdtime_t daemon_timeout;
static size_t queue_size;
static struct rrd_sink *sink;
static c_complain_t bad_row_complaint = C_COMPLAIN_INIT_STATIC;
static c_complain_t flush_complaint = C_COMPLAIN_INIT_STATIC;

/* Layouts this plugin writes; the legacy pve2 ones are read-only. */
static const struct rrd_layout *const writable[] = {
    &layout_pve_vm_9_0,
    &layout_pve_node_9_0,
    &layout_pvecg_ksm_vm_1_0,
    &layout_pvecg_ksm_node_1_0,
    &layout_pvecg_pressure_vm_1_0,
    &layout_pvecg_pressure_node_1_0};

/* ---- configuration ----------------------------------------------------- */

static int config_queue_size(const oconfig_item_t *ci) {
  double n = ci->values_num == 1 && ci->values[0].type == OCONFIG_TYPE_NUMBER
                 ? ci->values[0].value.number
                 : -1;
  if (!(n >= 1 && n <= QUEUE_SIZE_MAX) || n != floor(n)) {
    ERROR(PLUGIN_NAME " plugin: \"QueueSize\" needs a whole number of rows "
                      "from 1 to %d.",
          QUEUE_SIZE_MAX);
    return -1;
  }
  queue_size = (size_t)n;
  return 0;
}

static int config_string(oconfig_item_t *ci, char *buf, size_t size) {
  if (cf_util_get_string_buffer(ci, buf, size) != 0)
    return -1;
  if (buf[0] == '\0') {
    ERROR(PLUGIN_NAME " plugin: \"%s\" must not be empty.", ci->key);
    return -1;
  }
  return 0;
}

static int config_option(oconfig_item_t *child) {
  if (strcasecmp("DataDir", child->key) == 0)
    return config_string(child, data_dir, sizeof(data_dir));
  if (strcasecmp("DaemonAddress", child->key) == 0)
    return config_string(child, daemon_address, sizeof(daemon_address));
  if (strcasecmp("RecheckInterval", child->key) == 0)
    return cf_util_get_cdtime(child, &recheck_interval);
  if (strcasecmp("MaxTimeAhead", child->key) == 0)
    return cf_util_get_cdtime(child, &max_time_ahead);
  if (strcasecmp("DaemonTimeout", child->key) == 0)
    return cf_util_get_cdtime(child, &daemon_timeout);
  if (strcasecmp("QueueSize", child->key) == 0)
    return config_queue_size(child);
  if (strcasecmp("Cluster", child->key) == 0)
    return cluster_config_block(child);
  if (strcasecmp("StandaloneHosts", child->key) == 0)
    return cluster_config_standalone(child);
  ERROR(PLUGIN_NAME " plugin: unknown config option \"%s\".", child->key);
  return -1;
}

static int pve_rrd_config(oconfig_item_t *ci) {
  for (int i = 0; i < ci->children_num; i++)
    if (config_option(&ci->children[i]) != 0)
      return -1;
  return 0;
}

/* DataDir defaults to "pve" and, like collectd's rrdtool plugin, is taken
 * relative to BaseDir (collectd's working directory) -- unless the files
 * are a TCP daemon's, whose paths are relative to its own base directory. */
static int resolve_data_dir(char *out, size_t size) {
  const char *dir = data_dir[0] ? data_dir : "pve";
  bool remote = daemon_address[0] && !rrdcached_address_is_unix(daemon_address);
  if (dir[0] == '/' || remote)
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

/* ---- init and shutdown ------------------------------------------------- */

/* The sink's lines, with collectd's severities. */
static void sink_log(void *ctx, enum rrd_sink_level level,
                     const char *message) {
  (void)ctx;
  if (level == RRD_SINK_ERROR)
    ERROR(PLUGIN_NAME " plugin: %s", message);
  else if (level == RRD_SINK_WARNING)
    WARNING(PLUGIN_NAME " plugin: %s", message);
  else
    INFO(PLUGIN_NAME " plugin: %s", message);
}

static int open_sink(const char *dir) {
  struct rrd_sink_options options = {
      .data_dir = dir,
      .daemon_address = daemon_address,
      .recheck_seconds =
          recheck_interval ? (unsigned long)CDTIME_T_TO_TIME_T(recheck_interval)
                           : DEFAULT_RECHECK_SECONDS,
      .max_ahead_seconds = (unsigned long)CDTIME_T_TO_TIME_T(max_time_ahead),
      .queue_size = queue_size,
      .timeout = CDTIME_T_TO_DOUBLE(daemon_timeout),
      .log = sink_log,
  };
  char err[256] = "";
  rrd_sink_free(sink); /* init is not expected twice, but be safe */
  sink = NULL;
  if (rrd_sink_new(&options, &sink, err, sizeof(err)) != 0) {
    ERROR(PLUGIN_NAME " plugin: cannot write below %s: %s.", dir, err);
    return -1;
  }
  const char *apart =
      cluster_config_active() ? ", each cluster in a directory of its own" : "";
  if (daemon_address[0])
    INFO(PLUGIN_NAME " plugin: writing RRD files below %s%s through "
                     "rrdcached at %s.",
         dir, apart, daemon_address);
  else
    INFO(PLUGIN_NAME " plugin: writing RRD files below %s%s.", dir, apart);
  return 0;
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
  return open_sink(dir);
}

static int pve_rrd_shutdown(void) {
  rrd_sink_free(sink);
  sink = NULL;
  cluster_config_free();
  return 0;
}

/* ---- rows -------------------------------------------------------------- */

static const struct rrd_layout *writable_layout(const char *type) {
  const struct rrd_layout *layout = rrd_layout_by_type(type);
  for (size_t i = 0; layout && i < STATIC_ARRAY_SIZE(writable); i++)
    if (layout == writable[i])
      return layout;
  return NULL;
}

/* The file name of a row: the VMID for guests, the host for the node. */
static int row_file_name(const struct rrd_layout *layout, const char *host,
                         const char *plugin_instance, const char **ret) {
  if (layout->kind == RRD_LAYOUT_NODE) {
    *ret = host;
    return 0;
  }
  uint32_t vmid;
  if (vmid_parse_string(plugin_instance, &vmid) < 0)
    return -EINVAL;
  *ret = plugin_instance;
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

/* The seconds between the sending host's rows: the interval travels with
 * the values through the network plugin; a local list without one has
 * collectd's. */
static double row_interval(const value_list_t *vl) {
  return CDTIME_T_TO_DOUBLE(vl->interval != 0 ? vl->interval : interval_g);
}

static int pve_rrd_write(const data_set_t *ds, const value_list_t *vl,
                         user_data_t *ud) {
  (void)ud;
  const struct rrd_layout *layout = writable_layout(vl->type);
  if (!layout || !sink)
    return 0;
  const char *name;
  double values[RRD_LAYOUT_DS_MAX];
  if (row_file_name(layout, vl->host, vl->plugin_instance, &name) < 0 ||
      row_values(layout, ds, vl, values) < 0) {
    c_complain(LOG_WARNING, &bad_row_complaint,
               PLUGIN_NAME " plugin: ignoring a %s row from host \"%s\" with "
                           "plugin instance \"%s\": not a VMID, or the type's "
                           "columns differ from the %s layout.",
               vl->type, vl->host, vl->plugin_instance, layout->name);
    return 0;
  }
  const char *cluster = cluster_config_of(vl->host);
  if (cluster == NULL)
    return 0; /* refused: no configured directory for the host */
  time_t t = CDTIME_T_TO_TIME_T(vl->time);
  if (layout->kind == RRD_LAYOUT_NODE) /* named by its host already */
    rrd_sink_write(sink, layout, cluster, name, t, values, layout->ds_count);
  else
    rrd_sink_write_guest(sink, layout, cluster, name, vl->host,
                         row_interval(vl), t, values, layout->ds_count);
  return 0;
}

/* ---- flush ------------------------------------------------------------- */

struct identified {
  char cluster[DATA_MAX_NAME_LEN];
  char name[DATA_MAX_NAME_LEN];
};

/* The file an identifier "host/plugin[-instance]/type[-instance]" names
 * (read by collectd's own parser), with its cluster and name in *id; NULL
 * when it is not a row of ours. */
static const struct rrd_layout *identified_file(const char *identifier,
                                                struct identified *id) {
  value_list_t vl = VALUE_LIST_INIT;
  if (parse_identifier_vl(identifier, &vl) != 0)
    return NULL;
  const struct rrd_layout *layout = writable_layout(vl.type);
  const char *file, *cluster = cluster_config_peek(vl.host);
  if (!layout || cluster == NULL ||
      row_file_name(layout, vl.host, vl.plugin_instance, &file) != 0)
    return NULL;
  sstrncpy(id->cluster, cluster, sizeof(id->cluster));
  sstrncpy(id->name, file, sizeof(id->name));
  return layout;
}

/* collectd's FLUSH (SIGUSR1, unixsock, and once at shutdown): rows handed
 * over so far are made to reach the disk through the daemon. */
static int pve_rrd_flush(cdtime_t timeout, const char *identifier,
                         user_data_t *ud) {
  (void)timeout;
  (void)ud;
  if (!sink)
    return 0;
  const struct rrd_layout *layout = NULL;
  struct identified id;
  if (identifier != NULL && (layout = identified_file(identifier, &id)) == NULL)
    return 0; /* not a file of ours */
  int err = rrd_sink_flush(sink, layout, layout ? id.cluster : NULL,
                           layout ? id.name : NULL);
  if (err == -ETIMEDOUT)
    c_complain(LOG_WARNING, &flush_complaint,
               PLUGIN_NAME " plugin: a flush did not finish within "
                           "DaemonTimeout; it goes on in the background.");
  else
    c_release(LOG_INFO, &flush_complaint,
              PLUGIN_NAME " plugin: flushes finish in time again.");
  return err == 0 || err == -ETIMEDOUT ? 0 : -1;
}

__attribute__((visibility("default"))) void module_register(void) {
  plugin_register_complex_config(PLUGIN_NAME, pve_rrd_config);
  plugin_register_init(PLUGIN_NAME, pve_rrd_init);
  plugin_register_write(PLUGIN_NAME, pve_rrd_write, NULL);
  plugin_register_flush(PLUGIN_NAME, pve_rrd_flush, NULL);
  plugin_register_shutdown(PLUGIN_NAME, pve_rrd_shutdown);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shared options of the viewing commands and the files they name (see
 * view_source.h).  Every path built from --vmid/--node/--cluster goes
 * through rrd_cluster_file_path(), so a name from the command line cannot leave
 * the data directory.
 */
#include "pvecg/view_source.h"

#include "pvecg/decimal.h"
#include "pvecg/rrd_file.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrdcached_client.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void view_args_init(struct view_args *args) {
  *args = (struct view_args){.cf = RRD_CF_AVERAGE, .now = time(NULL)};
}

static int parse_cf(const char *value, enum rrd_cf *ret) {
  if (strcmp(value, "AVERAGE") == 0)
    *ret = RRD_CF_AVERAGE;
  else if (strcmp(value, "MAX") == 0)
    *ret = RRD_CF_MAX;
  else
    return -EINVAL;
  return 0;
}

/* An epoch time in seconds: digits only. */
static int parse_epoch(const char *value, time_t *ret) {
  const char *pos = value, *end = value + strlen(value);
  uint64_t v;
  if (decimal_parse_u64(&pos, end, &v) != 0 || pos != end || v > INT64_MAX / 2)
    return -EINVAL;
  *ret = (time_t)v;
  return 0;
}

static int set_value(struct view_args *args, int opt, const char *value) {
  switch (opt) {
  case VIEW_OPT_TIMEFRAME:
    args->has_timeframe = true;
    return rrddata_timeframe_parse(value, &args->timeframe);
  case VIEW_OPT_CF:
    return parse_cf(value, &args->cf);
  case VIEW_OPT_NOW:
    return parse_epoch(value, &args->now);
  case VIEW_OPT_VMID:
    args->vmid = value;
    return 0;
  case VIEW_OPT_NODE:
    args->node = value;
    return 0;
  case VIEW_OPT_FILE:
    args->file = value;
    return 0;
  case VIEW_OPT_DATA_DIR:
    args->data_dir = value;
    return 0;
  case VIEW_OPT_DAEMON:
    args->daemon = value;
    return 0;
  case VIEW_OPT_CLUSTER:
    args->cluster = value;
    return rrd_cluster_name_problem(value) == NULL ? 0 : -EINVAL;
  }
  return -ENOENT;
}

int view_args_set(struct view_args *args, int opt, const char *value,
                  const char *cmd) {
  int r = set_value(args, opt, value);
  if (r == -EINVAL)
    fprintf(stderr,
            "%s: bad value '%s' (--timeframe hour|day|week|month|year|decade, "
            "--cf AVERAGE|MAX, --now epoch seconds, --cluster a cluster's "
            "directory name)\n",
            cmd, value);
  return r;
}

/* The data directory: --data-dir, else the deployment's; over TCP without
 * --data-dir paths are relative to the daemon's base directory (NULL). */
static const char *data_dir(const struct view_args *args, bool remote) {
  if (args->data_dir != NULL)
    return args->data_dir;
  return remote ? NULL : PVECG_DEFAULT_DATA_DIR;
}

/* The file --vmid/--node names: its pve file, else the one of its KSM or
 * stall time. */
static const struct rrd_layout *named_layout(const struct view_args *args) {
  bool vm = args->vmid != NULL;
  if (args->ksm)
    return vm ? &layout_pvecg_ksm_vm_1_0 : &layout_pvecg_ksm_node_1_0;
  if (args->pressure)
    return vm ? &layout_pvecg_pressure_vm_1_0 : &layout_pvecg_pressure_node_1_0;
  return vm ? &layout_pve_vm_9_0 : &layout_pve_node_9_0;
}

static int named_path(const struct view_args *args, bool remote,
                      const char *cmd, struct view_source *ret) {
  uint32_t vmid;
  const struct rrd_layout *layout = named_layout(args);
  const char *name = args->vmid != NULL ? args->vmid : args->node;
  if (args->vmid != NULL && vmid_parse_string(args->vmid, &vmid) != 0) {
    fprintf(stderr, "%s: --vmid '%s' is not a VMID (100..999999999)\n", cmd,
            args->vmid);
    return -EINVAL;
  }
  const char *problem = rrd_file_name_problem(name);
  if (problem != NULL) {
    fprintf(stderr, "%s: --node: %s\n", cmd, problem);
    return -EINVAL;
  }
  if (rrd_cluster_file_path(data_dir(args, remote), args->cluster, layout, name,
                            ret->path, sizeof(ret->path)) != 0) {
    fprintf(stderr, "%s: the data directory's path is too long\n", cmd);
    return -EINVAL;
  }
  return 0;
}

int view_source_resolve(const struct view_args *args, const char *cmd,
                        struct view_source *ret) {
  int given =
      (args->vmid != NULL) + (args->node != NULL) + (args->file != NULL);
  if (given != 1 || !args->has_timeframe) {
    fprintf(stderr, "%s: give --timeframe and one of --vmid, --node, --file\n",
            cmd);
    return -EINVAL;
  }
  struct view_source src = {0};
  if (args->daemon != NULL && args->daemon[0] != '\0') {
    src.daemon = args->daemon;
    src.remote = !rrdcached_address_is_unix(args->daemon);
  }
  if (args->file != NULL) {
    if (strlen(args->file) >= sizeof(src.path) || args->file[0] == '\0') {
      fprintf(stderr, "%s: --file: empty or too long\n", cmd);
      return -EINVAL;
    }
    strcpy(src.path, args->file);
  } else if (named_path(args, src.remote, cmd, &src) != 0) {
    return -EINVAL;
  }
  src.layout = rrddata_path_layout(src.path);
  *ret = src;
  return 0;
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int view_source_legacy(const struct view_source *src, char *path, size_t size,
                       time_t *last, char *err, size_t err_size) {
  /* a daemon's files over TCP cannot be looked at here */
  if (src->remote)
    return -ENOENT;
  if (rrddata_legacy_path(src->path, "", path, size) != 0)
    return -ENOENT;
  if (!is_file(path) &&
      (rrddata_legacy_path(src->path, ".old", path, size) != 0 ||
       !is_file(path)))
    return -ENOENT;
  time_t t;
  if (rrd_file_last_update(path, &t, err, err_size) != 0)
    return -EIO;
  *last = t;
  return 0;
}

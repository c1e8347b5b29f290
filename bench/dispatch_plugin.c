/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collectd plugin "bench_dispatch": the calibration of the collectd mode.
 * Each interval it dispatches Rows value lists shaped like pve_cgroup's
 * rows (type pve_vm_9_0, 17 gauges, plugin instance a VMID, type instance
 * "qemu", one time for all) and reads nothing, so its CPU is collectd's own
 * cost of one row value list per guest.  The type must already be known:
 * load pve_rrd, or name pvecg-types.db in TypesDB.
 *
 *   <Plugin bench_dispatch>
 *     Rows 1000        # value lists per interval (default 0)
 *     FirstVMID 100    # VMIDs FirstVMID .. FirstVMID+Rows-1
 *     SpacingUs 10     # CPU spent before each row (default 0)
 *     FloorFiles "/tmp/x/floor-files"  # files read first (default none)
 *   </Plugin>
 *
 * FloorFiles names a file of paths, one a line, kept open from init and
 * each read by one pread from offset 0 before the rows are dispatched: the
 * kernel floor and the rows in one collectd, each paying for what the
 * other leaves in the caches, as pve_cgroup's reads and rows do.
 *
 * SpacingUs spins on the read thread's CPU clock before each dispatch, as
 * pve_cgroup spends CPU reading a guest's files between two dispatches;
 * the spin is exactly Rows * SpacingUs of CPU, which the benchmark
 * subtracts, leaving the cost of dispatching rows spaced like pve_cgroup's.
 */
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PLUGIN_NAME "bench_dispatch"
#define ROW_TYPE "pve_vm_9_0"
#define ROW_WIDTH_MAX 64

static int rows;
static int first_vmid = 100;
static int spacing_us;
static value_t row[ROW_WIDTH_MAX];
static size_t row_width;
static char *floor_list; /* FloorFiles */
static int *floor_fds;
static size_t floor_count;
/* As the floor's in pvecg-bench: larger than any of the files. */
static char floor_buf[16384];
static volatile size_t floor_sink;

static int bench_dispatch_config(oconfig_item_t *ci) {
  for (int i = 0; i < ci->children_num; i++) {
    oconfig_item_t *child = &ci->children[i];
    int err;
    if (strcasecmp("Rows", child->key) == 0)
      err = cf_util_get_int(child, &rows);
    else if (strcasecmp("FirstVMID", child->key) == 0)
      err = cf_util_get_int(child, &first_vmid);
    else if (strcasecmp("SpacingUs", child->key) == 0)
      err = cf_util_get_int(child, &spacing_us);
    else if (strcasecmp("FloorFiles", child->key) == 0)
      err = cf_util_get_string(child, &floor_list);
    else {
      ERROR(PLUGIN_NAME " plugin: unknown config option \"%s\".", child->key);
      err = -1;
    }
    if (err != 0)
      return -1;
  }
  if (rows < 0 || first_vmid < 100 || spacing_us < 0) {
    ERROR(PLUGIN_NAME " plugin: Rows and SpacingUs must be >= 0, FirstVMID "
                      ">= 100.");
    return -1;
  }
  return 0;
}

/* What a running guest's row holds: memory and pressure figures, the
 * columns pve_cgroup does not fill unknown. */
static double column_value(const char *name) {
  if (strcmp(name, "memhost") == 0 || strcmp(name, "mem") == 0)
    return 2147483648.0;
  if (strncmp(name, "pressure", 8) == 0)
    return 0.12;
  return NAN;
}

/* Opens every path listed in FloorFiles, keeping the descriptors. */
static int open_floor(void) {
  FILE *f = fopen(floor_list, "re");
  if (!f) {
    ERROR(PLUGIN_NAME " plugin: %s: %s", floor_list, STRERROR(errno));
    return -1;
  }
  char path[4096];
  size_t cap = 0;
  int err = 0;
  while (err == 0 && fgets(path, sizeof(path), f)) {
    path[strcspn(path, "\n")] = '\0';
    if (floor_count == cap) {
      cap = cap ? cap * 2 : 1024;
      int *grown = realloc(floor_fds, cap * sizeof(*floor_fds));
      if (!grown) {
        err = -1;
        break;
      }
      floor_fds = grown;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      ERROR(PLUGIN_NAME " plugin: %s: %s", path, STRERROR(errno));
      err = -1;
    } else
      floor_fds[floor_count++] = fd;
  }
  fclose(f);
  return err;
}

static int bench_dispatch_init(void) {
  if (floor_list && open_floor() != 0)
    return -1;
  const data_set_t *ds = plugin_get_ds(ROW_TYPE);
  if (!ds) {
    ERROR(PLUGIN_NAME " plugin: type " ROW_TYPE " is not defined: load "
                      "pve_rrd or add pvecg-types.db to TypesDB.");
    return -1;
  }
  if (ds->ds_num > ROW_WIDTH_MAX)
    return -1;
  row_width = ds->ds_num;
  for (size_t i = 0; i < row_width; i++)
    row[i].gauge = column_value(ds->ds[i].name);
  return 0;
}

static uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin(void) {
  uint64_t until = thread_cpu_ns() + (uint64_t)spacing_us * 1000u;
  while (thread_cpu_ns() < until)
    ;
}

static int bench_dispatch_read(void) {
  cdtime_t now = cdtime();
  for (size_t i = 0; i < floor_count; i++) {
    ssize_t n = pread(floor_fds[i], floor_buf, sizeof(floor_buf), 0);
    floor_sink += (size_t)n;
  }
  value_t values[ROW_WIDTH_MAX];
  for (int i = 0; i < rows; i++) {
    if (spacing_us)
      spin();
    /* A fresh list per row, as pve_cgroup builds one per guest. */
    memcpy(values, row, row_width * sizeof(values[0]));
    value_list_t vl = VALUE_LIST_INIT;
    vl.time = now;
    vl.values = values;
    vl.values_len = row_width;
    sstrncpy(vl.plugin, PLUGIN_NAME, sizeof(vl.plugin));
    snprintf(vl.plugin_instance, sizeof(vl.plugin_instance), "%d",
             first_vmid + i);
    sstrncpy(vl.type, ROW_TYPE, sizeof(vl.type));
    sstrncpy(vl.type_instance, "qemu", sizeof(vl.type_instance));
    plugin_dispatch_values(&vl);
  }
  return 0;
}

static int bench_dispatch_shutdown(void) {
  for (size_t i = 0; i < floor_count; i++)
    close(floor_fds[i]);
  free(floor_fds);
  free(floor_list);
  floor_fds = NULL;
  floor_list = NULL;
  floor_count = 0;
  return 0;
}

__attribute__((visibility("default"))) void module_register(void) {
  plugin_register_complex_config(PLUGIN_NAME, bench_dispatch_config);
  plugin_register_init(PLUGIN_NAME, bench_dispatch_init);
  plugin_register_read(PLUGIN_NAME, bench_dispatch_read);
  plugin_register_shutdown(PLUGIN_NAME, bench_dispatch_shutdown);
}

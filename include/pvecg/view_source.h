/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options `pvecg rrddata` and `pvecg graph` share, and the file they
 * name: --vmid/--node (a file of the data directory, its name checked by
 * rrd_file_name.h) or --file, read by librrd or through rrdcached, over
 * the timeframe's window at --now.  Also finds the legacy pve2 file whose
 * history a 9.0 file continues.
 */
#ifndef PVECG_VIEW_SOURCE_H
#define PVECG_VIEW_SOURCE_H

#include "pvecg/rrd_layout.h"
#include "pvecg/rrddata.h"

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Where the files are unless --data-dir says otherwise: the DataDir of
 * the deployments in docs/node.md. */
#define PVECG_DEFAULT_DATA_DIR "/var/lib/pvecg"

/* getopt_long values of the shared options (beyond any short option). */
enum {
  VIEW_OPT_TIMEFRAME = 0x100,
  VIEW_OPT_CF,
  VIEW_OPT_VMID,
  VIEW_OPT_NODE,
  VIEW_OPT_FILE,
  VIEW_OPT_DATA_DIR,
  VIEW_OPT_DAEMON,
  VIEW_OPT_NOW,
  VIEW_OPT_CLUSTER,
};

/* The struct option entries of the shared options, to begin a command's
 * option table with ("VIEW_OPTIONS, {...}, ..."). */
// clang-format off
#define VIEW_OPTIONS                                                  \
  {"timeframe", required_argument, NULL, VIEW_OPT_TIMEFRAME},         \
  {"cf", required_argument, NULL, VIEW_OPT_CF},                       \
  {"vmid", required_argument, NULL, VIEW_OPT_VMID},                   \
  {"node", required_argument, NULL, VIEW_OPT_NODE},                   \
  {"file", required_argument, NULL, VIEW_OPT_FILE},                   \
  {"data-dir", required_argument, NULL, VIEW_OPT_DATA_DIR},           \
  {"daemon", required_argument, NULL, VIEW_OPT_DAEMON},               \
  {"now", required_argument, NULL, VIEW_OPT_NOW},                     \
  {"cluster", required_argument, NULL, VIEW_OPT_CLUSTER}
// clang-format on

struct view_args {
  const char *vmid, *node, *file, *data_dir, *daemon;
  /* The cluster of --vmid/--node in a data directory that keeps several
   * apart (data_clusters.h); NULL: the data directory's own files. */
  const char *cluster;
  /* --vmid/--node name the guest's or node's pvecg KSM file
   * (pvecg-ksm-vm-1.0, pvecg-ksm-node-1.0), or its stall-time file
   * (pvecg-pressure-vm-1.0, pvecg-pressure-node-1.0), instead of its pve
   * file. */
  bool ksm, pressure;
  bool has_timeframe;
  enum rrddata_timeframe timeframe;
  enum rrd_cf cf;
  time_t now;
};

/* Defaults: AVERAGE, now = the current time. */
void view_args_init(struct view_args *args);

/*
 * Takes one parsed option.  Returns 0, -ENOENT when opt is not a shared
 * option, or -EINVAL for a bad value (printed on stderr, as "<cmd>: ...").
 */
int view_args_set(struct view_args *args, int opt, const char *value,
                  const char *cmd);

struct view_source {
  char path[PATH_MAX];
  const char *daemon;              /* NULL: librrd reads the file */
  bool remote;                     /* a daemon over TCP: path is the daemon's */
  const struct rrd_layout *layout; /* by the directory name, or NULL */
};

/*
 * Resolves the file the arguments name (exactly one of --vmid, --node,
 * --file; --timeframe given).  Returns 0 or -EINVAL, printed on stderr.
 */
int view_source_resolve(const struct view_args *args, const char *cmd,
                        struct view_source *ret);

/*
 * The legacy file of a 9.0 source: "<legacy>/<name>", else
 * "<legacy>/<name>.old", and its last update.  Returns 0, -ENOENT when
 * there is none (or the source is not a local 9.0 file), or -EIO with
 * librrd's message in err.
 */
int view_source_legacy(const struct view_source *src, char *path, size_t size,
                       time_t *last, char *err, size_t err_size);

#endif

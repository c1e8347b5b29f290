/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg check FILE...: which of the known layouts (rrd_layouts[]) each
 * file has, or exactly how it differs from the one it should have: the
 * layout its directory is named after, else the layout it is closest to.
 * The comparison is rrd_words_check_info(), the same the writer makes
 * before it touches a file, so "check" says what the writer would say.
 * With --all it checks every file of every layout's directory of every
 * cluster of the data directory (data_clusters.h), each line naming the
 * file's cluster when the data directory has named clusters.  With
 * --owners it lists which host owns each guest's file, and settles one
 * (check_owners.c).
 */
#include "check_owners.h"
#include "commands.h"
#include "pvecg/data_clusters.h"
#include "pvecg/dir_names.h"
#include "pvecg/rrd_file.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_words.h"
#include "pvecg/rrddata.h"
#include "pvecg/view_source.h"

#include <rrd.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "pvecg check"

static const char usage_text[] =
    "usage: pvecg check FILE...\n"
    "       pvecg check --all [--data-dir DIR]\n"
    "       pvecg check --owners [--data-dir DIR]\n"
    "       pvecg check --owners [--data-dir DIR] --give FILE HOST\n"
    "       pvecg check --owners [--data-dir DIR] --forget FILE\n"
    "\n"
    "Says for each RRD file which layout it has (pve-vm-9.0, pve-node-9.0,\n"
    "pve2-vm, pve2-node), or how it differs from the layout of its\n"
    "directory (or the closest layout).  Exit status 0 when every file has\n"
    "a layout, 1 otherwise.\n"
    "  --all            every file in the layouts' directories of every\n"
    "                   cluster of the data directory (\"cluster NAME: \"\n"
    "                   before a named cluster's lines)\n"
    "  --data-dir DIR   the data directory (" PVECG_DEFAULT_DATA_DIR ")\n"
    "  --owners         which host owns each guest's file, as pve_rrd keeps\n"
    "                   it, and the hosts seen reporting the same VMID at\n"
    "                   the same time (colliding) and since when; exit\n"
    "                   status 1 when a host is seen colliding\n"
    "  --give FILE HOST hand FILE (e.g. pve-vm-9.0/196 or\n"
    "                   CLUSTER/pve-vm-9.0/196) to HOST, which is no longer\n"
    "                   taken as colliding\n"
    "  --forget FILE    forget the collisions of FILE\n"
    "                   Both work while collectd runs: pve_rrd applies them\n"
    "                   within a few seconds.  The lasting fix for hosts of\n"
    "                   different clusters is pve_rrd's <Cluster> blocks.\n"
    "See pvecg-check(1).\n";

/* How many of the layout's data sources the file has at the same index. */
static size_t ds_in_place(const rrd_info_t *info,
                          const struct rrd_layout *layout) {
  size_t n = 0;
  for (size_t i = 0; i < layout->ds_count; i++) {
    char key[64];
    snprintf(key, sizeof(key), "ds[%s].index", layout->ds[i].name);
    for (const rrd_info_t *p = info; p != NULL; p = p->next)
      if (p->type == RD_I_CNT && strcmp(p->key, key) == 0 &&
          p->value.u_cnt == i) {
        n++;
        break;
      }
  }
  return n;
}

static size_t file_ds_count(const rrd_info_t *info) {
  size_t n = 0;
  for (const rrd_info_t *p = info; p != NULL; p = p->next) {
    size_t len = strlen(p->key);
    if (strncmp(p->key, "ds[", 3) == 0 && len > 9 &&
        strcmp(p->key + len - 7, "].index") == 0)
      n++;
  }
  return n;
}

/* The layout sharing the most data sources (in place) with the file; among
 * equals the one with as many data sources as the file, else the first of
 * rrd_layouts[]. */
static const struct rrd_layout *closest_layout(const rrd_info_t *info) {
  size_t count = file_ds_count(info);
  const struct rrd_layout *best = NULL;
  size_t best_n = 0;
  bool best_same_count = false;
  for (size_t i = 0; i < rrd_layouts_count; i++) {
    const struct rrd_layout *l = rrd_layouts[i];
    size_t n = ds_in_place(info, l);
    bool same_count = l->ds_count == count;
    if (best == NULL || n > best_n ||
        (n == best_n && same_count && !best_same_count)) {
      best = l;
      best_n = n;
      best_same_count = same_count;
    }
  }
  return best;
}

static const struct rrd_layout *matching_layout(const rrd_info_t *info) {
  char why[256];
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (rrd_words_check_info(rrd_layouts[i], info, why, sizeof(why)) == 0)
      return rrd_layouts[i];
  return NULL;
}

/* An RRD file: its layout, or how it differs.  Returns whether it has the
 * layout it should. */
static bool report_rrd(const char *label, const char *path,
                       const rrd_info_t *info) {
  const struct rrd_layout *match = matching_layout(info);
  const struct rrd_layout *dir = rrddata_path_layout(path);
  if (match != NULL && (dir == NULL || dir == match)) {
    printf("%s%s: %s\n", label, path, match->name);
    return true;
  }
  const struct rrd_layout *want = dir != NULL ? dir : closest_layout(info);
  char why[256];
  rrd_words_check_info(want, info, why, sizeof(why));
  printf("%s%s: differs from %s (%s): %s", label, path, want->name,
         dir != NULL ? "the layout of its directory" : "the closest layout",
         why);
  if (match != NULL)
    printf("; it is a %s file", match->name);
  printf("\n");
  return false;
}

/* One file; its lines begin with label ("" or "cluster NAME: "). */
static bool check_one(const char *label, const char *path) {
  char why[256];
  int r = rrd_file_check(rrd_layouts[0], path, why, sizeof(why));
  if (r == -ENOENT) {
    printf("%s%s: no such file\n", label, path);
    return false;
  }
  if (r == -EIO) {
    printf("%s%s: not an RRD file (%s)\n", label, path, why);
    return false;
  }
  if (r != 0 && r != -EPROTO) {
    printf("%s%s: cannot be read (%s)\n", label, path, why);
    return false;
  }
  rrd_clear_error();
  rrd_info_t *info = rrd_info_r(path);
  if (info == NULL) {
    /* replaced or removed since the first look */
    printf("%s%s: cannot be read (librrd: %s)\n", label, path, rrd_get_error());
    return false;
  }
  bool ok = report_rrd(label, path, info);
  rrd_info_free(info);
  return ok;
}

static bool any_name(const char *name) { return name[0] != '.'; }

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file (no dot file) of the cluster's layout directories, by
 * layout and name. */
static bool check_cluster(const char *data_dir, const char *cluster,
                          bool named) {
  char dir[PATH_MAX], label[RRD_FILE_NAME_MAX + 16] = "";
  if (named && cluster[0] != '\0')
    snprintf(label, sizeof(label), "cluster %s: ", cluster);
  if (data_cluster_dir(data_dir, cluster, dir, sizeof(dir)) != 0)
    return false;
  bool ok = true;
  for (size_t i = 0; i < rrd_layouts_count; i++) {
    char ldir[PATH_MAX], path[PATH_MAX];
    struct dir_names files;
    if (snprintf(ldir, sizeof(ldir), "%s/%s", dir, rrd_layouts[i]->name) >=
        (int)sizeof(ldir))
      return false;
    dir_names_read(ldir, DIR_ENTRY_FILE, any_name, SIZE_MAX, &files);
    if (files.count > 1)
      qsort(files.name, files.count, sizeof(*files.name), by_name);
    for (size_t f = 0; f < files.count; f++) {
      if (snprintf(path, sizeof(path), "%s/%s", ldir, files.name[f]) >=
          (int)sizeof(path))
        ok = false;
      else
        ok = check_one(label, path) && ok;
    }
    dir_names_free(&files);
  }
  return ok;
}

/* --all: every cluster, "" first. */
static int check_all(const char *data_dir, bool *all) {
  struct data_clusters c;
  int r = data_clusters_scan(data_dir, &c);
  if (r < 0) {
    fprintf(stderr, CMD ": %s: %s\n", data_dir, strerror(-r));
    return r;
  }
  bool named = data_clusters_named(&c);
  for (size_t i = 0; i < c.count; i++)
    *all = check_cluster(data_dir, c.cluster[i].name, named) && *all;
  data_clusters_free(&c);
  return 0;
}

enum { OPT_ALL = 0x100, OPT_DATA_DIR, OPT_OWNERS, OPT_GIVE, OPT_FORGET };

struct owners_args {
  bool owners;
  const char *give, *forget; /* FILE of --give or --forget */
};

/* --owners and its options; an exit status.  Only --give takes an
 * argument besides its option's: the HOST. */
static int owners_command(const struct owners_args *a, const char *data_dir,
                          int argc, char **argv) {
  int left = argc - optind;
  if ((a->give != NULL) + (a->forget != NULL) > 1 ||
      left != (a->give != NULL ? 1 : 0)) {
    fputs(usage_text, stderr);
    return PVECG_EXIT_USAGE;
  }
  data_dir = data_dir ? data_dir : PVECG_DEFAULT_DATA_DIR;
  return check_owners(data_dir, a->give ? a->give : a->forget,
                      a->give ? argv[optind] : NULL);
}

static bool owners_option(int opt, struct owners_args *a) {
  if (opt == OPT_OWNERS)
    a->owners = true;
  else if (opt == OPT_GIVE)
    a->give = optarg;
  else if (opt == OPT_FORGET)
    a->forget = optarg;
  return opt == OPT_OWNERS || opt == OPT_GIVE || opt == OPT_FORGET;
}

int cmd_check(int argc, char **argv) {
  static const struct option options[] = {
      {"all", no_argument, NULL, OPT_ALL},
      {"data-dir", required_argument, NULL, OPT_DATA_DIR},
      {"owners", no_argument, NULL, OPT_OWNERS},
      {"give", required_argument, NULL, OPT_GIVE},
      {"forget", required_argument, NULL, OPT_FORGET},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  const char *data_dir = NULL;
  bool walk = false;
  struct owners_args owners = {0};
  int opt;
  while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    if (owners_option(opt, &owners))
      continue;
    if (opt == OPT_ALL || opt == OPT_DATA_DIR) {
      walk |= opt == OPT_ALL;
      data_dir = opt == OPT_DATA_DIR ? optarg : data_dir;
      continue;
    }
    fputs(usage_text, opt == 'h' ? stdout : stderr);
    return opt == 'h' ? PVECG_EXIT_OK : PVECG_EXIT_USAGE;
  }
  if (owners.owners && !walk)
    return owners_command(&owners, data_dir, argc, argv);
  if (owners.owners || owners.give || owners.forget ||
      walk == (optind != argc) || (data_dir != NULL && !walk)) {
    fputs(usage_text, stderr);
    return PVECG_EXIT_USAGE;
  }
  bool all = true;
  for (int i = optind; i < argc; i++)
    all = check_one("", argv[i]) && all;
  if (walk && check_all(data_dir ? data_dir : PVECG_DEFAULT_DATA_DIR, &all) < 0)
    return PVECG_EXIT_FAILURE;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror(CMD ": writing the output");
    return PVECG_EXIT_FAILURE;
  }
  return all ? PVECG_EXIT_OK : PVECG_EXIT_FAILURE;
}

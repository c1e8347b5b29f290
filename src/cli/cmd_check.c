/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg check FILE...: which of the known layouts (rrd_layouts[]) each
 * file has, or exactly how it differs from the one it should have: the
 * layout its directory is named after, else the layout it is closest to.
 * The comparison is rrd_words_check_info(), the same the writer makes
 * before it touches a file, so "check" says what the writer would say.
 */
#include "commands.h"
#include "pvecg/rrd_file.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_words.h"
#include "pvecg/rrddata.h"

#include <rrd.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "pvecg check"

static const char usage_text[] =
    "usage: pvecg check FILE...\n"
    "\n"
    "Says for each RRD file which layout it has (pve-vm-9.0, pve-node-9.0,\n"
    "pve2-vm, pve2-node), or how it differs from the layout of its\n"
    "directory (or the closest layout).  Exit status 0 when every file has\n"
    "a layout, 1 otherwise.  See pvecg-check(1).\n";

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
static bool report_rrd(const char *path, const rrd_info_t *info) {
  const struct rrd_layout *match = matching_layout(info);
  const struct rrd_layout *dir = rrddata_path_layout(path);
  if (match != NULL && (dir == NULL || dir == match)) {
    printf("%s: %s\n", path, match->name);
    return true;
  }
  const struct rrd_layout *want = dir != NULL ? dir : closest_layout(info);
  char why[256];
  rrd_words_check_info(want, info, why, sizeof(why));
  printf("%s: differs from %s (%s): %s", path, want->name,
         dir != NULL ? "the layout of its directory" : "the closest layout",
         why);
  if (match != NULL)
    printf("; it is a %s file", match->name);
  printf("\n");
  return false;
}

static bool check_one(const char *path) {
  char why[256];
  int r = rrd_file_check(rrd_layouts[0], path, why, sizeof(why));
  if (r == -ENOENT) {
    printf("%s: no such file\n", path);
    return false;
  }
  if (r == -EIO) {
    printf("%s: not an RRD file (%s)\n", path, why);
    return false;
  }
  if (r != 0 && r != -EPROTO) {
    printf("%s: cannot be read (%s)\n", path, why);
    return false;
  }
  rrd_clear_error();
  rrd_info_t *info = rrd_info_r(path);
  if (info == NULL) {
    /* replaced or removed since the first look */
    printf("%s: cannot be read (librrd: %s)\n", path, rrd_get_error());
    return false;
  }
  bool ok = report_rrd(path, info);
  rrd_info_free(info);
  return ok;
}

int cmd_check(int argc, char **argv) {
  static const struct option options[] = {{"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    if (opt == 'h') {
      fputs(usage_text, stdout);
      return PVECG_EXIT_OK;
    }
    fputs(usage_text, stderr);
    return PVECG_EXIT_USAGE;
  }
  if (optind == argc) {
    fputs(usage_text, stderr);
    return PVECG_EXIT_USAGE;
  }
  bool all = true;
  for (int i = optind; i < argc; i++)
    all = check_one(argv[i]) && all;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror(CMD ": writing the output");
    return PVECG_EXIT_FAILURE;
  }
  return all ? PVECG_EXIT_OK : PVECG_EXIT_FAILURE;
}

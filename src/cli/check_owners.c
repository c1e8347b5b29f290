/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg check --owners (see check_owners.h): lists <DataDir>/pvecg-owners
 * one line per file; --give and --forget change it under its lock, and a
 * running pve_rrd takes the change within seconds.
 */
#include "check_owners.h"

#include "commands.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_owner_file.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CMD "pvecg check"

/* One line per file, the owner first (records come sorted); whether a
 * host is seen colliding. */
static bool print(const struct rrd_owner_record *r, size_t n,
                  const struct rrd_owner_record *only) {
  bool colliding = false, open = false;
  for (size_t i = 0; i < n; i++) {
    char label[PATH_MAX], since[40];
    bool owner = r[i].kind == RRD_OWNER_RECORD_OWNER;
    if (only != NULL && !rrd_owner_same_file(&r[i], only))
      continue;
    if (!open || !rrd_owner_same_file(&r[i], &r[i - 1])) {
      rrd_cluster_file_path(NULL, r[i].cluster, r[i].layout, r[i].name, label,
                            sizeof(label));
      printf("%s%s: owner %s", open ? "\n" : "", label,
             owner ? r[i].host : "unknown");
    }
    open = true;
    time_t t = (time_t)r[i].since;
    struct tm tm;
    if (!owner && gmtime_r(&t, &tm) != NULL &&
        strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S UTC", &tm) > 0)
      printf("; %s seen colliding since %s", r[i].host, since);
    colliding |= !owner;
  }
  if (open)
    putchar('\n');
  return colliding;
}

/* The owners file listed (or one file's line); an exit status. */
static int list(const char *data_dir, const struct rrd_owner_record *only) {
  struct rrd_owner_records f = {0};
  int r = rrd_owner_file_read(data_dir, &f);
  bool colliding = r == 0 && print(f.r, f.count, only);
  free(f.r);
  if (r == -ENOENT)
    printf("%s has no owners file (" RRD_OWNER_FILE_NAME "): pve_rrd has "
           "written no guest's file there yet\n",
           data_dir);
  else if (r == -EPROTO)
    fprintf(stderr,
            CMD ": %s/" RRD_OWNER_FILE_NAME ": not a version %d owners file "
                "(its first line is not \"" RRD_OWNER_FILE_NAME " %d\")\n",
            data_dir, RRD_OWNER_FILE_VERSION, RRD_OWNER_FILE_VERSION);
  else if (r < 0 || f.cut || f.bad_lines > 0)
    fprintf(stderr,
            CMD ": %s/" RRD_OWNER_FILE_NAME ": %s (%zu lines skipped)\n",
            data_dir,
            r < 0   ? strerror(-r)
            : f.cut ? "cut short"
                    : "damaged",
            f.bad_lines);
  bool bad = (r < 0 && r != -ENOENT) || f.cut || f.bad_lines > 0;
  return bad || (colliding && only == NULL) ? PVECG_EXIT_FAILURE
                                            : PVECG_EXIT_OK;
}

int check_owners_list(const char *data_dir) { return list(data_dir, NULL); }

/* FILE as LAYOUT/VMID, CLUSTER/LAYOUT/VMID or a path below data_dir. */
static bool unlabel(const char *data_dir, const char *file,
                    struct rrd_owner_record *q) {
  char copy[PATH_MAX], *name, *layout, *cluster = "";
  size_t dir_len = strlen(data_dir);
  if (strncmp(file, data_dir, dir_len) == 0 && file[dir_len] == '/')
    file += dir_len + 1;
  if (snprintf(copy, sizeof(copy), "%s", file) >= (int)sizeof(copy) ||
      (name = strrchr(copy, '/')) == NULL)
    return false;
  *name++ = '\0';
  if ((layout = strrchr(copy, '/')) != NULL) {
    *layout++ = '\0';
    cluster = copy;
  } else {
    layout = copy;
  }
  memset(q, 0, sizeof(*q));
  for (size_t i = 0; i < rrd_layouts_count; i++)
    if (rrd_layouts[i]->kind == RRD_LAYOUT_GUEST &&
        strcmp(rrd_layouts[i]->name, layout) == 0)
      q->layout = rrd_layouts[i];
  if (q->layout == NULL || rrd_file_name_problem(name) != NULL ||
      (cluster[0] && rrd_cluster_name_problem(cluster) != NULL))
    return false;
  memcpy(q->cluster, cluster, strlen(cluster) + 1); /* both checked to fit */
  memcpy(q->name, name, strlen(name) + 1);
  return true;
}

int check_owners_settle(const char *data_dir, const char *file,
                        const char *host) {
  struct rrd_owner_record q;
  char path[PATH_MAX];
  struct stat st;
  if (!unlabel(data_dir, file, &q)) {
    fprintf(stderr,
            CMD ": %s: not a guest's file of %s (LAYOUT/VMID or "
                "CLUSTER/LAYOUT/VMID, e.g. pve-vm-9.0/196)\n",
            file, data_dir);
    return PVECG_EXIT_USAGE;
  }
  if (host != NULL && (host[0] == '\0' || strlen(host) >= sizeof(q.host))) {
    fprintf(stderr, CMD ": \"%s\" is no host name\n", host);
    return PVECG_EXIT_USAGE;
  }
  if (host != NULL && (rrd_cluster_file_path(data_dir, q.cluster, q.layout,
                                             q.name, path, sizeof(path)) != 0 ||
                       stat(path, &st) != 0)) {
    fprintf(stderr, CMD ": %s/%s: no such file\n", data_dir, file);
    return PVECG_EXIT_FAILURE;
  }
  int r = rrd_owner_file_settle(data_dir, &q, host);
  if (r == -ENOENT)
    fprintf(stderr, CMD ": %s has no collision to forget\n", file);
  else if (r == -EPROTO)
    list(data_dir, &q); /* says what the file is not */
  else if (r < 0)
    fprintf(stderr, CMD ": %s/" RRD_OWNER_FILE_NAME ": %s\n", data_dir,
            strerror(-r));
  if (r < 0)
    return PVECG_EXIT_FAILURE;
  printf("saved; a running pve_rrd follows within seconds\n");
  return list(data_dir, &q);
}

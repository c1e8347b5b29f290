/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg check --owners (see check_owners.h): lists <DataDir>/pvecg-owners
 * one line per file; --give and --forget change it under its lock, and a
 * running pve_rrd takes the change within seconds.
 */
#include "check_owners.h"

#include "commands.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_owner.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CMD "pvecg check"

struct listing {
  const struct rrd_owner_record *only;
  const char *name; /* the table's name of the file whose line is open */
  bool colliding;
};

/* One line per file, the owner first (records come by file). */
static int print(const struct rrd_owner_record *r, void *ctx) {
  struct listing *l = ctx;
  const struct rrd_owner_record *q = l->only;
  char label[PATH_MAX], since[40];
  if (q != NULL && (r->layout != q->layout || strcmp(r->cluster, q->cluster) ||
                    strcmp(r->name, q->name)))
    return 0;
  if (r->name != l->name) {
    rrd_cluster_file_path(NULL, r->cluster, r->layout, r->name, label,
                          sizeof(label));
    printf("%s%s: owner %s", l->name ? "\n" : "", label,
           r->collision ? "unknown" : r->host);
  }
  l->name = r->name;
  time_t t = (time_t)r->since;
  struct tm tm;
  if (r->collision && gmtime_r(&t, &tm) != NULL &&
      strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S UTC", &tm) > 0)
    printf("; %s seen colliding since %s", r->host, since);
  l->colliding |= r->collision;
  return 0;
}

/* Reads the owners file: 0, -ENOENT, or an exit status (the problem printed).
 */
static int load(const char *data_dir, struct rrd_owner *o) {
  struct rrd_owner_read f;
  char buf[128];
  int r = rrd_owner_file_load(data_dir, o, 0, &f);
  const char *problem = rrd_owner_file_problem(r, &f, buf, sizeof(buf));
  if (problem[0])
    fprintf(stderr, CMD ": %s/" RRD_OWNER_FILE_NAME ": %s\n", data_dir,
            problem);
  return problem[0] ? PVECG_EXIT_FAILURE : r;
}

/* The owners' lines (or only one file's): whether a host is colliding.
 * The visit prints: the table is the command's own. */
static bool list(struct rrd_owner *o, const struct rrd_owner_record *only) {
  struct listing l = {.only = only};
  rrd_owner_each(o, print, &l);
  if (l.name != NULL)
    putchar('\n');
  return l.colliding;
}

static int list_all(const char *data_dir, struct rrd_owner *o) {
  int r = load(data_dir, o);
  if (r == -ENOENT)
    printf("%s has no owners file (" RRD_OWNER_FILE_NAME "): pve_rrd has "
           "written no guest's file there yet\n",
           data_dir);
  return list(o, NULL) || r > 0 ? PVECG_EXIT_FAILURE : PVECG_EXIT_OK;
}

/* FILE as LAYOUT/VMID, CLUSTER/LAYOUT/VMID or a path below data_dir. */
static bool unlabel(const char *data_dir, const char *file,
                    char part[3][PATH_MAX], struct rrd_owner_record *q) {
  int end = 0, n;
  size_t dir_len = strlen(data_dir);
  if (strncmp(file, data_dir, dir_len) == 0 && file[dir_len] == '/')
    file += dir_len + 1;
  if (strlen(file) >= PATH_MAX)
    return false;
  n = sscanf(file, "%[^/]/%[^/]%n/%[^/]%n", part[0], part[1], &end, part[2],
             &end);
  return file[end] == '\0' &&
         (n == 2
              ? rrd_owner_file_named(q, part[0], "", part[1])
              : n == 3 && rrd_owner_file_named(q, part[1], part[0], part[2]));
}

/* Under the file's lock: q's file given to q->host, or (NULL) its marks
 * forgotten, and saved: 0, -ENOENT (nothing to forget), an exit status
 * (the problem printed), or -errno. */
static int settle(const char *data_dir, struct rrd_owner *o,
                  const struct rrd_owner_record *q) {
  int fd = rrd_owner_file_lock(data_dir), r = fd < 0 ? fd : 0;
  if (r == 0 && (r = load(data_dir, o)) == -ENOENT)
    r = 0; /* none yet: nothing to forget */
  if (r == 0 && q->host != NULL)
    r = rrd_owner_put(o, q, 0);
  else if (r == 0 && rrd_owner_forget(o, q) == 0)
    r = -ENOENT;
  if (r == 0)
    r = rrd_owner_file_save(data_dir, o);
  if (fd >= 0)
    close(fd);
  return r;
}

int check_owners(const char *data_dir, const char *file, const char *host) {
  struct rrd_owner_record q;
  struct rrd_owner *o = NULL;
  char part[3][PATH_MAX], path[PATH_MAX];
  if (file != NULL && !unlabel(data_dir, file, part, &q)) {
    fprintf(stderr,
            CMD ": %s: not a guest's file of %s (LAYOUT/VMID or "
                "CLUSTER/LAYOUT/VMID, e.g. pve-vm-9.0/196)\n",
            file, data_dir);
    return PVECG_EXIT_USAGE;
  }
  if (host != NULL && !rrd_owner_host_fits(host)) {
    fprintf(stderr, CMD ": \"%s\" is no host name\n", host);
    return PVECG_EXIT_USAGE;
  }
  if (host != NULL && (rrd_cluster_file_path(data_dir, q.cluster, q.layout,
                                             q.name, path, sizeof(path)) != 0 ||
                       access(path, F_OK) != 0)) {
    fprintf(stderr, CMD ": %s/%s: no such file\n", data_dir, file);
    return PVECG_EXIT_FAILURE;
  }
  q.host = host;
  int r = rrd_owner_new(NULL, &o) != 0 ? -ENOMEM
          : file == NULL               ? list_all(data_dir, o)
                                       : settle(data_dir, o, &q);
  if (r == -ENOENT)
    fprintf(stderr, CMD ": %s has no collision to forget\n", file);
  else if (r < 0)
    fprintf(stderr, CMD ": %s/" RRD_OWNER_FILE_NAME ": %s\n", data_dir,
            strerror(-r));
  if (r == 0 && file != NULL) {
    printf("saved; a running pve_rrd follows within seconds\n");
    list(o, &q);
  }
  rrd_owner_free(o);
  return r < 0 ? PVECG_EXIT_FAILURE : r;
}

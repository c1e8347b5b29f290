/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg check --owners (see check_owners.h): reads <DataDir>/pvecg-owners
 * as pve_rrd saves it, one line per file; --give and --forget go through
 * rrd_owner_disk_settle, which never races a running pve_rrd: it applies
 * the change itself only while it holds the lock pve_rrd holds as long as
 * it runs, and otherwise leaves a request that pve_rrd applies.
 */
#include "check_owners.h"

#include "commands.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_owner_disk.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CMD "pvecg check"
/* How long a running writer gets to take a request (it looks every 2 s). */
#define SETTLE_WAIT 10.0

struct listing {
  struct rrd_owner_record last;        /* the file being printed */
  bool open;                           /* a line for it is begun */
  bool colliding;                      /* a host is seen colliding */
  const struct rrd_owner_record *only; /* NULL, or the one file to print */
  size_t files;
};

static bool same_file(const struct rrd_owner_record *a,
                      const struct rrd_owner_record *b) {
  return a->layout == b->layout && strcmp(a->cluster, b->cluster) == 0 &&
         strcmp(a->name, b->name) == 0;
}

static void utc(long long t, char *buf, size_t size) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (gmtime_r(&tt, &tm) == NULL ||
      strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
    snprintf(buf, size, "%lld", t);
}

/* Records come sorted by file, the owner first: one line per file. */
static int print_record(const struct rrd_owner_record *r, void *ctx) {
  struct listing *l = ctx;
  if (l->only != NULL && !same_file(r, l->only))
    return 0;
  char label[PATH_MAX], since[40];
  bool same = l->open && same_file(r, &l->last);
  if (!same) {
    if (l->open)
      putchar('\n');
    rrd_owner_file_label(r, label, sizeof(label));
    if (r->kind == RRD_OWNER_RECORD_OWNER)
      printf("%s: owner %s", label, r->host);
    else
      printf("%s: owner unknown", label);
    l->files++;
  }
  if (r->kind == RRD_OWNER_RECORD_COLLISION) {
    utc(r->since, since, sizeof(since));
    printf("; %s seen colliding since %s", r->host, since);
    l->colliding = true;
  }
  l->last = *r;
  l->open = true;
  return 0;
}

/* Prints the owners file (or one file's line); returns the read's
 * result. */
static int print_owners(const char *data_dir, struct listing *l) {
  struct rrd_owner_file_problems p;
  int r = rrd_owner_disk_read(data_dir, print_record, l, &p);
  if (l->open)
    putchar('\n');
  if (r == -ENOENT)
    printf("%s has no owners file (" RRD_OWNER_FILE_NAME "): pve_rrd has "
           "written no guest's file there yet\n",
           data_dir);
  else if (r < 0 || p.first[0] != '\0')
    fprintf(stderr, CMD ": %s/" RRD_OWNER_FILE_NAME ": %s\n", data_dir,
            p.first[0] ? p.first : strerror(-r));
  return r == -ENOENT ? 0 : r < 0 ? r : p.first[0] != '\0' ? -EPROTO : 0;
}

int check_owners_list(const char *data_dir) {
  struct listing l = {0};
  int r = print_owners(data_dir, &l);
  return r < 0 || l.colliding ? PVECG_EXIT_FAILURE : PVECG_EXIT_OK;
}

/* The guest's file exists (a file may be given to a host only then). */
static bool rrd_exists(const char *data_dir, const struct rrd_owner_record *q) {
  char path[PATH_MAX];
  struct stat st;
  return rrd_cluster_file_path(data_dir, q->cluster, q->layout, q->name, path,
                               sizeof(path)) == 0 &&
         stat(path, &st) == 0;
}

int check_owners_settle(const char *data_dir, const char *file,
                        const char *host) {
  struct rrd_owner_record q;
  if (rrd_owner_file_unlabel(data_dir, file, &q) != 0) {
    fprintf(stderr,
            CMD ": %s: not a guest's file of %s (LAYOUT/VMID or "
                "CLUSTER/LAYOUT/VMID, e.g. pve-vm-9.0/196)\n",
            file, data_dir);
    return PVECG_EXIT_USAGE;
  }
  q.kind = host != NULL ? RRD_OWNER_RECORD_GIVE : RRD_OWNER_RECORD_FORGET;
  if (host != NULL &&
      (host[0] == '\0' ||
       snprintf(q.host, sizeof(q.host), "%s", host) >= (int)sizeof(q.host))) {
    fprintf(stderr, CMD ": \"%s\" is no host name\n", host);
    return PVECG_EXIT_USAGE;
  }
  if (host != NULL && !rrd_exists(data_dir, &q)) {
    fprintf(stderr, CMD ": %s/%s: no such file\n", data_dir, file);
    return PVECG_EXIT_FAILURE;
  }
  char err[PATH_MAX + 256] = "";
  int r = rrd_owner_disk_settle(data_dir, &q, SETTLE_WAIT, err, sizeof(err));
  if (r == -ENOENT) {
    fprintf(stderr, CMD ": %s has no collision to forget\n", file);
    return PVECG_EXIT_FAILURE;
  }
  if (r < 0) {
    fprintf(stderr, CMD ": %s\n", err[0] ? err : strerror(-r));
    return PVECG_EXIT_FAILURE;
  }
  printf("%s\n", r == 1 ? "applied by the running pve_rrd"
                        : "applied to the owners file (no pve_rrd runs)");
  struct listing l = {.only = &q};
  return print_owners(data_dir, &l) < 0 ? PVECG_EXIT_FAILURE : PVECG_EXIT_OK;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_rrd's owners file, <DataDir>/pvecg-owners (rrd/owner/rrd_owner.h says
 * why): "pvecg-owners 2", then one record a line, "owner pve-vm-9.0 . 196 10
 * node a" or "collision pve-vm-9.0 . 196 1764934800 nodeb" (kind, layout,
 * cluster or "." for the data directory's own, name, interval s or seen
 * colliding since s, then the host: last, so that it may hold spaces),
 * then "end 2" counting them: without it the file was cut short.  Its
 * writers (pve_rrd, `pvecg check --owners`) hold an flock on
 * <DataDir>/pvecg-owners.lock and replace it whole (write, fsync, rename).
 * It is read into, and written from, the owners' table (rrd/owner/rrd_owner.c).
 */
#ifndef PVECG_RRD_OWNER_FILE_H
#define PVECG_RRD_OWNER_FILE_H

#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#define RRD_OWNER_FILE_NAME "pvecg-owners"
#define RRD_OWNER_FILE_VERSION 2
#define RRD_OWNER_HOST_SIZE 128 /* collectd's DATA_MAX_NAME_LEN */

struct rrd_owner; /* the owners of guests' files, rrd/owner/rrd_owner.c */

/* wall: the clock of the marks' times (NULL: time()).  0 or -ENOMEM. */
int rrd_owner_new(time_t (*wall)(void), struct rrd_owner **ret);
void rrd_owner_free(struct rrd_owner *owner);

struct rrd_owner_record { /* a line of the file, or a file it names */
  bool collision;         /* the host is seen colliding; else the owner */
  const struct rrd_layout *layout;
  const char *cluster; /* "": the data directory's own */
  const char *name, *host;
  double interval; /* owner: s between its rows */
  long long since; /* collision: s since the epoch */
};

/* Every record, by file (cluster, layout, name), its owner first, then
 * its marks as they came: visit(r, ctx) until it returns non-zero, returned.
 * Under the owners' mutex: visit does no I/O but on a table of its own. */
int rrd_owner_each(struct rrd_owner *owner,
                   int (*visit)(const struct rrd_owner_record *, void *),
                   void *ctx);

/* r names the guest's file of layout (its name), cluster and name (kept
 * as pointers): false when they name none. */
bool rrd_owner_file_named(struct rrd_owner_record *r, const char *layout,
                          const char *cluster, const char *name);
/* Whether host can end a line: not empty, no control character, shorter
 * than RRD_OWNER_HOST_SIZE. */
bool rrd_owner_host_fits(const char *host);
/* A line of the file, or the operator's edit, taken at now: r->host owns
 * r's file, its mark gone, with r->interval if any, else the owner's; or
 * (r->collision) is seen colliding over it since r->since, never its
 * owner.  0 or -ENOMEM. */
int rrd_owner_put(struct rrd_owner *owner, const struct rrd_owner_record *r,
                  double now);
/* The file's marks go: how many. */
size_t rrd_owner_forget(struct rrd_owner *owner,
                        const struct rrd_owner_record *file);

struct rrd_owner_read {        /* what reading the file found */
  size_t owners, marks, moved; /* moved: owners in_cluster() sent away */
  size_t bad_lines;            /* lines skipped: not a record */
  bool cut;                    /* no end line, or one counting others */
};

/* Reads text into the (empty) owner, its owners reporting at now, but owners
 * whose host in_cluster (NULL: all) says goes elsewhere now; a host seen
 * colliding is never an owner.  0, -EPROTO (not this version's header) or
 * -ENOMEM. */
int rrd_owner_file_parse(const char *text, size_t len, struct rrd_owner *owner,
                         bool (*in_cluster)(const char *, const char *),
                         double now, struct rrd_owner_read *ret);
/* The file's text (to free), formatted under the owners' mutex. */
int rrd_owner_file_text(struct rrd_owner *owner, char **ret, size_t *len);

/* Waits for the file's lock: an fd to close, or -errno. */
int rrd_owner_file_lock(const char *data_dir);
/* Whether the file's inode, size or mtime differ from *last (all zero
 * when there is none), which takes the new ones. */
bool rrd_owner_file_changed(const char *data_dir, struct stat *last);
/* As parse, from the file: also -ENOENT, -EPROTO (not a file of ours). */
int rrd_owner_file_load(const char *data_dir, struct rrd_owner *owner,
                        bool (*in_cluster)(const char *, const char *),
                        double now, struct rrd_owner_read *ret);
/* Saves the owners: 0 or -errno. */
int rrd_owner_file_save(const char *data_dir, struct rrd_owner *owner);
/* What is wrong with the file load read (its r, *t), in buf (128 bytes
 * are enough) or "" for nothing or no file. */
const char *rrd_owner_file_problem(int r, const struct rrd_owner_read *t,
                                   char *buf, size_t size);

#endif

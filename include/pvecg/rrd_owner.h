/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (docs/central-collector.md says
 * why): the first host to report a guest owns its file, another host's
 * rows are refused while the owner reports.  After the owner's window of
 * quiet (RRD_OWNER_WINDOW_INTERVALS intervals: rows come at most two
 * apart, a lost packet adds one) the next host takes it over: MIGRATED.
 * Both reporting longer than the window: COLLISION; in the data
 * directory's own files the other host is marked as seen colliding, never
 * the owner until `pvecg check --owners` says so; in a named cluster's it
 * is a long live migration.  Logged at most hourly per pair.  One mutex,
 * never held across I/O or a log call.
 *
 * Kept in <DataDir>/pvecg-owners: "pvecg-owners 2", then one record a
 * line, "owner pve-vm-9.0 . 196 10 node a" or "collision pve-vm-9.0 . 196
 * 1764934800 nodeb" (kind, layout, cluster or "." for the data
 * directory's own, name, interval s or seen colliding since s, then the
 * host: last, so that it may hold spaces), then "end 2" counting them:
 * without it the file was cut short.  Its writers (pve_rrd, `pvecg check
 * --owners`) hold an flock on <DataDir>/pvecg-owners.lock and replace it
 * whole (write, fsync, rename).
 */
#ifndef PVECG_RRD_OWNER_H
#define PVECG_RRD_OWNER_H

#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define RRD_OWNER_FILE_NAME "pvecg-owners"
#define RRD_OWNER_FILE_VERSION 2
#define RRD_OWNER_HOST_SIZE 128 /* collectd's DATA_MAX_NAME_LEN */
#define RRD_OWNER_WINDOW_INTERVALS 5
#define RRD_OWNER_DEFAULT_INTERVAL 10.0 /* collectd's default, s */
#define RRD_OWNER_EXPIRY 30.0      /* s unreported before forgotten, at least */
#define RRD_OWNER_LOG_AGAIN 3600.0 /* s between lines of one pair */

struct rrd_owner;

/* wall: the clock of the marks' times (NULL: time()).  0 or -ENOMEM. */
int rrd_owner_new(time_t (*wall)(void), struct rrd_owner **ret);
void rrd_owner_free(struct rrd_owner *owner);

enum rrd_owner_news_kind {
  RRD_OWNER_QUIET,
  RRD_OWNER_MIGRATED,
  RRD_OWNER_COLLISION
};

struct rrd_owner_news { /* what to log, once */
  enum rrd_owner_news_kind kind;
  char host[RRD_OWNER_HOST_SIZE];  /* the row's host */
  char other[RRD_OWNER_HOST_SIZE]; /* the owner (before), "" unknown */
  long long since;                 /* COLLISION: since (s, epoch) */
  bool marked;                     /* COLLISION: host is marked */
  double window;                   /* COLLISION: the owner's window, s */
};

/* Whether host's row for the file of (layout, cluster, name) is written;
 * interval: s between its rows (0: unknown); now: s, never stepping. */
bool rrd_owner_admit(struct rrd_owner *owner, const struct rrd_layout *layout,
                     const char *cluster, const char *name, const char *host,
                     double interval, double now, struct rrd_owner_news *news);

struct rrd_owner_counts {
  unsigned long long refused, changes; /* changes: of an owner or a mark */
  size_t count;                        /* guests remembered */
};
struct rrd_owner_counts rrd_owner_counts(struct rrd_owner *owner);

/* Keeps the owners in data_dir's file, read back (reporting at now).  0 or
 * -ENOMEM (then in memory only). */
int rrd_owner_keep(struct rrd_owner *owner, const char *data_dir,
                   rrd_sink_log_fn *log, void *log_ctx, double now);
/* After admit: at most every 2 s, takes an edit of the file and saves what
 * changed; marked guests whose file has gone are forgotten. */
void rrd_owner_tick(struct rrd_owner *owner, double now);
/* Once the write threads have stopped: saves, and keeps no more. */
void rrd_owner_unkeep(struct rrd_owner *owner);

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

struct rrd_owner_read { /* what reading the file found */
  size_t owners, marks;
  size_t bad_lines; /* lines skipped: not a record */
  bool cut;         /* no end line, or one counting others */
};

/* Reads text into the (empty) owner, its owners reporting at now; a host
 * seen colliding is never an owner.  0, -EPROTO (not this version's
 * header) or -ENOMEM. */
int rrd_owner_file_parse(const char *text, size_t len, struct rrd_owner *owner,
                         double now, struct rrd_owner_read *ret);
/* The file's text (to free), formatted under the owners' mutex. */
int rrd_owner_file_text(struct rrd_owner *owner, char **ret, size_t *len);
/* As parse, from data_dir's file: also -ENOENT, -EPROTO (not ours). */
int rrd_owner_file_load(const char *data_dir, struct rrd_owner *owner,
                        double now, struct rrd_owner_read *ret);
/* Under the file's lock (an fd to close, or -errno), then saved: 0 or
 * -errno. */
int rrd_owner_file_lock(const char *data_dir);
int rrd_owner_file_save(const char *data_dir, struct rrd_owner *owner);
/* What is wrong with the file load read (its r, *t), in buf (128 bytes
 * are enough) or "" for nothing or no file. */
const char *rrd_owner_file_problem(int r, const struct rrd_owner_read *t,
                                   char *buf, size_t size);

#endif

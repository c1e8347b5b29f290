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
 * is a long live migration.  Logged at most hourly per pair, kept in
 * <DataDir>/pvecg-owners.  One mutex, never held across I/O or a log call.
 */
#ifndef PVECG_RRD_OWNER_H
#define PVECG_RRD_OWNER_H

#include "pvecg/rrd_owner_file.h"
#include "pvecg/rrd_sink.h"

#define RRD_OWNER_WINDOW_INTERVALS 5
#define RRD_OWNER_DEFAULT_INTERVAL 10.0 /* collectd's default, s */
#define RRD_OWNER_EXPIRY 30.0      /* s unreported before forgotten, at least */
#define RRD_OWNER_LOG_AGAIN 3600.0 /* s between lines of one pair */

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

/* Keeps the owners in data_dir's file: reads them back (now as in admit),
 * but those whose host in_cluster() says goes elsewhere now.  0 or
 * -ENOMEM (then in memory only). */
int rrd_owner_keep(struct rrd_owner *owner, const char *data_dir,
                   rrd_sink_log_fn *log, void *log_ctx,
                   bool (*in_cluster)(const char *, const char *), double now);
/* After admit: at most every 2 s, takes an edit of the file and saves what
 * changed; marked guests whose file has gone are forgotten. */
void rrd_owner_tick(struct rrd_owner *owner, double now);
/* Once the write threads have stopped: saves, and keeps no more. */
void rrd_owner_unkeep(struct rrd_owner *owner);

#endif

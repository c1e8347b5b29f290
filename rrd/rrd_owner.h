/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (rrd_owner.c): the first host to
 * report a guest owns its file; another host's rows are refused while the
 * owner reports it.  The window is RRD_OWNER_WINDOW_INTERVALS of the
 * owner's interval (its rows come at most two intervals apart, a lost
 * packet adds one).  MIGRATED: another host reports after the owner was
 * quiet for longer than its window (nodes report only the guests whose
 * configuration they hold: a handover overlaps a few seconds).  COLLISION:
 * both report for longer than the window; in the data directory's own
 * files the other host is marked as seen colliding and never gets the file
 * until the operator says so (`pvecg check --owners`); in a named cluster's
 * directory it is a long live migration, not marked.  Each logged at most
 * hourly per pair.  Kept in <DataDir>/pvecg-owners (rrd_owner_sync.c); a
 * restored owner counts as reporting at start.  docs/architecture.md has more.
 * Thread-safe: one mutex, never held across I/O or a log call.
 */
#ifndef PVECG_RRD_OWNER_H
#define PVECG_RRD_OWNER_H

#include "pvecg/rrd_owner_file.h"
#include "pvecg/rrd_sink.h"

#include <time.h>

#define RRD_OWNER_WINDOW_INTERVALS 5
#define RRD_OWNER_DEFAULT_INTERVAL 10.0 /* collectd's default, s */
#define RRD_OWNER_EXPIRY 86400.0        /* s unreported before forgotten */
#define RRD_OWNER_LOG_AGAIN 3600.0      /* s between lines of one pair */

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

struct rrd_owner;

int rrd_owner_new(struct rrd_owner **ret); /* 0 or -ENOMEM */
void rrd_owner_free(struct rrd_owner *owner);
/* The clock of the marks' times (default time()); tests set their own. */
void rrd_owner_set_wall_clock(struct rrd_owner *owner, time_t (*wall)(void));

/* Whether host's row for the file of (layout, cluster, name) is written;
 * interval: s between its rows (0: unknown); now: s, never stepping. */
bool rrd_owner_admit(struct rrd_owner *owner, const struct rrd_layout *layout,
                     const char *cluster, const char *name, const char *host,
                     double interval, double now, struct rrd_owner_news *news);

unsigned long long rrd_owner_refused(struct rrd_owner *owner);
size_t rrd_owner_count(struct rrd_owner *owner); /* guests remembered */
/* Moves whenever an owner or a mark changes. */
unsigned long long rrd_owner_changes(struct rrd_owner *owner);

/* Every mark (marks_only) or every owner and mark as records, in a new
 * array (*ret, to free). */
int rrd_owner_snapshot(struct rrd_owner *owner, bool marks_only,
                       struct rrd_owner_record **ret, size_t *count);

/* Where the owners file's lines go on: after this guest's file. */
struct rrd_owner_cursor {
  const struct rrd_layout *layout; /* NULL: from the first */
  char cluster[RRD_STORE_NAME_MAX + 1];
  char name[RRD_STORE_NAME_MAX + 1];
};
/* The lines of whole guests' files after c, in the file's order, into buf
 * while they fit (size: at least RRD_OWNER_LINES_MIN), counted in
 * *records; moves c; returns their length, 0 at the end, or -ENOMEM.  A
 * save takes them in rounds, the lock held for each round's formatting. */
#define RRD_OWNER_LINES_MIN (65 * RRD_OWNER_LINE_SIZE) /* 64 others, owner */
long rrd_owner_lines(struct rrd_owner *owner, struct rrd_owner_cursor *c,
                     char *buf, size_t size, size_t *records);

#define RRD_OWNER_GIVEN 1     /* replace: the owner is another one now */
#define RRD_OWNER_FORGOTTEN 2 /* replace: a mark went */
/* The records of one file (n of them; with n 0, r only names it) replace
 * what is known of it: its owner (reporting now unless unchanged; none when
 * also marked) and its marks.  Returns what changed, or -ENOMEM. */
int rrd_owner_replace(struct rrd_owner *owner, const struct rrd_owner_record *r,
                      size_t n, double now);

/* Forgets the file if nobody reported it for quiet s (it has gone). */
bool rrd_owner_drop(struct rrd_owner *owner, const struct rrd_layout *layout,
                    const char *cluster, const char *name, double now,
                    double quiet);

/* ---- kept on disk (rrd_owner_sync.c) ----------------------------------- */

struct rrd_owner_sync;

/* Reads the owners of data_dir back (now as in admit).  An owner whose
 * host in_cluster() says the configuration sends elsewhere is left out.
 * Returns 0 or -ENOMEM. */
int rrd_owner_sync_start(const char *data_dir, struct rrd_owner *owner,
                         rrd_sink_log_fn *log, void *log_ctx,
                         bool (*in_cluster)(const char *, const char *),
                         double now, struct rrd_owner_sync **ret);
/* After admit, on a write thread: at most every few seconds, takes the
 * operator's edit of the file and saves what changed. */
void rrd_owner_sync_tick(struct rrd_owner_sync *sync, double now);
void rrd_owner_sync_stop(struct rrd_owner_sync *sync); /* saves, frees */

#endif

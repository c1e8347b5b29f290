/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (rrd_owner.c).
 *
 * A guest's file is named by its VMID alone, and VMIDs are unique inside
 * a Proxmox VE cluster only: two standalone hosts both number their guests
 * from 100, and so do two clusters.  Rows of two guests with one VMID must
 * never be written into one file.  So the first host that reports a guest
 * owns its file, and another host's rows are refused while the owner goes
 * on reporting it.  A guest that migrates inside a cluster is one guest:
 * its old node stops reporting it, the new one starts.  Time tells the
 * cases apart, on a clock that never steps:
 *
 * - The window is RRD_OWNER_WINDOW_INTERVALS of the owner's interval.
 *   A host's rows of one guest arrive at most two intervals apart (the
 *   network plugin's FlushInterval at the interval, docs/deployment.md),
 *   a lost UDP packet adds one: five leave room, and a migrated guest
 *   waits only 50 s at collectd's default of 10 s.
 * - MIGRATED: a row of another host after the owner sent none for longer
 *   than its window: the file passes to it, logged once.
 * - COLLISION: another host and the owner both report the guest for longer
 *   than the window (from the other's first row to the owner's latest).
 *   Its rows are refused from the first; only the mark and the log line
 *   wait for the window, since during a live migration both nodes report
 *   the guest for a few seconds.  In the data directory's own files the
 *   other host is then marked as seen colliding: it never gets the file
 *   until the operator gives it or forgets the collision (`pvecg check
 *   --owners`).  In a named cluster's directory (pve_rrd's <Cluster>
 *   blocks: one cluster, unique VMIDs) it is a long live migration: not
 *   marked, and the file passes on once the owner stops.  Either is
 *   logged at most once an hour per pair of hosts.
 *
 * Owners and marks are kept in <DataDir>/pvecg-owners (rrd_owner_sync.c).
 * A restored owner counts as heard at start.  A guest nobody reported for
 * RRD_OWNER_EXPIRY is forgotten unless a host is marked for it, so memory
 * holds the guests of the last day and the disputed ones.
 *
 * Thread-safe: one mutex, held for one lookup and a few compares per row,
 * never across I/O or a log call.
 */
#ifndef PVECG_RRD_OWNER_H
#define PVECG_RRD_OWNER_H

#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_owner_file.h"
#include "pvecg/rrd_sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define RRD_OWNER_WINDOW_INTERVALS 5
#define RRD_OWNER_DEFAULT_INTERVAL 10.0 /* collectd's default, s */
#define RRD_OWNER_EXPIRY 86400.0        /* s unreported before forgotten */
#define RRD_OWNER_LOG_AGAIN 3600.0      /* s between lines of one pair */

enum rrd_owner_news_kind {
  RRD_OWNER_QUIET,     /* nothing to log */
  RRD_OWNER_MIGRATED,  /* the file passed to host from other */
  RRD_OWNER_COLLISION, /* host reports a guest other owns */
};

struct rrd_owner_news {
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

/*
 * Whether the row host sends for the file of (layout, cluster, name) is
 * written; news says what to log.  interval: s between host's rows (0:
 * the known one is kept).  now: s on a clock that never steps.  Without
 * memory for the guest the row is refused: nothing may blend two guests.
 */
bool rrd_owner_admit(struct rrd_owner *owner, const struct rrd_layout *layout,
                     const char *cluster, const char *name, const char *host,
                     double interval, double now, struct rrd_owner_news *news);

unsigned long long rrd_owner_refused(struct rrd_owner *owner);
size_t rrd_owner_count(struct rrd_owner *owner); /* guests remembered */
/* Moves whenever an owner or a mark changes. */
unsigned long long rrd_owner_changes(struct rrd_owner *owner);

/* Every owner and mark as records, in a new array (*ret, to free). */
int rrd_owner_snapshot(struct rrd_owner *owner, struct rrd_owner_record **ret,
                       size_t *count);

/* What replace changed. */
#define RRD_OWNER_GIVEN 1     /* the owner is another host now */
#define RRD_OWNER_FORGOTTEN 2 /* a mark went */

/*
 * The records of one file (n > 0, as the owners file has them) replace
 * what is known of it: its owner (heard now, unless unchanged; none when
 * it is also marked) and its marks.  Returns what changed, or -ENOMEM.
 */
int rrd_owner_replace(struct rrd_owner *owner,
                      const struct rrd_owner_record *records, size_t n,
                      double now);

/* Forgets the file if nobody reported it for quiet s (it has gone). */
bool rrd_owner_drop(struct rrd_owner *owner, const struct rrd_layout *layout,
                    const char *cluster, const char *name, double now,
                    double quiet);

/* ---- kept on disk (rrd_owner_sync.c) ----------------------------------- */

struct rrd_owner_sync_options {
  const char *data_dir; /* absolute, on this machine */
  struct rrd_owner *owners;
  rrd_sink_log_fn *log;
  void *log_ctx;
  /* see rrd_sink_options; NULL: every host still belongs */
  bool (*host_in_cluster)(const char *cluster, const char *host);
};

struct rrd_owner_sync;

/* Reads the owners back (now as in admit).  0 or -ENOMEM. */
int rrd_owner_sync_start(const struct rrd_owner_sync_options *options,
                         double now, struct rrd_owner_sync **ret);

/* On a write thread after admit: at most every few seconds, takes an
 * operator's edit of the file and saves what changed. */
void rrd_owner_sync_tick(struct rrd_owner_sync *sync, double now);

/* Saves what changed, frees. */
void rrd_owner_sync_stop(struct rrd_owner_sync *sync);

#endif

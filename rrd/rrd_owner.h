/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (rrd_owner.c).
 *
 * A guest's file is named by its VMID alone, and VMIDs are unique inside
 * a Proxmox VE cluster only: two standalone hosts both number their guests
 * from 100, and so do two clusters.  Rows of two guests with one VMID,
 * sent to one collector, must never be written into one file.  So the
 * first host that reports a guest owns its file, and the rows another host
 * sends for it are refused while the owner goes on reporting it.
 *
 * A guest that moves inside a cluster (migration) is one guest: its old
 * node stops reporting it, the new one starts, and the file carries on.
 * The two cases are told apart by time, on a clock that never steps:
 *
 * - The window is RRD_OWNER_WINDOW_INTERVALS of the owner's interval (the
 *   interval of its latest row, which travels with the row through the
 *   network plugin).  With the network plugin's FlushInterval at the
 *   interval, as docs/deployment.md has it, a host's rows of one guest
 *   arrive at most two intervals apart; a lost UDP packet adds one.  Five
 *   leave room for that, so that a collision does not hand the file over
 *   whenever a packet of the owner goes missing, while a migrated guest's
 *   new rows wait only five intervals (50 s at collectd's default of 10 s).
 * - MIGRATED: a row from another host after the owner has sent none for
 *   longer than its window.  The file passes to the new host, said once.
 * - COLLISION: another host and the owner both go on reporting the guest
 *   for longer than the owner's window (from the other's first row to the
 *   owner's latest).  The other's rows are refused from the first (the
 *   file stays the owner's); once the overlap passes the window the other
 *   host is marked as seen colliding (below) and the collision said.  The
 *   mark and the line wait for the window because during a live
 *   migration both nodes of a cluster report the guest for a while (the
 *   target's process exists before the source's ends): a migration that
 *   ends within the window is no collision.
 *
 * A host seen colliding in the data directory's own files, where nothing
 * says which hosts are one cluster, is remembered (marked, with the time
 * it began): it never gets the file, not even once the owner goes quiet,
 * until the operator hands the file to it or forgets the collision
 * (`pvecg check --owners`, rrd_owner_settle).  Its rows are refused and
 * counted, and the collision is said again at most once an hour per pair
 * of hosts while they come.  A migration there goes only to a host never
 * seen colliding.  In a named cluster's directory (pve_rrd's <Cluster>
 * blocks: the operator said which hosts are one cluster, whose VMIDs are
 * unique) an overlap longer than the window is a long live migration: said
 * the same way, not marked, and the file passes on once the owner stops.
 *
 * The owners and the marks survive restarts: rrd_owner_keeper.c saves
 * them (rrd_owner_snapshot) whenever rrd_owner_changes() moves, and they
 * are read back at start (rrd_owner_restore).  A restored owner counts as
 * heard at start: if it never reports again, a host never seen colliding
 * takes the file after its window, as in a migration.  A guest without a
 * restored owner (a damaged file) is owned by the first host to report it
 * that is not marked.  A guest nobody has reported for RRD_OWNER_EXPIRY
 * seconds is forgotten unless a host is marked for it (without a mark,
 * forgetting it changes nothing: the next host to report it would have
 * taken it over anyway), which bounds the memory by the guests of the last day
 * and the disputed ones; a disputed guest is forgotten when its file goes
 * (rrd_owner_drop).
 *
 * Thread-safe: one mutex, held for one table lookup and a few compares per
 * row, never across I/O or a log call.
 */
#ifndef PVECG_RRD_OWNER_H
#define PVECG_RRD_OWNER_H

#include "rrd_owner_table.h"

#include "pvecg/rrd_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define RRD_OWNER_WINDOW_INTERVALS 5
/* The interval of a row that says none: collectd's default. */
#define RRD_OWNER_DEFAULT_INTERVAL 10.0
/* A guest nobody reported for this long (s) is forgotten. */
#define RRD_OWNER_EXPIRY 86400.0

/* Collisions of one pair of hosts are said again at most this often, s. */
#define RRD_OWNER_SAY_AGAIN 3600.0

enum rrd_owner_news_kind {
  RRD_OWNER_QUIET,     /* nothing to say */
  RRD_OWNER_MIGRATED,  /* the file passed to host from other */
  RRD_OWNER_COLLISION, /* host, seen colliding, reports a guest */
};

struct rrd_owner_news {
  enum rrd_owner_news_kind kind;
  char host[OWNER_HOST_SIZE];  /* the row's host */
  char other[OWNER_HOST_SIZE]; /* the owner before (MIGRATED), the owner
                                  ("" when unknown) */
  long long since;             /* COLLISION: host seen colliding since */
  bool marked;   /* COLLISION: host is marked (not in a named cluster) */
  double window; /* COLLISION: the owner's window, s */
};

struct rrd_owner;

/* Returns 0 or -ENOMEM. */
int rrd_owner_new(struct rrd_owner **ret);
void rrd_owner_free(struct rrd_owner *owner);

/*
 * Whether the row that host sends for the file of (layout, cluster, name)
 * is written; news says what is to be logged (once).  interval is the
 * seconds between host's rows (0: unknown: the host's known one is kept,
 * RRD_OWNER_DEFAULT_INTERVAL for a host not heard yet), now the
 * time of arrival in seconds of a clock that never steps.  cluster (NULL:
 * "") and name must fit RRD_STORE_NAME_MAX.  Without memory for the guest's
 * record the row is refused: nothing is written that could blend two guests.
 */
bool rrd_owner_admit(struct rrd_owner *owner, const struct rrd_layout *layout,
                     const char *cluster, const char *name, const char *host,
                     double interval, double now, struct rrd_owner_news *news);

/* Rows refused so far. */
unsigned long long rrd_owner_refused(struct rrd_owner *owner);

/* Guests remembered now. */
size_t rrd_owner_count(struct rrd_owner *owner);

/* The clock of the marks' times (default time()); tests set their own. */
void rrd_owner_set_wall_clock(struct rrd_owner *owner, time_t (*wall)(void));

/* ---- to and from records (rrd_owner_state.c) --------------------------- */

/* Moves whenever something worth saving changed. */
unsigned long long rrd_owner_changes(struct rrd_owner *owner);

/*
 * Every owner and mark as records (OWNER, COLLISION) sorted by cluster,
 * layout and name, in a new array (*ret, to free), and the changes counted
 * when it was taken.  Returns 0 or -ENOMEM.
 */
int rrd_owner_snapshot(struct rrd_owner *owner, struct rrd_owner_record **ret,
                       size_t *count, unsigned long long *changes);

/*
 * Takes back one record of a saved file at start (now as in admit).  An
 * owner that is also marked is no owner: a file is never handed to a host
 * seen colliding, whatever the file says.  Returns 0, -EINVAL for a
 * request record, or -ENOMEM.
 */
int rrd_owner_restore(struct rrd_owner *owner,
                      const struct rrd_owner_record *record, double now);

/*
 * The operator's request: GIVE makes host the owner (and forgets that it
 * was seen colliding), FORGET forgets every collision of the file.
 * Returns 0, -ENOENT (FORGET of a file not known), -EINVAL or -ENOMEM.
 */
int rrd_owner_settle(struct rrd_owner *owner,
                     const struct rrd_owner_record *request, double now);

/* Forgets the file of (layout, cluster, name) if nobody has reported it
 * for quiet seconds (its file has gone).  Returns whether it did. */
bool rrd_owner_drop(struct rrd_owner *owner, const struct rrd_layout *layout,
                    const char *cluster, const char *name, double now,
                    double quiet);

#endif

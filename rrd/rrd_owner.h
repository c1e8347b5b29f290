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
 *   file stays the owner's); the collision is said once per guest and pair
 *   of hosts.  The line waits for the window because during a live
 *   migration both nodes of a cluster report the guest for a while (the
 *   target's process exists before the source's ends): a migration that
 *   ends within the window is no collision.
 *
 * Nothing survives a restart: afterwards the first host to report a guest
 * owns it.  A guest nobody has reported for RRD_OWNER_EXPIRY seconds is
 * forgotten the same way, which bounds the memory by the guests of the
 * last day.
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

#define RRD_OWNER_WINDOW_INTERVALS 5
/* The interval of a row that says none: collectd's default. */
#define RRD_OWNER_DEFAULT_INTERVAL 10.0
/* A guest nobody reported for this long (s) is forgotten. */
#define RRD_OWNER_EXPIRY 86400.0

enum rrd_owner_news_kind {
  RRD_OWNER_QUIET,     /* nothing to say */
  RRD_OWNER_MIGRATED,  /* the file passed to host from other */
  RRD_OWNER_COLLISION, /* host reports a guest other owns */
};

struct rrd_owner_news {
  enum rrd_owner_news_kind kind;
  char host[OWNER_HOST_SIZE];  /* the row's host */
  char other[OWNER_HOST_SIZE]; /* the owner before (MIGRATED), the owner */
  double window;               /* COLLISION: the owner's window, s */
};

struct rrd_owner;

/* Returns 0 or -ENOMEM. */
int rrd_owner_new(struct rrd_owner **ret);
void rrd_owner_free(struct rrd_owner *owner);

/*
 * Whether the row that host sends for the file of (layout, cluster, name)
 * is written; news says what is to be logged (once).  interval is the
 * seconds between host's rows (0: RRD_OWNER_DEFAULT_INTERVAL), now the
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

#endif

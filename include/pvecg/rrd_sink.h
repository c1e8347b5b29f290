/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where pve_rrd's rows go, and the promise that collectd's write threads
 * never wait for a daemon.
 *
 * Without a daemon address, rows go straight into the store from the
 * calling thread (librrd on local files, as before).  With one, the
 * calling thread only copies the row into a bounded queue under a mutex
 * that is never held across I/O, and one sender thread applies the rows in
 * arrival order through rrdcached.  librrd's client sets no timeout and
 * has one connection per process, so a single thread that may wait is the
 * only way to bound what a write thread waits for; requests to the daemon
 * are serialised by librrd anyway, so nothing is lost by having one sender.
 *
 * While the daemon cannot be reached the sender keeps the rows, tries to
 * connect again with a back-off (retry_min doubling to retry_max), and
 * replays them in order once it is back; a full queue drops new rows and
 * counts them.  Rows are not written to the files behind the daemon's back
 * meanwhile: the daemon may hold older rows of the same files in its
 * journal, and would lose them when they turned out older than ours.
 *
 * Log lines (through the log callback, never with a lock held): one per
 * state change — connected (the first time only), cannot reach, daemon
 * lost, not answering for longer than timeout, reachable or answering
 * again, queue full, queue accepting again, rows lost or giving up at
 * shutdown — plus what the store reports about single files, for
 * guests' rows a migration or two hosts reporting one VMID
 * (rrd_sink_write_guest), and the owners file's (rrd/owner/rrd_owner.c).
 */
#ifndef PVECG_RRD_SINK_H
#define PVECG_RRD_SINK_H

#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_store.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum rrd_sink_level { RRD_SINK_ERROR, RRD_SINK_WARNING, RRD_SINK_INFO };

typedef void rrd_sink_log_fn(void *ctx, enum rrd_sink_level level,
                             const char *message);

struct rrd_sink_options {
  const char *data_dir;       /* see rrd_store_options */
  const char *daemon_address; /* NULL or "": direct librrd */
  unsigned long recheck_seconds;
  unsigned long max_ahead_seconds; /* see rrd_store_options */
  size_t queue_size;               /* rows kept for the daemon (0: 100000) */
  /* Seconds (0: 5): the longest a flush or the shutdown waits for the
   * daemon, and how long an unanswered request takes to count as the
   * daemon being lost. */
  double timeout;
  double retry_min, retry_max; /* reconnect back-off, s (0: 1 and 30) */
  /* Seconds the first row after a quiet spell waits for the rest of its
   * burst, so that a burst goes to the daemon in one exchange rather than
   * one per few rows (0: 0.02; < 0: none).  A flush or the shutdown ends
   * the wait. */
  double gather;
  rrd_sink_log_fn *log;
  void *log_ctx;
  /* Seconds on a clock that never steps, for when guests' rows arrive
   * (NULL: the monotonic clock; tests pass their own). */
  double (*clock)(void);
  /* The wall clock of the times a collision began (NULL: time()). */
  time_t (*wall_clock)(void);
};

struct rrd_sink;

/* Returns 0, or -EINVAL / -ENOMEM / -EAGAIN (no thread) with the reason in
 * err. */
int rrd_sink_new(const struct rrd_sink_options *options, struct rrd_sink **ret,
                 char *err, size_t err_size);

/*
 * Stops the sender: rows still queued get until timeout to reach the daemon;
 * those that do not are counted in one log line.  If the sender is stuck
 * in a request the daemon does not answer, it is left behind (with the
 * sink's memory) rather than making collectd's shutdown wait.
 */
void rrd_sink_free(struct rrd_sink *sink);

/* Hands over one row (copied) for the file of (layout, cluster, name), as
 * rrd_store_write names it (cluster NULL or "": the data directory's own
 * files).  Thread-safe; with a daemon it never waits for I/O. */
void rrd_sink_write(struct rrd_sink *sink, const struct rrd_layout *layout,
                    const char *cluster, const char *name, time_t t,
                    const double *values, size_t n);

/*
 * rrd_sink_write for a guest's row, which host reports: a guest's file is
 * named by its VMID (in its cluster's directory), and hosts of different
 * clusters, or standalone hosts, may use the same VMIDs; the writer's
 * <Cluster> settings keep them apart, and this keeps two guests from being
 * blended where the settings do not.  The first host to report a guest owns
 * its file; another host's rows for it are refused (not written, not
 * counted by the store, counted in other_host) while the owner reports it
 * too.  When the owner has sent nothing for five of its intervals, the
 * next host to report the guest owns the file (a migration: one info
 * line) -- unless that host was seen colliding: when another host goes on
 * reporting it for that long while the owner does too, it is marked, its
 * rows are refused from then on even once the owner is quiet, and one
 * error line per guest and pair of hosts and hour says so.  Every layout
 * of a guest (its KSM file too) follows the owner of its pve-vm-9.0 file.
 * interval is the seconds between host's rows (0: 10).  Memory, restarts
 * and the reasons for the window are pvecg/rrd_owner.h's; the owners and
 * marks are kept in <DataDir>/pvecg-owners where the files are on this
 * machine (rrd/owner/rrd_owner.c, from the write path every few seconds).
 * Thread-safe; the check is one lookup under a lock never held across I/O.
 */
void rrd_sink_write_guest(struct rrd_sink *sink,
                          const struct rrd_layout *layout, const char *cluster,
                          const char *vmid, const char *host, double interval,
                          time_t t, const double *values, size_t n);

/*
 * Makes rows handed over so far reach the disk: the daemon writes every file
 * updated since the last flush (layout NULL), or the file of (layout,
 * cluster, name).
 * Waits at most timeout.  Returns 0, -ETIMEDOUT, or -EINVAL for a bad name;
 * without a daemon rows are on disk already and it returns 0 at once.
 */
int rrd_sink_flush(struct rrd_sink *sink, const struct rrd_layout *layout,
                   const char *cluster, const char *name);

struct rrd_sink_stats {
  bool daemon;                   /* writing through a daemon */
  bool reachable;                /* the daemon answered the last request */
  size_t queued;                 /* rows waiting now */
  size_t queue_peak;             /* most rows that ever waited */
  unsigned long long exchanges;  /* requests with rows the daemon answered */
  unsigned long long overflowed; /* rows dropped because the queue was full */
  /* guests' rows refused: another host reports the guest (or no memory to
   * tell) */
  unsigned long long other_host;
  struct rrd_store_counts store; /* outcomes of rows applied */
};
void rrd_sink_stats(struct rrd_sink *sink, struct rrd_sink_stats *ret);

#endif

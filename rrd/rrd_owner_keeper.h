/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What keeps the owners (rrd_owner.h) on disk while pve_rrd runs: it reads
 * them back at start, saves them from a thread of its own whenever they
 * change (never from a write thread: a row only moves a counter), takes
 * the operator's requests every few seconds, and forgets guests whose
 * file has gone.  It holds the owners file's lock (rrd_owner_disk.h) from
 * start to stop, so that it is the only one writing the file.  A data
 * directory that is not there yet is not made: the lock is taken, and the
 * owners kept, once the first file has made it.
 *
 * Its log lines: the owners read back (one line), what was wrong with the
 * file (one line, and the guests concerned fall back to "the first host to
 * report them that was not seen colliding"), owners the configuration no
 * longer sends to their file's cluster (one line; likewise no owners), a
 * request applied (one line each), the file cannot be saved (one line until it
 * can again), another process holds the lock (one line: then the owners live in
 * memory only).
 */
#ifndef PVECG_RRD_OWNER_KEEPER_H
#define PVECG_RRD_OWNER_KEEPER_H

#include "rrd_owner.h"

#include "pvecg/rrd_sink.h"

struct rrd_owner_keeper_options {
  const char *data_dir; /* absolute, on this machine */
  struct rrd_owner *owners;
  double (*clock)(void); /* as the owners are given; NULL: monotonic */
  rrd_sink_log_fn *log;
  void *log_ctx;
  double save_every;     /* s between looks for changes (0: 1) */
  double requests_every; /* s between looks for requests (0: 2) */
  double gone_every;     /* s between looks for files gone (0: 300) */
  /* see rrd_sink_options; NULL: every host still belongs */
  bool (*host_in_cluster)(const char *cluster, const char *host);
};

struct rrd_owner_keeper;

/* Reads the owners back and starts the thread.  Returns 0, or a negative
 * errno (said in the log) when the owners cannot be kept: the lock is held
 * by another process, or no thread. */
int rrd_owner_keeper_start(const struct rrd_owner_keeper_options *options,
                           struct rrd_owner_keeper **ret);

/* Saves what changed since the last save, lets go of the lock, frees. */
void rrd_owner_keeper_stop(struct rrd_owner_keeper *keeper);

#endif

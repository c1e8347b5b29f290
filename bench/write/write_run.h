/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One measurement of the write path: `guests` files written `rounds` times
 * through pve_rrd's sink (rrd_sink.h) by `threads` writer threads, as
 * collectd's write threads call pve_rrd: the first round creates the files
 * (timed on its own), the others update them.  Straight into librrd, or
 * through an rrdcached started for the run.
 */
#ifndef PVECG_BENCH_WRITE_RUN_H
#define PVECG_BENCH_WRITE_RUN_H

#include <stdbool.h>
#include <stddef.h>

struct write_run_options {
  const char *dir; /* an empty directory for the files (and the daemon) */
  size_t guests;
  unsigned rounds;  /* the first creates the files */
  unsigned threads; /* writer threads */
  bool daemon;      /* through rrdcached */
  bool daemon_away; /* with daemon: none listens (rows only queue up) */
  /* with daemon: stopped after the first round, started again once every
   * other round is queued: the backlog of an outage, drained */
  bool backlog;
};

struct write_run_result {
  double create_s;     /* round 1 until every file exists (and, through
                          the daemon, the queue is empty) */
  double update_s;     /* the other rounds until every row is applied
                          (daemon away: until the writers returned;
                          backlog: from the daemon's start) */
  double writers_s;    /* the other rounds until the writers returned */
  double call_mean_us; /* time in one rrd_sink_write, update rounds */
  double call_max_us;
  double flush_s;            /* daemon: FLUSH of every file afterwards */
  double cpu_us_per_row;     /* this process (writers, sender), update rounds */
  double daemon_us_per_row;  /* the daemon's CPU, the same rounds */
  unsigned long long rows;   /* rows of the update rounds */
  unsigned long long failed; /* rows not CREATED or WRITTEN */
  size_t queue_peak;
};

/* Returns 0, or -1 with a message on stderr. */
int write_run(const struct write_run_options *o, struct write_run_result *r);

#endif

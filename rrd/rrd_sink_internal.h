/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state the sink's front (rrd_sink.c: collectd's threads) shares with
 * its sender thread (rrd_sender.c).  Everything below lock is guarded by
 * it; neither side holds it across I/O or while logging.
 */
#ifndef PVECG_RRD_SINK_INTERNAL_H
#define PVECG_RRD_SINK_INTERNAL_H

#include "rrd_queue.h"
#include "pvecg/rrd_sink.h"
#include "pvecg/rrd_store.h"
#include "pvecg/rrdcached_client.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct rrd_sink {
  struct rrd_store *store;
  struct rrdcached_client *client; /* NULL: direct librrd, no thread */
  rrd_sink_log_fn *log;
  void *log_ctx;
  double timeout, retry_min, retry_max;

  pthread_mutex_t lock;
  pthread_cond_t work;     /* to the sender: a row, a flush, stop */
  pthread_cond_t progress; /* from the sender: a flush done, finished */
  pthread_t thread;
  /* Monotonic ns when the sender's current request started, 0 when idle:
   * read without the lock by writers to notice a daemon that does not
   * answer. */
  atomic_llong busy_since;

  struct rrd_queue queue;
  unsigned long long pushed, done; /* rows queued / taken off, ever */
  size_t queue_peak;
  bool overflowing; /* dropping rows, until the queue is half empty */
  unsigned long long overflowed, overflowed_now; /* ever / this episode */

  bool link_up;       /* the last request reached the daemon */
  bool ever_up;       /* it has been reached since the start */
  bool lost_reported; /* "lost" (or "cannot reach") was logged */
  bool stalled;       /* "not answering" was logged for this request */
  double down_since, retry_at, retry_delay; /* monotonic s */

  unsigned long long flush_requested, flush_completed;
  unsigned long long flush_after; /* rows to apply before flushing */
  bool flush_all;
  char *flush_path; /* the one file asked for, unless flush_all */
  int flush_result;

  bool stopping, finished;
  bool orphaned; /* rrd_sink_free gave up waiting: the sender frees it all */
  bool quiet;    /* no more log lines (collectd has shut down) */
  double stop_deadline;
};

/* Frees everything; the sender must have finished. */
void rrd_sink_destroy(struct rrd_sink *s);

/* Formats a message and hands it to the log callback, dropping the lock
 * meanwhile (the callback may take as long as collectd's log plugins). */
__attribute__((format(printf, 3, 4))) void
rrd_sink_say(struct rrd_sink *s, enum rrd_sink_level level, const char *fmt,
             ...);

/* Logs what the store reported about a row, at the level it deserves;
 * called without the lock, so the caller says whether s->quiet was set. */
void rrd_sink_report(struct rrd_sink *s, bool quiet, int err,
                     const struct rrd_store_result *res);

/* The sender thread (rrd_sender.c); arg is the sink. */
void *rrd_sender_main(void *arg);

#endif

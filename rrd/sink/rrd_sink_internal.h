/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state the sink's front (rrd_sink.c: collectd's threads) shares with
 * its sender thread (rrd_sender.c); the link to the daemon and a full
 * queue change in rrd_sink_link.c and rrd_sink_overflow.c, and every log
 * line is rrd_sink_log.c's.  Everything below lock is guarded by it;
 * nobody holds it across I/O or while logging.
 */
#ifndef PVECG_RRD_SINK_INTERNAL_H
#define PVECG_RRD_SINK_INTERNAL_H

#include "rrd_queue.h"
#include "rrd_sink_link.h"
#include "pvecg/rrd_sink.h"
#include "pvecg/rrd_store.h"
#include "pvecg/rrdcached_client.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

struct rrd_sender_batch;
struct rrd_owner;

struct rrd_sink {
  struct rrd_store *store;
  struct rrdcached_client *client; /* NULL: direct librrd, no thread */
  struct rrd_sender_batch *batch;  /* with a client: rows in batches */
  rrd_sink_log_fn *log;
  void *log_ctx;
  double timeout, retry_min, retry_max;
  /* Which host each guest's file belongs to, checked by collectd's
   * threads as rows arrive (rrd_owner.c has its own lock). */
  struct rrd_owner *owners;
  bool owners_kept; /* on disk: the collision's line names the command */
  char *data_dir;   /* as given, for that command's --data-dir */
  double (*clock)(void);

  pthread_mutex_t lock;
  pthread_cond_t work;     /* to the sender: a row, a flush, stop */
  pthread_cond_t progress; /* from the sender: a flush done, finished */
  pthread_t thread;
  /* The sender waits for work: a row wakes it.  Otherwise it is busy, or
   * lets a burst gather until gather_until (monotonic s, 0: not), or waits
   * to reconnect, and a row does not (see rrd_sender.c). */
  bool sender_idle;
  double gather, gather_until; /* s */
  /* Monotonic ns when the sender's current request started, 0 when idle:
   * read without the lock by writers to notice a daemon that does not
   * answer. */
  atomic_llong busy_since;
  /* The wall clock's second from which the store lets go of the files
   * whose rows have stopped again (rrd_store_let_go): by the sender with
   * a daemon, by whichever write thread claims it otherwise. */
  atomic_llong let_go_at;

  struct rrd_queue queue;
  /* Rows queued, ever.  Those taken off since are pushed - queue.count:
   * a row enters both with its push, and leaves the queue only when the
   * sender is done with it (rrd_sender.c). */
  unsigned long long pushed;
  size_t queue_peak;
  unsigned long long exchanges; /* with rows, that the daemon answered */
  /* Rows dropped: ever / in this episode of a full queue, which lasts
   * while it is not 0 (rrd_sink_overflow.c). */
  unsigned long long overflowed, overflowed_now;

  enum rrd_sink_link link;                  /* see rrd_sink_link.h */
  double down_since, retry_at, retry_delay; /* monotonic s */

  unsigned long long flush_requested, flush_completed;
  unsigned long long flush_after; /* rows to apply before flushing */
  bool flush_all;
  char *flush_path; /* the one file asked for, unless flush_all */
  int flush_result;

  bool stopping, finished;
  /* rrd_sink_free gave up waiting: the sender frees it all, and logs no
   * more lines (collectd has shut down). */
  bool orphaned;
  double stop_deadline;
};

/* Frees everything; the sender must have finished. */
void rrd_sink_destroy(struct rrd_sink *s);

/* Seconds between two looks for files whose rows have stopped. */
#define RRD_SINK_LET_GO 10

/* Whether the caller is to let go of those files now (the wall clock's
 * second now); true for one caller per RRD_SINK_LET_GO seconds. */
bool rrd_sink_let_go_due(struct rrd_sink *s, time_t now);

/* The sender thread (rrd_sender.c); arg is the sink. */
void *rrd_sender_main(void *arg);

#endif

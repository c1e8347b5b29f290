/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sink's sender thread (see rrd_sink.h): the only thread that talks to
 * rrdcached, so the only one that may wait for it.
 *
 * It takes the oldest queued row and applies it through the store; the row
 * leaves the queue only when the store is done with it, so a row the
 * daemon could not be reached for is the first to go once it is back, and
 * rows of one file reach it in time order.  While the daemon is away it
 * tries to connect again after retry_min, doubling to retry_max.  Flush
 * requests run once every row queued before them has been applied.  Every
 * RRD_SINK_LET_GO seconds the store lets go of the files whose rows have
 * stopped, and those with rows not flushed yet are flushed.  What
 * its requests and connection attempts meet changes the link's state,
 * which also schedules the next attempt (rrd_sink_link.c); the rows it
 * takes off may end a full queue's episode (rrd_sink_overflow.c).
 *
 * Rows come in bursts (every guest's row of an interval, dispatched back
 * to back) but one by one, from collectd's write threads.  Sent as they
 * came, a burst of 1,000 rows went to the daemon in about 200 exchanges
 * of a few rows, each a wakeup of this thread and of the daemon: about
 * 2.5 us of CPU per row more than one exchange (measured,
 * docs/performance.md).  So the first row after a quiet spell wakes the
 * sender, which then lets the burst gather for a moment (gather, 20 ms by
 * default) without being woken by its rows, and sends it in one exchange.
 * A flush, the shutdown or a full batch's worth of rows ends the wait.
 */
#include "rrd_sink_internal.h"

#include "rrd_sender_batch.h"
#include "rrd_sink_log.h"
#include "rrd_sink_overflow.h"

#include "pvecg/monotonic.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ERR_SIZE 512

static struct timespec monotonic_at(double at) {
  struct timespec ts = {.tv_sec = (time_t)at};
  ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
  return ts;
}

/* ---- the link to the daemon -------------------------------------------- */

/* Not connected: wait for the next attempt, or make it. */
static void reconnect(struct rrd_sink *s) {
  double now = monotonic_seconds();
  if (now < s->retry_at) {
    struct timespec until = monotonic_at(s->retry_at);
    pthread_cond_timedwait(&s->work, &s->lock, &until);
    return;
  }
  char err[ERR_SIZE] = "";
  pthread_mutex_unlock(&s->lock);
  /* The connection the rows take is the one to try.  librrd's, which
   * creates and checks files, may still look connected to a daemon that
   * went away meanwhile: it starts afresh too. */
  bool batches = rrd_sender_batch_usable(s->batch);
  int r = batches ? rrd_sender_batch_connect(s->batch, err, sizeof(err))
                  : -EOPNOTSUPP;
  char refusal[ERR_SIZE] = "";
  if (batches && r == -EOPNOTSUPP) /* logged once: batches are off now */
    snprintf(refusal, sizeof(refusal), "%s", err);
  rrdcached_client_disconnect(s->client);
  if (r == -EOPNOTSUPP)
    r = rrdcached_client_connect(s->client, err, sizeof(err));
  pthread_mutex_lock(&s->lock);
  if (refusal[0] != '\0')
    rrd_sink_log_no_batch(s, refusal);
  if (r == 0)
    rrd_sink_link_connect_ok(s);
  else
    rrd_sink_link_connect_failed(s, err, now);
}

/* ---- rows -------------------------------------------------------------- */

/* One row through librrd's client, for a daemon that does not take BATCH
 * (rrd_sender_batch.c sends the rows otherwise). */
static void send_row(struct rrd_sink *s, struct rrd_queued_row *row) {
  if (row->done) { /* finished behind a batch that was not sent */
    free(rrd_queue_pop(&s->queue));
    return;
  }
  pthread_mutex_unlock(&s->lock);
  atomic_store(&s->busy_since, (long long)monotonic_ns() + 1);
  struct rrd_store_result res;
  int err = rrd_store_write(s->store, row->layout, row->cluster, row->name,
                            row->t, row->values, row->n, time(NULL), &res);
  atomic_store(&s->busy_since, 0);
  pthread_mutex_lock(&s->lock);
  if (err == 0 && res.outcome == RRD_STORE_UNAVAILABLE) {
    rrd_sink_link_lost(s, res.message); /* the row stays first in line */
    return;
  }
  rrd_queue_pop(&s->queue);
  s->exchanges++;
  rrd_sink_link_answered(s);
  rrd_sink_overflow_drained(s);
  bool orphaned = s->orphaned;
  pthread_mutex_unlock(&s->lock);
  rrd_sink_log_store(s, orphaned, err, &res);
  free(row);
  pthread_mutex_lock(&s->lock);
}

/* ---- flush ------------------------------------------------------------- */

/* Rows taken off the queue, ever: every row pushed is still queued or has
 * been taken off (by send_row, or after a batch). */
static unsigned long long rows_done(const struct rrd_sink *s) {
  return s->pushed - s->queue.count;
}

static bool flush_due(const struct rrd_sink *s) {
  return s->flush_requested > s->flush_completed &&
         rows_done(s) >= s->flush_after;
}

/* Whether rrd_sink_free's deadline has passed.  Called without the lock
 * held (during a flush), so it takes it: rrd_sink_free sets both fields
 * under it from another thread. */
static bool past_stop_deadline(struct rrd_sink *s) {
  pthread_mutex_lock(&s->lock);
  bool past = s->stopping && monotonic_seconds() >= s->stop_deadline;
  pthread_mutex_unlock(&s->lock);
  return past;
}

/* FLUSH for every path, stopping at the first the daemon cannot be
 * reached for, or at the stop deadline (a daemon writing thousands of
 * files must not hold up collectd's shutdown). */
static int flush_paths(struct rrd_sink *s, char **paths, size_t count,
                       char *err, size_t err_size) {
  int result = 0;
  for (size_t i = 0; i < count; i++) {
    if (past_stop_deadline(s))
      return -ETIMEDOUT;
    int r = rrdcached_client_flush(s->client, paths[i], err, err_size);
    if (r == -ENOTCONN)
      return r;
    if (r != 0)
      result = r; /* a file the daemon has no rows for is not a failure of
                     the others */
  }
  return result;
}

static int flush_files(struct rrd_sink *s, bool all, char *path, char *err,
                       size_t err_size) {
  if (!all)
    return flush_paths(s, &path, 1, err, err_size);
  char **paths = NULL;
  size_t count = 0;
  int r = rrd_store_take_dirty(s->store, &paths, &count);
  if (r == 0)
    r = flush_paths(s, paths, count, err, err_size);
  for (size_t i = 0; i < count; i++)
    free(paths[i]);
  free(paths);
  return r;
}

static void run_flush(struct rrd_sink *s) {
  unsigned long long target = s->flush_requested;
  bool all = s->flush_all;
  char *path = s->flush_path;
  s->flush_all = false;
  s->flush_path = NULL;
  pthread_mutex_unlock(&s->lock);
  char err[ERR_SIZE] = "";
  int r = flush_files(s, all, path, err, sizeof(err));
  free(path);
  pthread_mutex_lock(&s->lock);
  if (r == -ENOTCONN) {
    s->flush_all = true; /* again once the daemon is back */
    rrd_sink_link_lost(s, err);
    return;
  }
  s->flush_result = r == -EIO ? 0 : r;
  s->flush_completed = target;
  pthread_cond_broadcast(&s->progress);
}

/* ---- files whose rows have stopped ------------------------------------- */

/* The store lets go of them; those with rows in the daemon's cache since
 * the last flush are flushed now, as a later FLUSH no longer knows them. */
static void let_go(struct rrd_sink *s) {
  pthread_mutex_unlock(&s->lock);
  char **paths = NULL, err[ERR_SIZE] = "";
  size_t count = 0;
  rrd_store_let_go(s->store, time(NULL), &paths, &count);
  int r = flush_paths(s, paths, count, err, sizeof(err));
  for (size_t i = 0; i < count; i++)
    free(paths[i]);
  free(paths);
  pthread_mutex_lock(&s->lock);
  if (r == -ENOTCONN)
    rrd_sink_link_lost(s, err);
}

/* ---- bursts ------------------------------------------------------------ */

static bool gathering(const struct rrd_sink *s) {
  return s->gather_until > 0 && !s->stopping &&
         s->flush_requested == s->flush_completed &&
         s->queue.count < RRD_SENDER_BATCH_ROWS &&
         monotonic_seconds() < s->gather_until;
}

/* Rows for the daemon: gathered first when they woke the sender. */
static void send_rows(struct rrd_sink *s) {
  if (gathering(s)) {
    struct timespec until = monotonic_at(s->gather_until);
    pthread_cond_timedwait(&s->work, &s->lock, &until);
    return;
  }
  s->gather_until = 0;
  rrd_sender_batch_send(s);
}

/* Nothing to do: wait for a row, a flush or the stop. */
static void wait_for_work(struct rrd_sink *s) {
  s->sender_idle = true;
  pthread_cond_wait(&s->work, &s->lock);
  s->sender_idle = false;
  if (s->gather > 0)
    s->gather_until = monotonic_seconds() + s->gather;
}

/* ---- the loop ---------------------------------------------------------- */

/* Stopping ends the loop once nothing is left to do, the deadline has
 * passed, or the daemon is away and not due for another attempt. */
static bool finished(const struct rrd_sink *s) {
  if (!s->stopping)
    return false;
  bool idle = s->queue.count == 0 && !flush_due(s);
  return idle || monotonic_seconds() >= s->stop_deadline ||
         (!rrd_sink_link_connected(s) && monotonic_seconds() < s->retry_at);
}

/* A daemon that goes away makes librrd's next write raise SIGPIPE; in this
 * thread it stays blocked (collectd ignores it anyway, tests may not). */
static void block_sigpipe(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void *rrd_sender_main(void *arg) {
  struct rrd_sink *s = arg;
  block_sigpipe();
  pthread_mutex_lock(&s->lock);
  while (!finished(s)) {
    struct rrd_queued_row *row = rrd_queue_peek(&s->queue);
    if (!rrd_sink_link_connected(s))
      reconnect(s);
    else if (flush_due(s))
      run_flush(s);
    else if (rrd_sink_let_go_due(s, time(NULL)))
      let_go(s);
    else if (row != NULL && rrd_sender_batch_usable(s->batch))
      send_rows(s);
    else if (row != NULL)
      send_row(s, row);
    else if (!s->stopping)
      wait_for_work(s);
  }
  s->finished = true;
  bool orphaned = s->orphaned;
  pthread_cond_broadcast(&s->progress);
  pthread_mutex_unlock(&s->lock);
  if (orphaned) /* rrd_sink_free gave up on this thread and left it the sink */
    rrd_sink_destroy(s);
  return NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sink's front (see rrd_sink.h): what collectd's threads call.  Direct
 * mode writes through the store right here.  Daemon mode copies the row
 * into the queue and wakes the sender (rrd_sender.c); the only waiting a
 * write thread can do is for the queue's mutex, which nobody holds across
 * I/O, a log call, or anything longer than a few pointer moves.  On the
 * way a write thread notices a full queue (rrd_sink_overflow.c) and a
 * daemon that does not answer the sender (rrd_sink_link.c).
 */
#include "rrd_sink_internal.h"

#include "pvecg/rrd_owner.h"
#include "rrd_sender_batch.h"
#include "rrd_sink_log.h"
#include "rrd_sink_overflow.h"

#include "pvecg/monotonic.h"
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_QUEUE_SIZE 100000
#define DEFAULT_TIMEOUT 5.0
#define DEFAULT_RETRY_MIN 1.0
#define DEFAULT_RETRY_MAX 30.0
/* Long enough for the rows of 1,000 guests dispatched back to back to
 * reach the sink, short beside the minutes rrdcached keeps them. */
#define DEFAULT_GATHER 0.02

static void ignore_log(void *ctx, enum rrd_sink_level level,
                       const char *message) {
  (void)ctx;
  (void)level;
  (void)message;
}

/* ---- construction ------------------------------------------------------ */

static int init_sync(struct rrd_sink *s) {
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) != 0)
    return -ENOMEM;
  /* waits are measured on the monotonic clock, immune to clock steps */
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  int r = pthread_mutex_init(&s->lock, NULL) != 0 ||
                  pthread_cond_init(&s->work, &attr) != 0 ||
                  pthread_cond_init(&s->progress, &attr) != 0
              ? -ENOMEM
              : 0;
  pthread_condattr_destroy(&attr);
  return r;
}

static int open_client(struct rrd_sink *s, const char *address, char *err,
                       size_t err_size) {
  int r = rrdcached_client_new(address, &s->client);
  if (r == 0 && init_sync(s) != 0) {
    rrdcached_client_free(s->client);
    s->client = NULL;
    r = -ENOMEM;
  }
  if (r != 0)
    snprintf(err, err_size,
             r == -EINVAL ? "invalid daemon address \"%s\"" : "out of memory",
             address);
  return r;
}

static int start_daemon_mode(struct rrd_sink *s,
                             const struct rrd_sink_options *o, char *err,
                             size_t err_size) {
  size_t size = o->queue_size ? o->queue_size : DEFAULT_QUEUE_SIZE;
  int r = rrd_queue_init(&s->queue, size);
  if (r != 0) {
    snprintf(err, err_size, "out of memory for a queue of %zu rows", size);
    return r;
  }
  r = rrd_sender_batch_new(o->daemon_address, &s->batch);
  if (r != 0) {
    snprintf(err, err_size, "out of memory for the sender's batches");
    return r;
  }
  s->link = RRD_SINK_LINK_NEW; /* the sender connects first thing */
  if (pthread_create(&s->thread, NULL, rrd_sender_main, s) != 0) {
    snprintf(err, err_size, "cannot start the sender thread");
    return -EAGAIN;
  }
  return 0;
}

static int make_store(struct rrd_sink *s, const struct rrd_sink_options *o,
                      char *err, size_t err_size) {
  struct rrd_store_options so = {
      .data_dir = o->data_dir,
      .recheck_seconds = o->recheck_seconds,
      .max_ahead_seconds = o->max_ahead_seconds,
      .access = s->client ? rrdcached_client_access(s->client) : NULL,
  };
  int r = rrd_store_new(&so, &s->store);
  if (r == -EINVAL)
    snprintf(err, err_size,
             s->client && !rrdcached_client_is_unix(s->client)
                 ? "the data directory \"%s\" must be relative to the "
                   "daemon's base directory (no leading '/', no \"..\")"
                 : "the data directory \"%s\" must be an absolute path",
             o->data_dir ? o->data_dir : "");
  else if (r != 0)
    snprintf(err, err_size, "out of memory");
  return r;
}

void rrd_sink_destroy(struct rrd_sink *s) {
  if (s->client != NULL) {
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->progress);
  }
  rrd_owner_unkeep(s->owners);
  rrd_store_free(s->store);
  rrd_owner_free(s->owners);
  rrdcached_client_free(s->client);
  rrd_sender_batch_free(s->batch);
  rrd_queue_destroy(&s->queue);
  free(s->flush_path);
  free(s->data_dir);
  free(s);
}

static void set_defaults(struct rrd_sink *s, const struct rrd_sink_options *o) {
  s->log = o->log ? o->log : ignore_log;
  s->log_ctx = o->log_ctx;
  s->clock = o->clock ? o->clock : monotonic_seconds;
  s->timeout = o->timeout > 0 ? o->timeout : DEFAULT_TIMEOUT;
  s->retry_min = o->retry_min > 0 ? o->retry_min : DEFAULT_RETRY_MIN;
  s->retry_max = o->retry_max > 0 ? o->retry_max : DEFAULT_RETRY_MAX;
  if (s->retry_max < s->retry_min)
    s->retry_max = s->retry_min;
  s->gather = o->gather > 0 ? o->gather : o->gather < 0 ? 0 : DEFAULT_GATHER;
}

/* The owners are kept on disk where the files are on this machine: a
 * daemon over TCP has them below its own base directory, out of reach. */
static void keep_owners(struct rrd_sink *s, const struct rrd_sink_options *o) {
  if (o->data_dir == NULL || o->data_dir[0] != '/' ||
      (s->client != NULL && !rrdcached_client_is_unix(s->client))) {
    s->log(s->log_ctx, RRD_SINK_INFO,
           "The owners of guests' files are kept in memory only: the files "
           "are not on this machine.");
    return;
  }
  s->owners_kept = rrd_owner_keep(s->owners, o->data_dir, s->log, s->log_ctx,
                                  s->clock()) == 0;
}

int rrd_sink_new(const struct rrd_sink_options *o, struct rrd_sink **ret,
                 char *err, size_t err_size) {
  struct rrd_sink *s = calloc(1, sizeof(*s));
  if (s == NULL) {
    snprintf(err, err_size, "out of memory");
    return -ENOMEM;
  }
  set_defaults(s, o);
  if (o->data_dir != NULL && (s->data_dir = strdup(o->data_dir)) == NULL) {
    free(s);
    snprintf(err, err_size, "out of memory");
    return -ENOMEM;
  }
  bool daemon = o->daemon_address != NULL && o->daemon_address[0] != '\0';
  int r = daemon ? open_client(s, o->daemon_address, err, err_size) : 0;
  if (r == 0)
    r = make_store(s, o, err, err_size);
  if (r == 0 && (r = rrd_owner_new(o->wall_clock, &s->owners)) != 0)
    snprintf(err, err_size, "out of memory");
  if (r == 0)
    keep_owners(s, o);
  if (r == 0 && daemon)
    r = start_daemon_mode(s, o, err, err_size);
  if (r != 0) {
    rrd_sink_destroy(s);
    return r;
  }
  *ret = s;
  return 0;
}

/* ---- shutdown ---------------------------------------------------------- */

/* Waits for the sender to finish, at most until the stop deadline and a
 * second more; false when it is stuck in a request. */
static bool join_sender(struct rrd_sink *s) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  double wait = s->timeout + 1.0;
  ts.tv_sec += (time_t)wait;
  ts.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  return pthread_timedjoin_np(s->thread, NULL, &ts) == 0;
}

/* The sender is stuck in a request the daemon does not answer: it frees
 * the sink itself if it ever gets an answer; collectd is not kept
 * waiting. */
static void orphan(struct rrd_sink *s) {
  pthread_mutex_lock(&s->lock);
  bool done = s->finished;
  if (!done) {
    s->orphaned = true;
    pthread_detach(s->thread);
  }
  pthread_mutex_unlock(&s->lock);
  if (done) { /* finished after all, just now */
    pthread_join(s->thread, NULL);
    rrd_sink_destroy(s);
  }
}

/* The sender has finished (joined): its state is read without the lock. */
static void report_left(struct rrd_sink *s) {
  if (s->queue.count > 0)
    rrd_sink_log_rows_lost(s, s->queue.count, rrd_sink_link_connected(s));
}

void rrd_sink_free(struct rrd_sink *s) {
  if (s == NULL)
    return;
  /* saved now, whatever becomes of the sender */
  rrd_owner_unkeep(s->owners);
  if (s->client == NULL) {
    rrd_sink_destroy(s);
    return;
  }
  pthread_mutex_lock(&s->lock);
  s->stopping = true;
  s->stop_deadline = monotonic_seconds() + s->timeout;
  pthread_cond_broadcast(&s->work);
  pthread_mutex_unlock(&s->lock);
  if (join_sender(s)) {
    report_left(s);
    rrd_sink_destroy(s);
    return;
  }
  pthread_mutex_lock(&s->lock);
  size_t left = s->queue.count;
  pthread_mutex_unlock(&s->lock);
  rrd_sink_log_giving_up(s, left); /* after orphan(), s may be freed */
  orphan(s);
}

/* ---- rows -------------------------------------------------------------- */

static void enqueue(struct rrd_sink *s, const struct rrd_layout *layout,
                    const char *cluster, const char *name, time_t t,
                    const double *values, size_t n) {
  /* allocated before taking the lock, so the lock is held for less */
  struct rrd_queued_row *row =
      rrd_queued_row_new(layout, cluster, name, t, values, n);
  pthread_mutex_lock(&s->lock);
  if (row == NULL || rrd_queue_push(&s->queue, row) != 0) {
    free(row);
    rrd_sink_overflow_drop(s);
  } else {
    s->pushed++;
    if (s->queue.count > s->queue_peak)
      s->queue_peak = s->queue.count;
    /* A sender letting a burst gather is not woken for each of its rows:
     * each wakeup would cost it and this thread a system call. */
    if (s->sender_idle || s->queue.count == RRD_SENDER_BATCH_ROWS)
      pthread_cond_signal(&s->work);
  }
  /* the sender, stuck in a request, cannot say so itself */
  rrd_sink_link_check_overdue(s);
  pthread_mutex_unlock(&s->lock);
}

bool rrd_sink_let_go_due(struct rrd_sink *s, time_t now) {
  long long at = atomic_load(&s->let_go_at);
  return now >= at && atomic_compare_exchange_strong(
                          &s->let_go_at, &at, (long long)now + RRD_SINK_LET_GO);
}

void rrd_sink_write(struct rrd_sink *s, const struct rrd_layout *layout,
                    const char *cluster, const char *name, time_t t,
                    const double *values, size_t n) {
  if (s->client != NULL) {
    enqueue(s, layout, cluster, name, t, values, n);
    return;
  }
  struct rrd_store_result res;
  time_t now = time(NULL);
  int err =
      rrd_store_write(s->store, layout, cluster, name, t, values, n, now, &res);
  rrd_sink_log_store(s, false, err, &res);
  /* librrd writes every row to disk: nothing to flush of those let go */
  if (rrd_sink_let_go_due(s, now))
    rrd_store_let_go(s->store, now, NULL, NULL);
}

/* Checked as the row arrives, before any queue: after the daemon was away,
 * the queue's rows are applied in a burst, and a migration meanwhile would
 * look like two hosts reporting the guest at once.  Every file of a guest
 * (its KSM file too) follows the owner of its pve-vm-9.0 file: one guest,
 * one owner, so that no file of it ever holds another guest's rows. */
void rrd_sink_write_guest(struct rrd_sink *s, const struct rrd_layout *layout,
                          const char *cluster, const char *vmid,
                          const char *host, double interval, time_t t,
                          const double *values, size_t n) {
  cluster = cluster != NULL ? cluster : "";
  if (rrd_file_name_problem(vmid) != NULL ||
      (cluster[0] != '\0' && rrd_cluster_name_problem(cluster) != NULL)) {
    /* refused, and logged */
    rrd_sink_write(s, layout, cluster, vmid, t, values, n);
    return;
  }
  /* Only the pve rows tell the host's pace: the others come once a
   * minute, whatever the host's interval. */
  double pace = layout == &layout_pve_vm_9_0 ? interval : 0;
  struct rrd_owner_news news;
  double now = s->clock();
  bool admitted = rrd_owner_admit(s->owners, &layout_pve_vm_9_0, cluster, vmid,
                                  host, pace, now, &news);
  rrd_sink_log_owner(s, &layout_pve_vm_9_0, cluster, vmid, &news);
  if (admitted)
    rrd_sink_write(s, layout, cluster, vmid, t, values, n);
  rrd_owner_tick(s->owners, now);
}

/* ---- flush ------------------------------------------------------------- */

static struct timespec deadline_after(double seconds) {
  double at = monotonic_seconds() + seconds;
  struct timespec ts = {.tv_sec = (time_t)at};
  ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
  return ts;
}

/* Records the request; one file asked for twice stays one file, anything
 * more becomes "every file updated since the last flush". */
static void request_flush(struct rrd_sink *s, const char *path) {
  bool pending = s->flush_requested > s->flush_completed;
  if (path == NULL || s->flush_all ||
      (pending && (s->flush_path == NULL || strcmp(s->flush_path, path)))) {
    s->flush_all = true;
  } else if (s->flush_path == NULL && (s->flush_path = strdup(path)) == NULL) {
    s->flush_all = true;
  }
  if (s->flush_all) {
    free(s->flush_path);
    s->flush_path = NULL;
  }
  s->flush_requested++;
  s->flush_after = s->pushed;
  pthread_cond_signal(&s->work);
}

int rrd_sink_flush(struct rrd_sink *s, const struct rrd_layout *layout,
                   const char *cluster, const char *name) {
  if (s->client == NULL)
    return 0;
  char path[PATH_MAX];
  if (layout != NULL &&
      rrd_store_path(s->store, layout, cluster, name, path, sizeof(path)) != 0)
    return -EINVAL;
  struct timespec until = deadline_after(s->timeout);
  pthread_mutex_lock(&s->lock);
  request_flush(s, layout != NULL ? path : NULL);
  unsigned long long mine = s->flush_requested;
  int r = 0;
  while (s->flush_completed < mine && !s->finished && r != ETIMEDOUT)
    r = pthread_cond_timedwait(&s->progress, &s->lock, &until);
  r = s->flush_completed >= mine ? s->flush_result : -ETIMEDOUT;
  rrd_sink_link_check_overdue(s);
  pthread_mutex_unlock(&s->lock);
  return r;
}

void rrd_sink_stats(struct rrd_sink *s, struct rrd_sink_stats *ret) {
  *ret = (struct rrd_sink_stats){.daemon = s->client != NULL};
  if (s->client != NULL) {
    pthread_mutex_lock(&s->lock);
    ret->reachable = rrd_sink_link_reachable(s);
    ret->queued = s->queue.count;
    ret->queue_peak = s->queue_peak;
    ret->exchanges = s->exchanges;
    ret->overflowed = s->overflowed;
    pthread_mutex_unlock(&s->lock);
  }
  rrd_store_counts(s->store, &ret->store);
  ret->other_host = rrd_owner_counts(s->owners).refused;
}

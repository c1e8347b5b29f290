/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sender's batches (see rrd_sender_batch.h).  A step takes the oldest
 * rows without the lock (only the sender removes rows, so they stay put),
 * prepares each with the store, sends the ready ones in one exchange and
 * completes each with its answer; then, with the lock, takes off the
 * queue every row the store is done with, oldest first.
 */
#include "rrd_sender_batch.h"

#include "rrd_sink_link.h"
#include "rrd_sink_log.h"
#include "rrd_sink_overflow.h"
#include "rrdcached_batch.h"

#include "pvecg/monotonic.h"
#include "pvecg/rrd_words.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH_ROWS_MAX RRD_SENDER_BATCH_ROWS
/* Small enough that one exchange is a few hundred KiB. */
#define BATCH_BYTES_MAX (512 * 1024)

struct slot {
  struct rrd_queued_row *row;
  struct rrd_store_pending pending;
  int r; /* the daemon's answer: 0, -ESTALE (last), -EIO (message) */
  time_t last;
  char message[512];
  int check_r; /* ...and to the writer check before the row, when one went */
  time_t check_last;
};

/* A line of the exchange: a row, or the writer check before it. */
struct line_of {
  unsigned slot;
  bool check;
};

/* A row and its writer check are at most two lines. */
#define BATCH_LINES_MAX (2 * BATCH_ROWS_MAX)

struct rrd_sender_batch {
  struct rrdcached_batch *conn;
  bool unsupported; /* the daemon does not take BATCH */
  struct slot slots[BATCH_ROWS_MAX];
  struct rrdcached_batch_row lines[BATCH_LINES_MAX];
  struct line_of line_of[BATCH_LINES_MAX];
};

int rrd_sender_batch_new(const char *address, struct rrd_sender_batch **ret) {
  struct rrd_sender_batch *b = calloc(1, sizeof(*b));
  if (b == NULL)
    return -ENOMEM;
  int r = rrdcached_batch_new(address, &b->conn);
  if (r != 0) {
    free(b);
    return r;
  }
  *ret = b;
  return 0;
}

void rrd_sender_batch_free(struct rrd_sender_batch *b) {
  if (b == NULL)
    return;
  rrdcached_batch_free(b->conn);
  free(b);
}

bool rrd_sender_batch_usable(const struct rrd_sender_batch *b) {
  return !b->unsupported;
}

int rrd_sender_batch_connect(struct rrd_sender_batch *b, char *err,
                             size_t err_size) {
  /* writer_checked when the link is down: a connection still open is stale */
  rrdcached_batch_disconnect(b->conn);
  int r = rrdcached_batch_connect(b->conn, err, err_size);
  if (r == -EOPNOTSUPP)
    b->unsupported = true;
  return r;
}

/* ---- one step ---------------------------------------------------------- */

/* What a step found, for the lock's part at its end. */
struct step {
  size_t ready;     /* rows in the exchange (slots) */
  size_t lines;     /* its lines: the rows and their writer checks */
  bool sent;        /* the daemon answered for them */
  bool away;        /* ...or could not be reached: reason */
  bool no_batch;    /* ...or does not take BATCH: reason */
  char reason[768]; /* for the log */
};

/* Logs what the store said of a row, unless the sink was given up on
 * meanwhile (collectd has shut down then). */
static void log_row(struct rrd_sink *s, int err,
                    const struct rrd_store_result *res) {
  pthread_mutex_lock(&s->lock);
  bool orphaned = s->orphaned;
  pthread_mutex_unlock(&s->lock);
  rrd_sink_log_store(s, orphaned, err, res);
}

/* The daemon refused a line: its answer in the row's slot.  A writer check is
 * meant to be refused: only the file's last update counts. */
static void refused(void *ctx, size_t index, const char *message) {
  struct rrd_sender_batch *b = ctx;
  struct line_of of = b->line_of[index];
  struct slot *slot = &b->slots[of.slot];
  if (of.check) {
    slot->check_r =
        rrd_words_refusal(message, &slot->check_last) == 0 ? -ESTALE : -EIO;
    return;
  }
  slot->r = rrd_words_refusal(message, &slot->last) == 0 ? -ESTALE : -EIO;
  snprintf(slot->message, sizeof(slot->message), "%s", message);
}

/* The slot's lines: its writer check, when the store has one, then its row. */
static size_t add_lines(struct rrd_sender_batch *b, struct step *step) {
  struct slot *slot = &b->slots[step->ready];
  size_t bytes = 0;
  for (int check = slot->pending.check[0] != '\0'; check >= 0; check--) {
    const char *text = check ? slot->pending.check : slot->pending.row;
    b->lines[step->lines] =
        (struct rrdcached_batch_row){.path = slot->pending.path, .row = text};
    b->line_of[step->lines] =
        (struct line_of){.slot = (unsigned)step->ready, .check = check};
    bytes += strlen(text) + strlen(slot->pending.path) + 9;
    step->lines++;
  }
  return bytes;
}

/* A row the store finished while preparing it: logged now, off the queue
 * when it is the oldest.  Returns false when the daemon was away for it:
 * it stays and the step ends. */
static bool finished_early(struct rrd_sink *s, struct rrd_queued_row *row,
                           int err, const struct rrd_store_result *res,
                           struct step *step) {
  if (err == 0 && res->outcome == RRD_STORE_UNAVAILABLE) {
    step->away = true;
    snprintf(step->reason, sizeof(step->reason), "%s", res->message);
    return false;
  }
  row->done = true;
  log_row(s, err, res);
  return true;
}

/* Prepares the oldest rows until the batch is full, a file comes twice,
 * or the daemon is away. */
static void prepare(struct rrd_sink *s, struct rrd_sender_batch *b,
                    struct rrd_queued_row **rows, size_t count,
                    struct step *step) {
  size_t bytes = 0;
  time_t now = time(NULL);
  for (size_t i = 0; i < count && bytes < BATCH_BYTES_MAX; i++) {
    struct rrd_queued_row *row = rows[i];
    if (row->done)
      continue;
    struct slot *slot = &b->slots[step->ready];
    struct rrd_store_result res;
    int r = rrd_store_prepare(s->store, row->layout, row->cluster, row->name,
                              row->t, row->values, row->n, now, &slot->pending,
                              &res);
    if (r == -EBUSY)
      return; /* its file has a row in this batch: the next one */
    if (r != 1) {
      if (!finished_early(s, row, r, &res, step))
        return;
      continue;
    }
    slot->row = row;
    slot->r = slot->check_r = 0;
    slot->last = slot->check_last = 0;
    slot->message[0] = '\0';
    bytes += add_lines(b, step);
    step->ready++;
  }
}

/* The exchange; every prepared row completed with its answer, or as
 * unavailable when the daemon was not reached. */
static void exchange(struct rrd_sink *s, struct rrd_sender_batch *b,
                     struct step *step) {
  int r = 0;
  char err[512] = "";
  if (step->ready > 0 && !step->away)
    r = rrdcached_batch_update(b->conn, b->lines, step->lines, refused, b, err,
                               sizeof(err));
  if (r == -EOPNOTSUPP)
    b->unsupported = step->no_batch = true;
  else if (r != 0)
    step->away = true;
  if (r != 0)
    snprintf(step->reason, sizeof(step->reason), "%s", err);
  step->sent = r == 0 && !step->away;
  time_t now = time(NULL);
  for (size_t i = 0; i < step->ready; i++) {
    struct slot *slot = &b->slots[i];
    struct rrd_store_result res;
    struct rrd_store_answer check = {step->sent ? slot->check_r : -ENOTCONN,
                                     slot->check_last, err},
                            answer = {step->sent ? slot->r : -ENOTCONN,
                                      slot->last,
                                      step->sent ? slot->message : err};
    rrd_store_complete(s->store, &slot->pending, &check, &answer, now, &res);
    if (step->sent) {
      slot->row->done = true;
      log_row(s, 0, &res);
    }
  }
}

/* With the lock: the rows the store is done with leave the queue, oldest
 * first, and the link hears how the daemon answered. */
static void settle(struct rrd_sink *s, const struct step *step) {
  struct rrd_queued_row *row;
  while ((row = rrd_queue_peek(&s->queue)) != NULL && row->done)
    free(rrd_queue_pop(&s->queue));
  if (step->no_batch)
    rrd_sink_log_no_batch(s, step->reason);
  if (step->away) {
    rrd_sink_link_lost(s, step->reason); /* the rest stays first in line */
    return;
  }
  s->exchanges += step->sent && step->ready > 0;
  rrd_sink_link_answered(s);
  rrd_sink_overflow_drained(s);
}

void rrd_sender_batch_send(struct rrd_sink *s) {
  struct rrd_sender_batch *b = s->batch;
  struct rrd_queued_row *rows[BATCH_ROWS_MAX];
  size_t count = 0;
  while (count < BATCH_ROWS_MAX &&
         (rows[count] = rrd_queue_peek_at(&s->queue, count)) != NULL)
    count++;
  pthread_mutex_unlock(&s->lock);
  /* the whole step counts as the sender's request: a daemon that does not
   * answer (while creating a file, or the exchange) is noticed */
  atomic_store(&s->busy_since, (long long)monotonic_ns() + 1);
  struct step step = {0};
  prepare(s, b, rows, count, &step);
  exchange(s, b, &step);
  atomic_store(&s->busy_since, 0);
  pthread_mutex_lock(&s->lock);
  settle(s, &step);
}

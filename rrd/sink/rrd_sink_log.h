/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every line the sink logs (rrd_sink.h lists them), in one place: the
 * front (rrd_sink.c), the sender thread (rrd_sender.c) and the states
 * they announce (rrd_sink_link.c, rrd_sink_overflow.c) call down into
 * it, and it calls nothing of theirs.
 *
 * The lock is never held while the log callback runs (it may take as long
 * as collectd's log plugins), and an orphaned sink logs nothing: collectd
 * has shut down by then.  The first group below is called with the lock
 * held and drops it around the callback; the second without it.
 */
#ifndef PVECG_RRD_SINK_LOG_H
#define PVECG_RRD_SINK_LOG_H

#include "pvecg/rrd_owner.h"

#include "pvecg/rrd_store.h"

#include <stdbool.h>
#include <stddef.h>

struct rrd_sink;

/* ---- with the lock held ---- */

/* The link to the daemon (rrd_sink_link.c). */
void rrd_sink_log_connected(struct rrd_sink *s);
void rrd_sink_log_cannot_reach(struct rrd_sink *s, const char *reason);
void rrd_sink_log_lost(struct rrd_sink *s, const char *reason);
void rrd_sink_log_reachable_again(struct rrd_sink *s, double down_seconds);
void rrd_sink_log_not_answering(struct rrd_sink *s);
void rrd_sink_log_answers_again(struct rrd_sink *s);
/* The daemon refused BATCH (rrd_sender_batch.c). */
void rrd_sink_log_no_batch(struct rrd_sink *s, const char *reason);

/* A full queue (rrd_sink_overflow.c). */
void rrd_sink_log_queue_full(struct rrd_sink *s);
void rrd_sink_log_accepting_again(struct rrd_sink *s,
                                  unsigned long long dropped);

/* ---- without the lock ---- */

/* What the store reported about a row, at the level it deserves; orphaned
 * as read under the lock (direct mode has no lock and is never orphaned). */
void rrd_sink_log_store(struct rrd_sink *s, bool orphaned, int err,
                        const struct rrd_store_result *res);

/* Which host a guest's file belongs to (rrd_owner.h): a migration, or a
 * collision of two hosts' guests; nothing when news is quiet. */
void rrd_sink_log_owner(struct rrd_sink *s, const struct rrd_layout *layout,
                        const char *cluster, const char *vmid,
                        const struct rrd_owner_news *news);

/* At shutdown, the sender finished: the rows it left behind; connected
 * picks the reason (out of time, or the daemon was away). */
void rrd_sink_log_rows_lost(struct rrd_sink *s, size_t left, bool connected);

/* At shutdown, the sender stuck in a request: left rows still queued. */
void rrd_sink_log_giving_up(struct rrd_sink *s, size_t left);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sink's log lines (see rrd_sink_log.h): their texts and levels, and
 * the one way a line reaches the log callback with the lock held.
 */
#include "rrd_sink_log.h"

#include "rrd_sink_internal.h"

#include "pvecg/rrd_file_name.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#define MESSAGE_SIZE 1024

static const char *address(const struct rrd_sink *s) {
  return rrdcached_client_address(s->client);
}

/* Formats the line, then drops the lock for the callback; orphaned is read
 * before, under the lock, as rrd_sink_free sets it under the lock. */
__attribute__((format(printf, 3, 4))) static void
say(struct rrd_sink *s, enum rrd_sink_level level, const char *fmt, ...) {
  char message[MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof(message), fmt, ap);
  va_end(ap);
  bool orphaned = s->orphaned;
  pthread_mutex_unlock(&s->lock);
  if (!orphaned)
    s->log(s->log_ctx, level, message);
  pthread_mutex_lock(&s->lock);
}

/* ---- the link to the daemon -------------------------------------------- */

void rrd_sink_log_connected(struct rrd_sink *s) {
  say(s, RRD_SINK_INFO, "Connected to rrdcached at %s.", address(s));
}

void rrd_sink_log_cannot_reach(struct rrd_sink *s, const char *reason) {
  say(s, RRD_SINK_ERROR,
      "Cannot reach rrdcached at %s (%s); rows are kept in a queue of up to "
      "%zu and written once it is reachable.",
      address(s), reason, s->queue.capacity);
}

void rrd_sink_log_lost(struct rrd_sink *s, const char *reason) {
  say(s, RRD_SINK_ERROR,
      "Lost the connection to rrdcached at %s (%s); rows are kept in a queue "
      "of up to %zu and written once it is back.",
      address(s), reason, s->queue.capacity);
}

void rrd_sink_log_reachable_again(struct rrd_sink *s, double down_seconds) {
  say(s, RRD_SINK_INFO,
      "rrdcached at %s is reachable again after %.0f s; writing the %zu rows "
      "queued meanwhile.",
      address(s), down_seconds, s->queue.count);
}

void rrd_sink_log_not_answering(struct rrd_sink *s) {
  say(s, RRD_SINK_ERROR,
      "rrdcached at %s has not answered for %.0f s; rows are kept in the "
      "queue (%zu now) until it does.",
      address(s), s->timeout, s->queue.count);
}

void rrd_sink_log_answers_again(struct rrd_sink *s) {
  say(s, RRD_SINK_INFO,
      "rrdcached at %s answers again; writing the %zu rows queued meanwhile.",
      address(s), s->queue.count);
}

void rrd_sink_log_no_batch(struct rrd_sink *s, const char *reason) {
  say(s, RRD_SINK_WARNING,
      "rrdcached at %s does not take BATCH (%s); rows go to it one by one.",
      address(s), reason);
}

/* ---- a full queue ------------------------------------------------------ */

void rrd_sink_log_queue_full(struct rrd_sink *s) {
  say(s, RRD_SINK_ERROR,
      "The queue for rrdcached at %s is full (%zu rows): new rows are "
      "dropped and counted until it has drained to half.",
      address(s), s->queue.capacity);
}

void rrd_sink_log_accepting_again(struct rrd_sink *s,
                                  unsigned long long dropped) {
  say(s, RRD_SINK_WARNING,
      "The queue for rrdcached at %s accepts rows again; %llu rows were "
      "dropped while it was full.",
      address(s), dropped);
}

/* ---- without the lock -------------------------------------------------- */

static enum rrd_sink_level store_level(int err,
                                       const struct rrd_store_result *res) {
  if (err != 0 || res->outcome == RRD_STORE_FAILED ||
      res->outcome == RRD_STORE_FOREIGN || res->outcome == RRD_STORE_HELD)
    return RRD_SINK_ERROR;
  return res->outcome == RRD_STORE_STALE ? RRD_SINK_WARNING : RRD_SINK_INFO;
}

void rrd_sink_log_store(struct rrd_sink *s, bool orphaned, int err,
                        const struct rrd_store_result *res) {
  if (orphaned || (err == 0 && !res->report))
    return;
  s->log(s->log_ctx, store_level(err, res), res->message);
}

/* "guest 196" or "guest 196 of cluster prod". */
static void guest_words(char *buf, size_t size, const char *cluster,
                        const char *vmid) {
  if (cluster[0] != '\0')
    snprintf(buf, size, "guest %s of cluster %s", vmid, cluster);
  else
    snprintf(buf, size, "guest %s", vmid);
}

/* What settles the file meanwhile: pvecg check --owners where the owners
 * are kept on disk; else only a restart forgets. */
static void settle_words(const struct rrd_sink *s, const char *cluster,
                         const struct rrd_layout *layout, const char *vmid,
                         const char *host, char *buf, size_t size) {
  char label[2 * RRD_STORE_NAME_MAX + 32];
  if (!s->owners_kept || rrd_cluster_file_path(NULL, cluster, layout, vmid,
                                               label, sizeof(label)) != 0) {
    snprintf(buf, size,
             "The owners are kept in memory only here: a restart of collectd "
             "forgets the collision.");
    return;
  }
  snprintf(buf, size,
           "\"pvecg check --owners --data-dir %s --give %s %s\" hands the "
           "file to %s, \"pvecg check --owners --data-dir %s --forget %s\" "
           "forgets the collision.",
           s->data_dir, label, host, host, s->data_dir, label);
}

/* The collision's line names the setting that fixes it, pve_rrd's
 * <Cluster> blocks (or StandaloneHosts), which give each cluster its own
 * directory, and the command that settles the file meanwhile. */
static void log_collision(struct rrd_sink *s, const struct rrd_layout *layout,
                          const char *cluster, const char *vmid,
                          const struct rrd_owner_news *news) {
  /* room for the longest paths and host names; the log may cut it */
  char message[MESSAGE_SIZE + 4 * PATH_MAX + 8 * RRD_OWNER_HOST_SIZE];
  char path[PATH_MAX], since[32] = "?", owner[RRD_OWNER_HOST_SIZE + 32];
  char guest[2 * RRD_STORE_NAME_MAX + 32], settle[3 * PATH_MAX];
  if (rrd_store_path(s->store, layout, cluster, vmid, path, sizeof(path)) != 0)
    snprintf(path, sizeof(path), "%s/%s", layout->name, vmid);
  guest_words(guest, sizeof(guest), cluster, vmid);
  time_t t = (time_t)news->since;
  struct tm tm;
  if (gmtime_r(&t, &tm) != NULL)
    strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S UTC", &tm);
  snprintf(owner, sizeof(owner), "%s", news->other[0] ? news->other : "?");
  settle_words(s, cluster, layout, vmid, news->host, settle, sizeof(settle));
  snprintf(
      message, sizeof(message),
      "%s is reported by both %s and %s (since %s): its file %s stays "
      "with %s, and the rows from %s are dropped, also once %s stops "
      "reporting it (logged again hourly while they come). If %s and %s are "
      "in different clusters or are standalone hosts that share VMIDs, "
      "put each cluster's hosts in a <Cluster> block of pve_rrd's "
      "configuration (Host \"%s\" in one, Host \"%s\" in another, or "
      "StandaloneHosts true for hosts of their own; see \"Cluster\" in "
      "collectd-pve_rrd(5)). %s",
      guest, news->other[0] ? news->other : "its former owner", news->host,
      since, path, news->other[0] ? news->other : "nobody", news->host, owner,
      owner, news->host, owner, news->host, settle);
  s->log(s->log_ctx, RRD_SINK_ERROR, message);
}

/* Two nodes of one configured cluster: a live migration longer than the
 * window, unless the block holds two clusters. */
static void log_long_migration(struct rrd_sink *s,
                               const struct rrd_layout *layout,
                               const char *cluster, const char *vmid,
                               const struct rrd_owner_news *news) {
  char message[MESSAGE_SIZE + PATH_MAX + 8 * RRD_OWNER_HOST_SIZE];
  char path[PATH_MAX], guest[2 * RRD_STORE_NAME_MAX + 32];
  if (rrd_store_path(s->store, layout, cluster, vmid, path, sizeof(path)) != 0)
    snprintf(path, sizeof(path), "%s/%s", layout->name, vmid);
  guest_words(guest, sizeof(guest), cluster, vmid);
  snprintf(message, sizeof(message),
           "%s is reported by both %s and %s: its file %s stays with %s while "
           "%s reports it, and the rows from %s are dropped meanwhile. Both "
           "are in cluster %s, so this is taken for a live migration that "
           "takes longer than %g s: %s takes over once %s stops reporting the "
           "guest. If they are in fact different clusters, give each its own "
           "<Cluster> block.",
           guest, news->other, news->host, path, news->other, news->other,
           news->host, cluster, news->window, news->host, news->other);
  s->log(s->log_ctx, RRD_SINK_WARNING, message);
}

void rrd_sink_log_owner(struct rrd_sink *s, const struct rrd_layout *layout,
                        const char *cluster, const char *vmid,
                        const struct rrd_owner_news *news) {
  char message[MESSAGE_SIZE], guest[2 * RRD_STORE_NAME_MAX + 32];
  if (news->kind == RRD_OWNER_COLLISION && !news->marked) {
    log_long_migration(s, layout, cluster, vmid, news);
  } else if (news->kind == RRD_OWNER_COLLISION) {
    log_collision(s, layout, cluster, vmid, news);
  } else if (news->kind == RRD_OWNER_MIGRATED) {
    guest_words(guest, sizeof(guest), cluster, vmid);
    snprintf(message, sizeof(message), "%s now reported by %s, was %s.", guest,
             news->host, news->other);
    s->log(s->log_ctx, RRD_SINK_INFO, message);
  }
}

void rrd_sink_log_rows_lost(struct rrd_sink *s, size_t left, bool connected) {
  char message[MESSAGE_SIZE];
  snprintf(message, sizeof(message),
           "%zu rows for rrdcached at %s are lost: %s at shutdown.", left,
           address(s),
           connected ? "they could not all be written in time"
                     : "the daemon was unreachable");
  s->log(s->log_ctx, RRD_SINK_ERROR, message);
}

void rrd_sink_log_giving_up(struct rrd_sink *s, size_t left) {
  char message[MESSAGE_SIZE], rows[64] = "";
  if (left > 0)
    snprintf(rows, sizeof(rows), " and on the %zu rows still queued for it",
             left);
  snprintf(message, sizeof(message),
           "rrdcached at %s has not answered for %.0f s at shutdown: giving "
           "up on it%s.",
           address(s), s->timeout, rows);
  s->log(s->log_ctx, RRD_SINK_ERROR, message);
}

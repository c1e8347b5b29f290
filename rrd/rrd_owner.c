/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (see rrd_owner.h): the rule that
 * tells a migration from a collision, the rival hosts of a guest, the
 * hosts seen colliding and the collisions already said, under one lock.
 * The entries' memory is rrd_owner_table.c's; the owners to and from
 * records, rrd_owner_state.c's.
 */
#include "rrd_owner_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often forgotten guests are looked for, s: a walk of the table. */
#define SWEEP_EVERY 600.0

static time_t wall_now(void) { return time(NULL); }

int rrd_owner_new(struct rrd_owner **ret) {
  struct rrd_owner *o = calloc(1, sizeof(*o));
  if (o == NULL)
    return -ENOMEM;
  if (owner_table_init(&o->table) != 0) {
    free(o);
    return -ENOMEM;
  }
  if (pthread_mutex_init(&o->lock, NULL) != 0) {
    owner_table_destroy(&o->table);
    free(o);
    return -ENOMEM;
  }
  o->wall = wall_now;
  *ret = o;
  return 0;
}

void rrd_owner_set_wall_clock(struct rrd_owner *o, time_t (*wall)(void)) {
  o->wall = wall != NULL ? wall : wall_now;
}

void rrd_owner_free(struct rrd_owner *o) {
  if (o == NULL)
    return;
  owner_table_destroy(&o->table);
  pthread_mutex_destroy(&o->lock);
  free(o);
}

/* ---- claims ------------------------------------------------------------ */

double rrd_owner_window(double interval) {
  return RRD_OWNER_WINDOW_INTERVALS *
         (interval > 0 ? interval : RRD_OWNER_DEFAULT_INTERVAL);
}

/* Longer names than collectd makes compare by what is kept of them. */
static bool is_host(const struct owner_claim *c, const char *host) {
  return c->in_use && strncmp(c->host, host, OWNER_HOST_SIZE - 1) == 0;
}

static void claim(struct owner_claim *c, const char *host, double interval,
                  double now) {
  c->in_use = true;
  snprintf(c->host, sizeof(c->host), "%s", host);
  c->first = c->last = now;
  c->interval = interval;
}

/* interval 0: a row that says nothing of the host's pace (a guest's
 * once-a-minute KSM or stall-time row): the one known is kept. */
static void heard(struct owner_claim *c, double interval, double now) {
  c->last = now;
  if (interval > 0)
    c->interval = interval;
}

/* The claim's host has sent no row for longer than its window. */
static bool silent(const struct owner_claim *c, double now) {
  return now - c->last > rrd_owner_window(c->interval);
}

/* ---- a disputed guest -------------------------------------------------- */

/* The rival slot of host: its own, one whose host went quiet, a new one,
 * or at the limit the one heard from least recently; NULL without
 * memory. */
static struct owner_claim *rival_of(struct owner_entry *e, const char *host,
                                    double now) {
  struct owner_dispute *d = e->dispute;
  struct owner_claim *spare = NULL, *oldest = NULL;
  for (size_t i = 0; d != NULL && i < d->rival_count; i++) {
    struct owner_claim *r = &d->rivals[i];
    if (is_host(r, host))
      return r;
    if (spare == NULL && (!r->in_use || silent(r, now)))
      spare = r;
    if (oldest == NULL || r->last < oldest->last)
      oldest = r;
  }
  if (spare == NULL && (spare = owner_table_add_rival(e)) == NULL)
    spare = oldest;
  if (spare != NULL)
    spare->in_use = false;
  return spare;
}

static bool pair_is(const struct owner_pair *p, const char *a, const char *b) {
  return (strcmp(p->a, a) == 0 && strcmp(p->b, b) == 0) ||
         (strcmp(p->a, b) == 0 && strcmp(p->b, a) == 0);
}

/* Whether the collision of a and b (either way round) was told less than
 * RRD_OWNER_SAY_AGAIN ago; if not, it is now.  Without memory to remember
 * it, it stays untold rather than being told with every row. */
static bool said_lately(struct owner_entry *e, const char *a, const char *b,
                        double now) {
  struct owner_dispute *d = e->dispute;
  for (size_t i = 0; i < d->said_count; i++)
    if (pair_is(&d->said[i], a, b)) {
      if (now - d->said[i].said_at < RRD_OWNER_SAY_AGAIN)
        return true;
      d->said[i].said_at = now;
      return false;
    }
  struct owner_pair *p = owner_table_add_pair(e);
  if (p == NULL && d->said_count < OWNER_PAIRS_MAX)
    return true;
  if (p == NULL) { /* full: the oldest makes room */
    p = &d->said[d->said_next];
    d->said_next = (d->said_next + 1) % OWNER_PAIRS_MAX;
  }
  snprintf(p->a, sizeof(p->a), "%s", a);
  snprintf(p->b, sizeof(p->b), "%s", b);
  p->said_at = now;
  return false;
}

/* Remembers that host was seen colliding since (s since the epoch); the
 * mark made first gives way when there are too many. */
static void mark(struct rrd_owner *o, struct owner_entry *e, const char *host,
                 long long since) {
  struct owner_mark *m = owner_table_add_mark(e);
  if (m == NULL && e->dispute != NULL && e->dispute->mark_count > 0) {
    m = &e->dispute->marks[e->dispute->mark_next];
    e->dispute->mark_next =
        (e->dispute->mark_next + 1) % e->dispute->mark_count;
  }
  if (m == NULL)
    return; /* no memory: it stays a rival, refused while the owner reports */
  snprintf(m->host, sizeof(m->host), "%s", host);
  m->since = since;
  o->changes++;
}

/* The news of a collision of host with the owner, unless told lately. */
static void tell(struct owner_entry *e, const char *host, long long since,
                 bool marked, double now, struct rrd_owner_news *news) {
  const char *owner = e->owner.in_use ? e->owner.host : "";
  if (said_lately(e, owner, host, now))
    return;
  news->kind = RRD_OWNER_COLLISION;
  snprintf(news->host, sizeof(news->host), "%s", host);
  snprintf(news->other, sizeof(news->other), "%s", owner);
  news->since = since;
  news->marked = marked;
  news->window = rrd_owner_window(e->owner.interval);
}

/* Another host's row while the owner reports the guest: refused, and once
 * both have reported it for longer than the owner's window, a collision.
 * The overlap ends at the owner's latest row, not now: an owner that
 * stopped (the source of a live migration) hands over without one.
 *
 * In the data directory's own files nothing says which hosts are one
 * cluster, and the other host is marked: never its file.  In a named
 * cluster's directory the configuration says the two are nodes of one
 * cluster, whose VMIDs are unique: this is a live migration that takes
 * longer than the window (a guest with much memory), told but not marked,
 * and the file passes on once the owner stops. */
static void contend(struct rrd_owner *o, struct owner_entry *e,
                    const char *host, double interval, double now,
                    struct rrd_owner_news *news) {
  struct owner_claim *r = rival_of(e, host, now);
  if (r == NULL)
    return; /* refused all the same, only not told apart */
  if (!r->in_use || silent(r, now))
    claim(r, host, interval, now); /* it begins (again) */
  else
    heard(r, interval, now);
  if (e->owner.last - r->first <= rrd_owner_window(e->owner.interval))
    return;
  long long since = (long long)o->wall() - (long long)(now - r->first);
  if (e->key.cluster[0] != '\0') {
    tell(e, r->host, since, false, now, news);
    return;
  }
  mark(o, e, r->host, since);
  r->in_use = false;
  const struct owner_mark *m = owner_table_mark_of(e, host);
  if (m != NULL)
    tell(e, m->host, m->since, true, now, news);
}

/* The owner has gone quiet: the file passes to host. */
static void migrate(struct owner_entry *e, const char *host, double interval,
                    double now, struct rrd_owner_news *news) {
  news->kind = RRD_OWNER_MIGRATED;
  snprintf(news->host, sizeof(news->host), "%s", host);
  snprintf(news->other, sizeof(news->other), "%s", e->owner.host);
  claim(&e->owner, host, interval, now);
  for (size_t i = 0; e->dispute != NULL && i < e->dispute->rival_count; i++)
    if (is_host(&e->dispute->rivals[i], host))
      e->dispute->rivals[i].in_use = false;
}

/* ---- rows -------------------------------------------------------------- */

/* Nobody reported it for a day, and no host is marked for it. */
static bool forgotten(const struct owner_entry *e, void *ctx) {
  double now = *(const double *)ctx;
  return (e->dispute == NULL || e->dispute->mark_count == 0) &&
         now - e->seen >
             fmax(RRD_OWNER_EXPIRY, rrd_owner_window(e->owner.interval));
}

static void sweep(struct rrd_owner *o, double now) {
  if (now < o->next_sweep)
    return;
  if (owner_table_drop(&o->table, forgotten, &now) > 0)
    o->changes++;
  o->next_sweep = now + SWEEP_EVERY;
}

/* A guest with an owner, or with none known: which host's row is written. */
static bool settle_row(struct rrd_owner *o, struct owner_entry *e,
                       const char *host, double interval, double now,
                       struct rrd_owner_news *news) {
  e->seen = now;
  if (is_host(&e->owner, host)) {
    heard(&e->owner, interval, now);
    return true;
  }
  const struct owner_mark *m = owner_table_mark_of(e, host);
  if (m != NULL) { /* seen colliding: never the owner */
    tell(e, m->host, m->since, true, now, news);
    return false;
  }
  if (e->owner.in_use && !silent(&e->owner, now)) {
    contend(o, e, host, interval, now, news);
    return false;
  }
  if (e->owner.in_use)
    migrate(e, host, interval, now, news);
  else
    claim(&e->owner, host, interval, now); /* owner unknown: first wins */
  o->changes++;
  return true;
}

static bool decide(struct rrd_owner *o, const struct rrd_layout *layout,
                   const char *cluster, const char *name, const char *host,
                   double interval, double now, struct rrd_owner_news *news) {
  struct owner_entry *e = owner_table_find(&o->table, layout, cluster, name);
  if (e == NULL &&
      (e = owner_table_add(&o->table, layout, cluster, name)) == NULL)
    return false;
  return settle_row(o, e, host, interval, now, news);
}

bool rrd_owner_admit(struct rrd_owner *o, const struct rrd_layout *layout,
                     const char *cluster, const char *name, const char *host,
                     double interval, double now, struct rrd_owner_news *news) {
  news->kind = RRD_OWNER_QUIET;
  pthread_mutex_lock(&o->lock);
  sweep(o, now);
  bool admitted = decide(o, layout, cluster ? cluster : "", name, host,
                         interval, now, news);
  if (!admitted)
    o->refused++;
  pthread_mutex_unlock(&o->lock);
  return admitted;
}

unsigned long long rrd_owner_refused(struct rrd_owner *o) {
  pthread_mutex_lock(&o->lock);
  unsigned long long n = o->refused;
  pthread_mutex_unlock(&o->lock);
  return n;
}

size_t rrd_owner_count(struct rrd_owner *o) {
  pthread_mutex_lock(&o->lock);
  size_t n = o->table.keyed.entry_count;
  pthread_mutex_unlock(&o->lock);
  return n;
}

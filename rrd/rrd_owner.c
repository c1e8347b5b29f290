/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (see rrd_owner.h): the rule that
 * tells a migration from a collision, the rival hosts of a guest and the
 * collisions already said, under one lock.  The entries' memory is
 * rrd_owner_table.c's.
 */
#include "rrd_owner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often forgotten guests are looked for, s: a walk of the table. */
#define SWEEP_EVERY 600.0

struct rrd_owner {
  pthread_mutex_t lock;
  struct owner_table table;
  double next_sweep;
  unsigned long long refused;
};

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
  *ret = o;
  return 0;
}

void rrd_owner_free(struct rrd_owner *o) {
  if (o == NULL)
    return;
  owner_table_destroy(&o->table);
  pthread_mutex_destroy(&o->lock);
  free(o);
}

/* ---- claims ------------------------------------------------------------ */

static double window_of(double interval) {
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

static void heard(struct owner_claim *c, double interval, double now) {
  c->last = now;
  c->interval = interval;
}

/* The claim's host has sent no row for longer than its window. */
static bool silent(const struct owner_claim *c, double now) {
  return now - c->last > window_of(c->interval);
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

/* Whether the collision of a and b (either way round) was told before; if
 * not, it is now.  Without memory to remember it, it stays untold rather
 * than being told with every row. */
static bool said_before(struct owner_entry *e, const char *a, const char *b) {
  struct owner_dispute *d = e->dispute;
  for (size_t i = 0; i < d->said_count; i++)
    if (pair_is(&d->said[i], a, b))
      return true;
  struct owner_pair *p = owner_table_add_pair(e);
  if (p == NULL && d->said_count < OWNER_PAIRS_MAX)
    return true;
  if (p == NULL) { /* full: the oldest makes room */
    p = &d->said[d->said_next];
    d->said_next = (d->said_next + 1) % OWNER_PAIRS_MAX;
  }
  snprintf(p->a, sizeof(p->a), "%s", a);
  snprintf(p->b, sizeof(p->b), "%s", b);
  return false;
}

/* Another host's row while the owner reports the guest: refused, and once
 * both have reported it for longer than the owner's window, a collision.
 * The overlap ends at the owner's latest row, not now: an owner that
 * stopped (the source of a live migration) hands over without one. */
static void contend(struct owner_entry *e, const char *host, double interval,
                    double now, struct rrd_owner_news *news) {
  struct owner_claim *r = rival_of(e, host, now);
  if (r == NULL)
    return; /* refused all the same, only not told apart */
  if (!r->in_use || silent(r, now))
    claim(r, host, interval, now); /* it begins (again) */
  else
    heard(r, interval, now);
  double window = window_of(e->owner.interval);
  if (e->owner.last - r->first <= window ||
      said_before(e, e->owner.host, r->host))
    return;
  news->kind = RRD_OWNER_COLLISION;
  snprintf(news->host, sizeof(news->host), "%s", host);
  snprintf(news->other, sizeof(news->other), "%s", e->owner.host);
  news->window = window;
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

static bool forgotten(const struct owner_entry *e, void *ctx) {
  double now = *(const double *)ctx;
  return now - e->seen > fmax(RRD_OWNER_EXPIRY, window_of(e->owner.interval));
}

static void sweep(struct rrd_owner *o, double now) {
  if (now < o->next_sweep)
    return;
  owner_table_drop(&o->table, forgotten, &now);
  o->next_sweep = now + SWEEP_EVERY;
}

static bool decide(struct rrd_owner *o, const struct rrd_layout *layout,
                   const char *cluster, const char *name, const char *host,
                   double interval, double now, struct rrd_owner_news *news) {
  struct owner_entry *e = owner_table_find(&o->table, layout, cluster, name);
  if (e == NULL) {
    if ((e = owner_table_add(&o->table, layout, cluster, name)) == NULL)
      return false;
    claim(&e->owner, host, interval, now); /* the first to report it */
  } else if (is_host(&e->owner, host)) {
    heard(&e->owner, interval, now);
  } else if (silent(&e->owner, now)) {
    migrate(e, host, interval, now, news);
  } else {
    e->seen = now;
    contend(e, host, interval, now, news);
    return false;
  }
  e->seen = now;
  return true;
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
  size_t n = o->table.entry_count;
  pthread_mutex_unlock(&o->lock);
  return n;
}

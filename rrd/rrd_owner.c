/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (see rrd_owner.h): one entry per
 * guest's file in a keyed table, the rule, and the entries to and from the
 * owners file's records, under one mutex.
 */
#include "rrd_owner.h"

#include "rrd_keyed_table.h"

#include "pvecg/grow.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_EVERY 600.0 /* s between looks for guests to forget */
/* Other hosts kept per guest; beyond, the unmarked one whose latest row is
 * oldest makes room: a bound against a flood of host names. */
#define OTHERS_MAX 64

struct owner_claim {              /* a host reporting the guest */
  char host[RRD_OWNER_HOST_SIZE]; /* "": none */
  double first, last;             /* its rows since it began (again), s */
  double interval;                /* between its rows, s */
};

struct owner_other { /* a host whose rows are refused */
  struct owner_other *next;
  struct owner_claim claim;
  bool marked;      /* seen colliding: never the owner */
  long long since;  /* seen colliding since, s since the epoch */
  double logged_at; /* its collision with the owner, s */
};

struct owner_entry {
  struct rrd_keyed key; /* first: the table's (layout, cluster, name) */
  struct owner_claim owner;
  struct owner_other *others; /* NULL but for a disputed guest */
  double seen;                /* the latest row of any host, s */
};

/* What is kept per guest's file, bounded so a day of guests stays small. */
_Static_assert(sizeof(struct owner_entry) <= 512, "an owner entry grew");

struct rrd_owner {
  pthread_mutex_t lock;
  struct rrd_keyed_table table;
  double next_sweep;
  unsigned long long refused, changes;
  time_t (*wall)(void);
};

static time_t wall_now(void) { return time(NULL); }

int rrd_owner_new(struct rrd_owner **ret) {
  struct rrd_owner *o = calloc(1, sizeof(*o));
  if (o == NULL || rrd_keyed_table_init(&o->table) != 0) {
    free(o);
    return -ENOMEM;
  }
  pthread_mutex_init(&o->lock, NULL);
  o->wall = wall_now;
  *ret = o;
  return 0;
}

static void release(struct rrd_keyed *k) {
  struct owner_entry *e = (struct owner_entry *)k;
  for (struct owner_other *x = e->others, *next; x != NULL; x = next) {
    next = x->next;
    free(x);
  }
  free(e);
}

void rrd_owner_free(struct rrd_owner *o) {
  if (o == NULL)
    return;
  rrd_keyed_table_destroy(&o->table, release);
  pthread_mutex_destroy(&o->lock);
  free(o);
}

void rrd_owner_set_wall_clock(struct rrd_owner *o, time_t (*wall)(void)) {
  o->wall = wall != NULL ? wall : wall_now;
}

static double window(double interval) {
  return RRD_OWNER_WINDOW_INTERVALS *
         (interval > 0 ? interval : RRD_OWNER_DEFAULT_INTERVAL);
}

/* Longer names than collectd makes compare by what is kept of them. */
static bool is_host(const struct owner_claim *c, const char *host) {
  return c->host[0] && strncmp(c->host, host, RRD_OWNER_HOST_SIZE - 1) == 0;
}

static bool owner_quiet(const struct owner_claim *c, double now) {
  return now - c->last > window(c->interval);
}

/* interval 0: a once-a-minute row says nothing of the host's pace. */
static void note_row(struct owner_claim *c, const char *host, double interval,
                     double now) {
  bool same = is_host(c, host);
  if (!same) {
    snprintf(c->host, sizeof(c->host), "%s", host);
    c->interval = 0;
  }
  if (!same || owner_quiet(c, now))
    c->first = now; /* it begins (again) */
  c->last = now;
  c->interval = interval > 0 ? interval : c->interval;
}

static struct owner_other **other_link(struct owner_entry *e,
                                       const char *host) {
  struct owner_other **p = &e->others;
  while (*p != NULL && !is_host(&(*p)->claim, host))
    p = &(*p)->next;
  return p;
}

static void other_remove(struct owner_entry *e, const char *host) {
  struct owner_other **p = other_link(e, host), *x = *p;
  if (x != NULL) {
    *p = x->next;
    free(x);
  }
}

/* host's record, or a new one; NULL without memory or room. */
static struct owner_other *other_add(struct owner_entry *e, const char *host) {
  struct owner_other *x = *other_link(e, host), *oldest = NULL;
  size_t n = 0;
  for (struct owner_other *y = e->others; !x && y; y = y->next, n++)
    if (!y->marked && (!oldest || y->claim.last < oldest->claim.last))
      oldest = y;
  if (x == NULL && n >= OTHERS_MAX && oldest != NULL) {
    struct owner_other *next = oldest->next;
    *(x = oldest) = (struct owner_other){.next = next};
  } else if (x == NULL && n < OTHERS_MAX &&
             (x = calloc(1, sizeof(*x))) != NULL) {
    x->next = e->others;
    e->others = x;
  }
  return x;
}

/* The file passes to host (or none); its record as another host goes. */
static void new_owner(struct rrd_owner *o, struct owner_entry *e,
                      const char *host, double interval, double now) {
  e->owner.host[0] = '\0';
  if (host != NULL)
    note_row(&e->owner, host, interval, now);
  if (host != NULL)
    other_remove(e, host);
  o->changes++;
}

/* x's collision with the owner, unless logged since this owner took the
 * file and within the hour. */
static void log_once(struct owner_entry *e, struct owner_other *x, double now,
                     struct rrd_owner_news *news) {
  if (x->logged_at > 0 && x->logged_at >= e->owner.first &&
      now - x->logged_at < RRD_OWNER_LOG_AGAIN)
    return;
  x->logged_at = now;
  news->kind = RRD_OWNER_COLLISION;
  snprintf(news->host, sizeof(news->host), "%s", x->claim.host);
  snprintf(news->other, sizeof(news->other), "%s", e->owner.host);
  news->since = x->since;
  news->marked = x->marked;
  news->window = window(e->owner.interval);
}

/* Another host while the owner reports: refused, and once both reported
 * the guest for longer than the owner's window, a collision.  The overlap
 * ends at the owner's latest row: an owner that stopped (the source of a
 * live migration) hands over without one.  Marked only in the data
 * directory's own files, where nothing says which hosts are one cluster. */
static void refuse_other(struct rrd_owner *o, struct owner_entry *e,
                         const char *host, double interval, double now,
                         struct rrd_owner_news *news) {
  struct owner_other *x = other_add(e, host);
  if (x == NULL)
    return; /* refused all the same */
  note_row(&x->claim, host, interval, now);
  if (e->owner.last - x->claim.first <= window(e->owner.interval))
    return;
  x->since = (long long)o->wall() - (long long)(now - x->claim.first);
  if (e->key.cluster[0] == '\0') {
    x->marked = true;
    o->changes++;
  }
  log_once(e, x, now, news);
}

static bool decide(struct rrd_owner *o, struct owner_entry *e, const char *host,
                   double interval, double now, struct rrd_owner_news *news) {
  struct owner_other *x = *other_link(e, host);
  e->seen = now;
  if (is_host(&e->owner, host)) {
    note_row(&e->owner, host, interval, now);
    return true;
  }
  if (x != NULL && x->marked) {
    log_once(e, x, now, news);
    return false;
  }
  if (e->owner.host[0] && !owner_quiet(&e->owner, now)) {
    refuse_other(o, e, host, interval, now, news);
    return false;
  }
  if (e->owner.host[0]) { /* the owner went quiet: a migration */
    news->kind = RRD_OWNER_MIGRATED;
    snprintf(news->host, sizeof(news->host), "%s", host);
    snprintf(news->other, sizeof(news->other), "%s", e->owner.host);
  }
  new_owner(o, e, host, interval, now);
  return true;
}

static struct owner_entry *entry_of(struct rrd_owner *o,
                                    const struct rrd_layout *layout,
                                    const char *cluster, const char *name) {
  struct rrd_keyed *k = rrd_keyed_table_find(&o->table, layout, cluster, name);
  if (k == NULL && (k = calloc(1, sizeof(struct owner_entry))) != NULL) {
    rrd_keyed_set(k, layout, cluster, name);
    rrd_keyed_table_insert(&o->table, k);
  }
  return (struct owner_entry *)k;
}

/* Nobody reported it for a day, and no host is marked for it. */
static bool forgotten(const struct rrd_keyed *k, void *now) {
  const struct owner_entry *e = (const struct owner_entry *)k;
  for (const struct owner_other *x = e->others; x != NULL; x = x->next)
    if (x->marked)
      return false;
  return *(double *)now - e->seen >
         fmax(RRD_OWNER_EXPIRY, window(e->owner.interval));
}

bool rrd_owner_admit(struct rrd_owner *o, const struct rrd_layout *layout,
                     const char *cluster, const char *name, const char *host,
                     double interval, double now, struct rrd_owner_news *news) {
  news->kind = RRD_OWNER_QUIET;
  pthread_mutex_lock(&o->lock);
  if (now >= o->next_sweep) {
    o->changes += rrd_keyed_table_drop(&o->table, forgotten, release, &now);
    o->next_sweep = now + SWEEP_EVERY;
  }
  struct owner_entry *e = entry_of(o, layout, cluster ? cluster : "", name);
  bool admitted = e != NULL && decide(o, e, host, interval, now, news);
  o->refused += !admitted;
  pthread_mutex_unlock(&o->lock);
  return admitted;
}

unsigned long long rrd_owner_refused(struct rrd_owner *o) {
  pthread_mutex_lock(&o->lock);
  unsigned long long n = o->refused;
  pthread_mutex_unlock(&o->lock);
  return n;
}

unsigned long long rrd_owner_changes(struct rrd_owner *o) {
  pthread_mutex_lock(&o->lock);
  unsigned long long n = o->changes;
  pthread_mutex_unlock(&o->lock);
  return n;
}

size_t rrd_owner_count(struct rrd_owner *o) {
  pthread_mutex_lock(&o->lock);
  size_t n = o->table.entry_count;
  pthread_mutex_unlock(&o->lock);
  return n;
}

struct records {
  struct rrd_owner_record *r;
  size_t n, size;
};

static int put(struct records *s, const struct owner_entry *e, const char *host,
               const struct owner_other *x) {
  struct rrd_owner_record *r =
      grow_array(s->r, s->n + 1, &s->size, sizeof(*s->r), 64);
  if (r == NULL)
    return -ENOMEM;
  s->r = r;
  r = &r[s->n++];
  *r = (struct rrd_owner_record){.layout = e->key.layout};
  r->kind = x ? RRD_OWNER_RECORD_COLLISION : RRD_OWNER_RECORD_OWNER;
  memcpy(r->cluster, e->key.cluster, sizeof(r->cluster));
  memcpy(r->name, e->key.name, sizeof(r->name));
  snprintf(r->host, sizeof(r->host), "%s", host);
  r->since = x ? x->since : 0;
  r->interval = x                       ? 0
                : e->owner.interval > 0 ? e->owner.interval
                                        : RRD_OWNER_DEFAULT_INTERVAL;
  return 0;
}

static int put_entry(struct rrd_keyed *k, void *records) {
  const struct owner_entry *e = (const struct owner_entry *)k;
  int r = e->owner.host[0] ? put(records, e, e->owner.host, NULL) : 0;
  for (const struct owner_other *x = e->others; r == 0 && x; x = x->next)
    r = x->marked ? put(records, e, x->claim.host, x) : 0;
  return r;
}

int rrd_owner_snapshot(struct rrd_owner *o, struct rrd_owner_record **ret,
                       size_t *count) {
  struct records s = {0};
  pthread_mutex_lock(&o->lock);
  int r = rrd_keyed_table_each(&o->table, put_entry, &s);
  pthread_mutex_unlock(&o->lock);
  if (r != 0)
    free(s.r);
  *ret = r == 0 ? s.r : NULL;
  *count = r == 0 ? s.n : 0;
  return r;
}

static bool names(const struct rrd_owner_record *r, size_t n,
                  enum rrd_owner_record_kind kind, const char *host) {
  for (size_t i = 0; i < n; i++)
    if (r[i].kind == kind && strcmp(r[i].host, host) == 0)
      return true;
  return false;
}

/* The marks the records name, none else; returns whether any went. */
static int replace_marks(struct owner_entry *e,
                         const struct rrd_owner_record *r, size_t n) {
  int forgot = 0;
  for (struct owner_other **p = &e->others, *x; (x = *p) != NULL;) {
    bool goes =
        x->marked && !names(r, n, RRD_OWNER_RECORD_COLLISION, x->claim.host);
    if (goes) { /* its rows start anew too */
      *p = x->next;
      free(x);
      forgot = RRD_OWNER_FORGOTTEN;
    } else {
      p = &x->next;
    }
  }
  for (size_t i = 0; i < n; i++) {
    struct owner_other *x = r[i].kind == RRD_OWNER_RECORD_COLLISION
                                ? other_add(e, r[i].host)
                                : NULL;
    if (r[i].kind == RRD_OWNER_RECORD_COLLISION && x == NULL)
      return -ENOMEM;
    if (x != NULL && !x->marked)
      *x = (struct owner_other){
          .next = x->next, .marked = true, .since = r[i].since};
    if (x != NULL)
      snprintf(x->claim.host, sizeof(x->claim.host), "%s", r[i].host);
  }
  return forgot;
}

int rrd_owner_replace(struct rrd_owner *o, const struct rrd_owner_record *r,
                      size_t n, double now) {
  const struct rrd_owner_record *owner = NULL;
  for (size_t i = 0; i < n; i++)
    if (r[i].kind == RRD_OWNER_RECORD_OWNER &&
        !names(r, n, RRD_OWNER_RECORD_COLLISION, r[i].host))
      owner = &r[i]; /* a host seen colliding is never the owner */
  pthread_mutex_lock(&o->lock);
  struct owner_entry *e = entry_of(o, r->layout, r->cluster, r->name);
  int changed = e != NULL ? replace_marks(e, r, n) : -ENOMEM;
  if (changed >= 0 &&
      !(owner ? is_host(&e->owner, owner->host) : e->owner.host[0] == '\0')) {
    new_owner(o, e, owner ? owner->host : NULL, owner ? owner->interval : 0,
              now);
    changed |= RRD_OWNER_GIVEN;
  }
  o->changes += changed == RRD_OWNER_FORGOTTEN;
  if (e != NULL)
    e->seen = fmax(e->seen, now);
  pthread_mutex_unlock(&o->lock);
  return changed;
}

bool rrd_owner_drop(struct rrd_owner *o, const struct rrd_layout *layout,
                    const char *cluster, const char *name, double now,
                    double quiet) {
  pthread_mutex_lock(&o->lock);
  struct rrd_keyed *k = rrd_keyed_table_find(&o->table, layout, cluster, name);
  bool drop = k != NULL && now - ((struct owner_entry *)k)->seen >= quiet;
  if (drop) {
    rrd_keyed_table_remove(&o->table, k);
    release(k);
    o->changes++;
  }
  pthread_mutex_unlock(&o->lock);
  return drop;
}

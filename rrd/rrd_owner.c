/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (see rrd_owner.h): one small entry
 * per guest's file in a hash table, host and cluster names kept once, the
 * rule, and the entries to and from the owners file's lines and records,
 * under one mutex.
 */
#include "rrd_owner.h"

#include "rrd_keyed_table.h"

#include "pvecg/grow.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_EVERY 600.0 /* s between looks for guests to forget */
/* Other hosts kept per guest; beyond, the unmarked one whose latest row is
 * oldest makes room: a bound against a flood of host names. */
#define OTHERS_MAX 64
#define INITIAL_BUCKETS 64

/* Host and cluster names, kept once however many files name them: the
 * hosts are the nodes, few, where guests' files are many. */
struct word {
  struct word *next;
  size_t refs;
  char s[];
};

struct owner_claim {  /* a host reporting the guest */
  const char *host;   /* a word's; NULL: none */
  double first, last; /* its rows since it began (again), s */
  double interval;    /* between its rows, s */
};

struct owner_other { /* a host whose rows are refused */
  struct owner_other *next;
  struct owner_claim claim;
  bool marked;      /* seen colliding: never the owner */
  long long since;  /* seen colliding since, s since the epoch */
  double logged_at; /* its collision with the owner, s */
};

struct owner_entry {
  struct owner_entry *next; /* the bucket's chain */
  const struct rrd_layout *layout;
  const char *cluster; /* a word's; NULL: the data directory's own */
  struct owner_claim owner;
  struct owner_other *others; /* NULL but for a disputed guest */
  double seen;                /* the latest row of any host, s */
  char name[];
};

/* What is kept per guest's file: under churn every new guest adds one. */
_Static_assert(sizeof(struct owner_entry) <= 80, "an owner entry grew");

struct rrd_owner {
  pthread_mutex_t lock;
  struct owner_entry **buckets;
  size_t bucket_count, count; /* a power of two; entries */
  struct word *words;
  struct owner_entry **order; /* kept for formatting the file */
  size_t order_size;
  double next_sweep;
  unsigned long long refused, changes;
  time_t (*wall)(void);
};

static time_t wall_now(void) { return time(NULL); }

/* ---- words: host and cluster names, counted ----------------------------- */

/* s's word (cut to max bytes), one more reference; NULL without memory. */
static const char *word_get(struct rrd_owner *o, const char *s, size_t max) {
  size_t n = strnlen(s, max);
  struct word *w = o->words;
  while (w != NULL && (strncmp(w->s, s, n) != 0 || w->s[n] != '\0'))
    w = w->next;
  if (w == NULL && (w = malloc(sizeof(*w) + n + 1)) != NULL) {
    *w = (struct word){.next = o->words};
    memcpy(w->s, s, n);
    w->s[n] = '\0';
    o->words = w;
  }
  if (w == NULL)
    return NULL;
  w->refs++;
  return w->s;
}

static void word_put(struct rrd_owner *o, const char *s) {
  if (s == NULL)
    return;
  struct word **p = &o->words;
  while ((*p)->s != s)
    p = &(*p)->next;
  struct word *w = *p;
  if (--w->refs == 0) {
    *p = w->next;
    free(w);
  }
}

/* ---- the table of entries, keyed by (layout, cluster, name) ------------- */

static const char *cluster_of(const struct owner_entry *e) {
  return e->cluster != NULL ? e->cluster : "";
}

static struct owner_entry **bucket_of(const struct rrd_owner *o,
                                      const struct owner_entry *e) {
  size_t h = rrd_keyed_hash(e->layout, cluster_of(e), e->name);
  return &o->buckets[h & (o->bucket_count - 1)];
}

static struct owner_entry **link_of(struct rrd_owner *o,
                                    const struct rrd_layout *layout,
                                    const char *cluster, const char *name) {
  size_t h = rrd_keyed_hash(layout, cluster, name);
  struct owner_entry **p = &o->buckets[h & (o->bucket_count - 1)];
  while (*p != NULL &&
         ((*p)->layout != layout || strcmp((*p)->name, name) != 0 ||
          strcmp(cluster_of(*p), cluster) != 0))
    p = &(*p)->next;
  return p;
}

/* Doubles the buckets when there are more entries than buckets; a failed
 * growth only costs speed. */
static void grow(struct rrd_owner *o) {
  struct owner_entry **old = o->buckets;
  size_t old_count = o->bucket_count;
  if (o->count <= old_count ||
      (o->buckets = calloc(2 * old_count, sizeof(*old))) == NULL) {
    o->buckets = old;
    return;
  }
  o->bucket_count *= 2;
  for (size_t i = 0; i < old_count; i++)
    for (struct owner_entry *e = old[i], *next; e != NULL; e = next) {
      next = e->next;
      struct owner_entry **b = bucket_of(o, e);
      e->next = *b;
      *b = e;
    }
  free(old);
}

static void release(struct rrd_owner *o, struct owner_entry *e) {
  for (struct owner_other *x = e->others, *next; x != NULL; x = next) {
    next = x->next;
    word_put(o, x->claim.host);
    free(x);
  }
  word_put(o, e->owner.host);
  word_put(o, e->cluster);
  free(e);
}

static void unlink_entry(struct rrd_owner *o, struct owner_entry **p) {
  struct owner_entry *e = *p;
  *p = e->next;
  o->count--;
  release(o, e);
}

/* The entry of the file, made if new; NULL without memory. */
static struct owner_entry *entry_of(struct rrd_owner *o,
                                    const struct rrd_layout *layout,
                                    const char *cluster, const char *name) {
  char key[RRD_STORE_NAME_MAX + 1], club[RRD_STORE_NAME_MAX + 1];
  snprintf(key, sizeof(key), "%s", name); /* cut as the file names are */
  snprintf(club, sizeof(club), "%s", cluster);
  struct owner_entry **p = link_of(o, layout, club, key), *e = *p;
  size_t n = strlen(key) + 1;
  if (e != NULL || (e = calloc(1, sizeof(*e) + n)) == NULL)
    return e;
  e->layout = layout;
  memcpy(e->name, key, n);
  e->cluster = club[0] ? word_get(o, club, sizeof(club)) : NULL;
  if (club[0] && e->cluster == NULL) {
    free(e);
    return NULL;
  }
  *p = e;
  o->count++;
  grow(o);
  return e;
}

int rrd_owner_new(struct rrd_owner **ret) {
  struct rrd_owner *o = calloc(1, sizeof(*o));
  if (o != NULL)
    o->buckets = calloc(INITIAL_BUCKETS, sizeof(*o->buckets));
  if (o == NULL || o->buckets == NULL) {
    free(o);
    return -ENOMEM;
  }
  o->bucket_count = INITIAL_BUCKETS;
  pthread_mutex_init(&o->lock, NULL);
  o->wall = wall_now;
  *ret = o;
  return 0;
}

void rrd_owner_free(struct rrd_owner *o) {
  if (o == NULL)
    return;
  for (size_t i = 0; i < o->bucket_count; i++)
    while (o->buckets[i] != NULL)
      unlink_entry(o, &o->buckets[i]);
  free(o->buckets);
  free(o->order);
  pthread_mutex_destroy(&o->lock);
  free(o);
}

void rrd_owner_set_wall_clock(struct rrd_owner *o, time_t (*wall)(void)) {
  o->wall = wall != NULL ? wall : wall_now;
}

/* ---- the rule ------------------------------------------------------------ */

static double window(double interval) {
  return RRD_OWNER_WINDOW_INTERVALS *
         (interval > 0 ? interval : RRD_OWNER_DEFAULT_INTERVAL);
}

/* Longer names than collectd makes compare by what is kept of them. */
static bool is_host(const struct owner_claim *c, const char *host) {
  return c->host != NULL &&
         strncmp(c->host, host, RRD_OWNER_HOST_SIZE - 1) == 0;
}

static bool owner_quiet(const struct owner_claim *c, double now) {
  return now - c->last > window(c->interval);
}

/* interval 0: a once-a-minute row says nothing of the host's pace.  False
 * without memory for a new host's name. */
static bool note_row(struct rrd_owner *o, struct owner_claim *c,
                     const char *host, double interval, double now) {
  bool same = is_host(c, host);
  if (!same) {
    const char *w = word_get(o, host, RRD_OWNER_HOST_SIZE - 1);
    if (w == NULL)
      return false;
    word_put(o, c->host);
    c->host = w;
    c->interval = 0;
  }
  if (!same || owner_quiet(c, now))
    c->first = now; /* it begins (again) */
  c->last = now;
  c->interval = interval > 0 ? interval : c->interval;
  return true;
}

static struct owner_other **other_link(struct owner_entry *e,
                                       const char *host) {
  struct owner_other **p = &e->others;
  while (*p != NULL && !is_host(&(*p)->claim, host))
    p = &(*p)->next;
  return p;
}

static void other_remove(struct rrd_owner *o, struct owner_other **p) {
  struct owner_other *x = *p;
  *p = x->next;
  word_put(o, x->claim.host);
  free(x);
}

/* host's record, or a new one; NULL without memory or room. */
static struct owner_other *other_add(struct rrd_owner *o, struct owner_entry *e,
                                     const char *host) {
  struct owner_other *x = *other_link(e, host), **oldest = NULL;
  size_t n = 0;
  for (struct owner_other **y = &e->others; !x && *y; y = &(*y)->next, n++)
    if (!(*y)->marked && (!oldest || (*y)->claim.last < (*oldest)->claim.last))
      oldest = y;
  if (x == NULL && n >= OTHERS_MAX && oldest != NULL)
    other_remove(o, oldest);
  if (x == NULL && (n < OTHERS_MAX || oldest != NULL) &&
      (x = calloc(1, sizeof(*x))) != NULL) {
    x->next = e->others;
    e->others = x;
    if (!note_row(o, &x->claim, host, 0, 0)) {
      other_remove(o, &e->others);
      x = NULL;
    }
  }
  return x;
}

/* The file passes to host (or none); its record as another host goes. */
static void new_owner(struct rrd_owner *o, struct owner_entry *e,
                      const char *host, double interval, double now) {
  word_put(o, e->owner.host);
  e->owner.host = NULL;
  if (host != NULL && note_row(o, &e->owner, host, interval, now) &&
      *other_link(e, host) != NULL)
    other_remove(o, other_link(e, host));
  o->changes++;
}

static void news_hosts(struct rrd_owner_news *news, const char *host,
                       const char *other) {
  snprintf(news->host, sizeof(news->host), "%s", host);
  snprintf(news->other, sizeof(news->other), "%s", other ? other : "");
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
  news_hosts(news, x->claim.host, e->owner.host);
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
  struct owner_other *x = other_add(o, e, host);
  if (x == NULL)
    return; /* refused all the same */
  note_row(o, &x->claim, host, interval, now);
  if (e->owner.last - x->claim.first <= window(e->owner.interval))
    return;
  x->since = (long long)o->wall() - (long long)(now - x->claim.first);
  if (e->cluster == NULL) {
    x->marked = true;
    o->changes++;
  }
  log_once(e, x, now, news);
}

static bool decide(struct rrd_owner *o, struct owner_entry *e, const char *host,
                   double interval, double now, struct rrd_owner_news *news) {
  struct owner_other *x = *other_link(e, host);
  e->seen = now;
  if (is_host(&e->owner, host))
    return note_row(o, &e->owner, host, interval, now);
  if (x != NULL && x->marked) {
    log_once(e, x, now, news);
    return false;
  }
  if (e->owner.host != NULL && !owner_quiet(&e->owner, now)) {
    refuse_other(o, e, host, interval, now, news);
    return false;
  }
  if (e->owner.host != NULL) { /* the owner went quiet: a migration */
    news->kind = RRD_OWNER_MIGRATED;
    news_hosts(news, host, e->owner.host);
  }
  new_owner(o, e, host, interval, now);
  return e->owner.host != NULL;
}

/* Nobody reported it for a day, and no host is marked for it. */
static bool forgotten(const struct owner_entry *e, double now) {
  for (const struct owner_other *x = e->others; x != NULL; x = x->next)
    if (x->marked)
      return false;
  return now - e->seen > fmax(RRD_OWNER_EXPIRY, window(e->owner.interval));
}

static void sweep(struct rrd_owner *o, double now) {
  for (size_t i = 0; i < o->bucket_count; i++)
    for (struct owner_entry **p = &o->buckets[i]; *p != NULL;)
      if (forgotten(*p, now)) {
        unlink_entry(o, p);
        o->changes++;
      } else {
        p = &(*p)->next;
      }
}

bool rrd_owner_admit(struct rrd_owner *o, const struct rrd_layout *layout,
                     const char *cluster, const char *name, const char *host,
                     double interval, double now, struct rrd_owner_news *news) {
  news->kind = RRD_OWNER_QUIET;
  pthread_mutex_lock(&o->lock);
  if (now >= o->next_sweep) {
    sweep(o, now);
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
  size_t n = o->count;
  pthread_mutex_unlock(&o->lock);
  return n;
}

/* ---- to and from records ------------------------------------------------- */

static void record_of(struct rrd_owner_record *r, const struct owner_entry *e,
                      const struct owner_other *x) {
  *r = (struct rrd_owner_record){.layout = e->layout};
  r->kind = x ? RRD_OWNER_RECORD_COLLISION : RRD_OWNER_RECORD_OWNER;
  snprintf(r->cluster, sizeof(r->cluster), "%s", cluster_of(e));
  snprintf(r->name, sizeof(r->name), "%s", e->name);
  snprintf(r->host, sizeof(r->host), "%s", x ? x->claim.host : e->owner.host);
  r->since = x ? x->since : 0;
  r->interval = x                       ? 0
                : e->owner.interval > 0 ? e->owner.interval
                                        : RRD_OWNER_DEFAULT_INTERVAL;
}

/* Calls put for the owner and each mark of e, until one fails. */
static int each_record(const struct owner_entry *e,
                       int (*put)(const struct rrd_owner_record *, void *),
                       void *ctx) {
  struct rrd_owner_record r;
  int err = 0;
  if (e->owner.host != NULL) {
    record_of(&r, e, NULL);
    err = put(&r, ctx);
  }
  for (const struct owner_other *x = e->others; err == 0 && x; x = x->next)
    if (x->marked) {
      record_of(&r, e, x);
      err = put(&r, ctx);
    }
  return err;
}

struct records {
  struct rrd_owner_record *r;
  size_t n, size;
  bool marks_only;
};

static int put_record(const struct rrd_owner_record *r, void *ctx) {
  struct records *s = ctx;
  if (s->marks_only && r->kind != RRD_OWNER_RECORD_COLLISION)
    return 0;
  struct rrd_owner_record *grown =
      grow_array(s->r, s->n + 1, &s->size, sizeof(*s->r), 64);
  if (grown == NULL)
    return -ENOMEM;
  s->r = grown;
  s->r[s->n++] = *r;
  return 0;
}

int rrd_owner_snapshot(struct rrd_owner *o, bool marks_only,
                       struct rrd_owner_record **ret, size_t *count) {
  struct records s = {.marks_only = marks_only};
  int r = 0;
  pthread_mutex_lock(&o->lock);
  for (size_t i = 0; r == 0 && i < o->bucket_count; i++)
    for (struct owner_entry *e = o->buckets[i]; r == 0 && e; e = e->next)
      r = each_record(e, put_record, &s);
  pthread_mutex_unlock(&o->lock);
  if (r != 0)
    free(s.r);
  *ret = r == 0 ? s.r : NULL;
  *count = r == 0 ? s.n : 0;
  return r;
}

static int key_order(const struct owner_entry *e,
                     const struct rrd_owner_cursor *c) {
  int r = strcmp(cluster_of(e), c->cluster);
  r = r ? r : strcmp(e->layout->name, c->layout->name);
  return r ? r : strcmp(e->name, c->name);
}

static int entry_order(const void *pa, const void *pb) {
  const struct owner_entry *a = *(struct owner_entry *const *)pa,
                           *b = *(struct owner_entry *const *)pb;
  struct rrd_owner_cursor key = {.layout = b->layout};
  snprintf(key.cluster, sizeof(key.cluster), "%s", cluster_of(b));
  snprintf(key.name, sizeof(key.name), "%s", b->name);
  return key_order(a, &key);
}

/* The entries in the file's order, in a kept array: false without memory. */
static bool sort_entries(struct rrd_owner *o) {
  struct owner_entry **order =
      grow_array(o->order, o->count, &o->order_size, sizeof(*order), 256);
  if (order == NULL)
    return false;
  o->order = order;
  size_t n = 0;
  for (size_t i = 0; i < o->bucket_count; i++)
    for (struct owner_entry *e = o->buckets[i]; e != NULL; e = e->next)
      order[n++] = e;
  if (n > 1)
    qsort(order, n, sizeof(*order), entry_order);
  return true;
}

struct lines {
  char *buf;
  size_t len, size, records;
};

static int put_line(const struct rrd_owner_record *r, void *ctx) {
  struct lines *t = ctx;
  char line[RRD_OWNER_LINE_SIZE];
  size_t n = rrd_owner_file_line(r, line);
  if (t->len + n > t->size)
    return -ENOSPC;
  memcpy(t->buf + t->len, line, n);
  t->len += n;
  t->records++;
  return 0;
}

long rrd_owner_lines(struct rrd_owner *o, struct rrd_owner_cursor *c, char *buf,
                     size_t size, size_t *records) {
  struct lines t = {.buf = buf, .size = size};
  pthread_mutex_lock(&o->lock);
  bool sorted = sort_entries(o);
  size_t i = 0, n = sorted ? o->count : 0;
  while (c->layout != NULL && i < n && key_order(o->order[i], c) <= 0)
    i++;
  for (; i < n; i++) { /* whole files: one that does not fit waits */
    struct lines before = t;
    if (each_record(o->order[i], put_line, &t) != 0) {
      t = before;
      break;
    }
    c->layout = o->order[i]->layout;
    snprintf(c->cluster, sizeof(c->cluster), "%s", cluster_of(o->order[i]));
    snprintf(c->name, sizeof(c->name), "%s", o->order[i]->name);
  }
  pthread_mutex_unlock(&o->lock);
  *records += t.records;
  return sorted ? (long)t.len : -ENOMEM;
}

static bool names(const struct rrd_owner_record *r, size_t n,
                  enum rrd_owner_record_kind kind, const char *host) {
  for (size_t i = 0; i < n; i++)
    if (r[i].kind == kind && strcmp(r[i].host, host) == 0)
      return true;
  return false;
}

/* The marks the records name, none else; returns whether any went. */
static int replace_marks(struct rrd_owner *o, struct owner_entry *e,
                         const struct rrd_owner_record *r, size_t n) {
  int forgot = 0;
  for (struct owner_other **p = &e->others; *p != NULL;)
    if ((*p)->marked &&
        !names(r, n, RRD_OWNER_RECORD_COLLISION, (*p)->claim.host)) {
      other_remove(o, p); /* its rows start anew too */
      forgot = RRD_OWNER_FORGOTTEN;
    } else {
      p = &(*p)->next;
    }
  for (size_t i = 0; i < n; i++) {
    if (r[i].kind != RRD_OWNER_RECORD_COLLISION)
      continue;
    struct owner_other *x = other_add(o, e, r[i].host);
    if (x == NULL)
      return -ENOMEM;
    if (!x->marked)
      *x = (struct owner_other){.next = x->next,
                                .claim = {.host = x->claim.host},
                                .marked = true,
                                .since = r[i].since};
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
  int changed = e != NULL ? replace_marks(o, e, r, n) : -ENOMEM;
  if (changed >= 0 &&
      !(owner ? is_host(&e->owner, owner->host) : e->owner.host == NULL)) {
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
  struct owner_entry **p = link_of(o, layout, cluster, name);
  bool drop = *p != NULL && now - (*p)->seen >= quiet;
  if (drop) {
    unlink_entry(o, p);
    o->changes++;
  }
  pthread_mutex_unlock(&o->lock);
  return drop;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners to and from records (see rrd_owner.h): what the owners file
 * keeps of them, what is taken back at start, and the operator's
 * requests, under the rule's lock.
 */
#include "rrd_owner_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long long rrd_owner_changes(struct rrd_owner *o) {
  pthread_mutex_lock(&o->lock);
  unsigned long long n = o->changes;
  pthread_mutex_unlock(&o->lock);
  return n;
}

/* ---- snapshot ---------------------------------------------------------- */

static size_t records_of(const struct owner_entry *e) {
  return (e->owner.in_use ? 1 : 0) +
         (e->dispute != NULL ? e->dispute->mark_count : 0);
}

static struct rrd_owner_record *key_record(struct rrd_owner_record *r,
                                           const struct owner_entry *e,
                                           enum rrd_owner_record_kind kind,
                                           const char *host) {
  memset(r, 0, sizeof(*r));
  r->kind = kind;
  r->layout = e->key.layout;
  snprintf(r->cluster, sizeof(r->cluster), "%s", e->key.cluster);
  snprintf(r->name, sizeof(r->name), "%s", e->key.name);
  snprintf(r->host, sizeof(r->host), "%s", host);
  return r;
}

static size_t put_entry(struct rrd_owner_record *out,
                        const struct owner_entry *e) {
  size_t n = 0;
  if (e->owner.in_use)
    key_record(&out[n++], e, RRD_OWNER_RECORD_OWNER, e->owner.host)->interval =
        e->owner.interval > 0 ? e->owner.interval : RRD_OWNER_DEFAULT_INTERVAL;
  for (size_t i = 0; e->dispute != NULL && i < e->dispute->mark_count; i++)
    key_record(&out[n++], e, RRD_OWNER_RECORD_COLLISION,
               e->dispute->marks[i].host)
        ->since = e->dispute->marks[i].since;
  return n;
}

static int by_file(const void *pa, const void *pb) {
  const struct rrd_owner_record *a = pa, *b = pb;
  int c = strcmp(a->cluster, b->cluster);
  if (c == 0)
    c = strcmp(a->layout->name, b->layout->name);
  if (c == 0)
    c = strcmp(a->name, b->name);
  if (c == 0)
    c = (int)a->kind - (int)b->kind;
  return c != 0 ? c : strcmp(a->host, b->host);
}

static int count_entry(struct rrd_keyed *k, void *n) {
  *(size_t *)n += records_of((const struct owner_entry *)k);
  return 0;
}

/* Where the entries' records go, one after the other. */
struct record_sink {
  struct rrd_owner_record *r;
  size_t at;
};

static int put_one(struct rrd_keyed *k, void *ctx) {
  struct record_sink *s = ctx;
  s->at += put_entry(&s->r[s->at], (const struct owner_entry *)k);
  return 0;
}

int rrd_owner_snapshot(struct rrd_owner *o, struct rrd_owner_record **ret,
                       size_t *count, unsigned long long *changes) {
  pthread_mutex_lock(&o->lock);
  size_t n = 0;
  rrd_keyed_table_each(&o->table.keyed, count_entry, &n);
  struct rrd_owner_record *r = malloc((n > 0 ? n : 1) * sizeof(*r));
  struct record_sink sink = {r, 0};
  if (r != NULL)
    rrd_keyed_table_each(&o->table.keyed, put_one, &sink);
  size_t at = sink.at;
  *changes = o->changes;
  pthread_mutex_unlock(&o->lock);
  if (r == NULL)
    return -ENOMEM;
  qsort(r, at, sizeof(*r), by_file); /* the same owners, the same file */
  *ret = r;
  *count = at;
  return 0;
}

/* ---- records in -------------------------------------------------------- */

static struct owner_entry *
entry_of(struct rrd_owner *o, const struct rrd_owner_record *r, bool add) {
  struct owner_entry *e =
      owner_table_find(&o->table, r->layout, r->cluster, r->name);
  if (e == NULL && add)
    e = owner_table_add(&o->table, r->layout, r->cluster, r->name);
  return e;
}

static void make_owner(struct owner_entry *e, const char *host, double interval,
                       double now) {
  e->owner.in_use = true;
  snprintf(e->owner.host, sizeof(e->owner.host), "%s", host);
  e->owner.first = e->owner.last = now;
  e->owner.interval = interval;
  e->seen = now;
}

static int restore_mark(struct owner_entry *e,
                        const struct rrd_owner_record *r) {
  if (owner_table_mark_of(e, r->host) != NULL)
    return 0;
  struct owner_mark *m = owner_table_add_mark(e);
  if (m == NULL)
    return -ENOMEM;
  snprintf(m->host, sizeof(m->host), "%s", r->host);
  m->since = r->since;
  if (e->owner.in_use && strcmp(e->owner.host, r->host) == 0)
    e->owner.in_use = false; /* a marked owner is none */
  return 0;
}

int rrd_owner_restore(struct rrd_owner *o, const struct rrd_owner_record *r,
                      double now) {
  if (r->kind != RRD_OWNER_RECORD_OWNER &&
      r->kind != RRD_OWNER_RECORD_COLLISION)
    return -EINVAL;
  pthread_mutex_lock(&o->lock);
  struct owner_entry *e = entry_of(o, r, true);
  int err = e == NULL ? -ENOMEM : 0;
  if (e != NULL && r->kind == RRD_OWNER_RECORD_COLLISION)
    err = restore_mark(e, r);
  else if (e != NULL && owner_table_mark_of(e, r->host) == NULL)
    make_owner(e, r->host, r->interval, now);
  if (e != NULL)
    e->seen = now;
  pthread_mutex_unlock(&o->lock);
  return err;
}

/* GIVE: host owns the file from now on, as if it had just reported it. */
static int give(struct rrd_owner *o, const struct rrd_owner_record *r,
                double now) {
  struct owner_entry *e = entry_of(o, r, true);
  if (e == NULL)
    return -ENOMEM;
  double interval = e->owner.in_use ? e->owner.interval : 0;
  owner_table_unmark(e, r->host);
  make_owner(e, r->host, interval, now);
  for (size_t i = 0; e->dispute != NULL && i < e->dispute->rival_count; i++)
    if (strcmp(e->dispute->rivals[i].host, r->host) == 0)
      e->dispute->rivals[i].in_use = false;
  return 0;
}

int rrd_owner_settle(struct rrd_owner *o, const struct rrd_owner_record *r,
                     double now) {
  if (r->kind != RRD_OWNER_RECORD_GIVE && r->kind != RRD_OWNER_RECORD_FORGET)
    return -EINVAL;
  pthread_mutex_lock(&o->lock);
  int err = 0;
  if (r->kind == RRD_OWNER_RECORD_GIVE) {
    err = give(o, r, now);
  } else {
    struct owner_entry *e = entry_of(o, r, false);
    if (e != NULL)
      owner_table_settle(e);
    err = e != NULL ? 0 : -ENOENT;
  }
  if (err == 0)
    o->changes++;
  pthread_mutex_unlock(&o->lock);
  return err;
}

bool rrd_owner_drop(struct rrd_owner *o, const struct rrd_layout *layout,
                    const char *cluster, const char *name, double now,
                    double quiet) {
  pthread_mutex_lock(&o->lock);
  struct owner_entry *e = owner_table_find(&o->table, layout, cluster, name);
  bool drop = e != NULL && now - e->seen >= quiet;
  if (drop) {
    owner_table_remove(&o->table, e);
    o->changes++;
  }
  pthread_mutex_unlock(&o->lock);
  return drop;
}

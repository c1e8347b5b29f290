/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which host a guest's file belongs to (see rrd_owner.h): one entry per
 * file in the keyed table the store uses too, under one mutex.  Kept in
 * the owners file without a thread: read back at start; then from a write
 * thread, at most every LOOK_EVERY s, one stat: an edit of the file is
 * taken whole and what changed is saved, both under the file's flock.  A
 * file of another version is left alone: the owners live in memory only.
 */
#include "rrd_keyed_table.h"

#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_owner.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SWEEP_EVERY 10.0 /* s between looks for guests to forget */
#define OTHERS_MAX 64    /* other hosts kept per guest: a flood of names */
#define LOOK_EVERY 2.0   /* s between looks at the file */
#define GONE_EVERY 300.0 /* s between looks for marked guests' files */
#define FILE_OF "%s/" RRD_OWNER_FILE_NAME

struct owner_claim {              /* a host reporting the guest */
  char host[RRD_OWNER_HOST_SIZE]; /* "": none; longer names are cut */
  double first, last;             /* its rows since it began (again), s */
  double interval;                /* between its rows, s */
};

struct owner_other { /* a host whose rows are refused */
  struct owner_other *next;
  struct owner_claim claim;
  bool marked;      /* seen colliding: never the owner */
  long long since;  /* seen colliding since, s since the epoch */
  double logged_at; /* its collision last logged, s */
};

struct owner_entry {
  struct rrd_keyed key; /* first: the table hands back the entry */
  struct owner_claim owner;
  struct owner_other *others; /* NULL but for a disputed guest */
  double seen;                /* the latest row of any host, s */
};

struct rrd_owner {
  pthread_mutex_t lock;
  struct rrd_keyed_table table;
  double next_sweep;
  unsigned long long refused, changes;
  time_t (*wall)(void); /* NULL: time() */
  /* Kept on disk (rrd_owner_keep), by the one thread in busy: */
  char *dir; /* NULL: in memory only */
  rrd_sink_log_fn *log;
  void *log_ctx;
  atomic_flag busy;
  unsigned long long saved; /* changes when last saved */
  struct stat last;         /* the file as last read or written */
  double now, next_look, next_gone;
  bool foreign; /* the file is not ours: left alone */
  bool failing; /* a failure is logged once, until it works */
};

static void other_remove(struct owner_other **p) {
  struct owner_other *x = *p;
  *p = x->next;
  free(x);
}

static void release(struct rrd_keyed *k) {
  struct owner_entry *e = (struct owner_entry *)k;
  while (e->others != NULL)
    other_remove(&e->others);
  free(e);
}

/* The file's entry, made if new, reported at now; NULL without memory. */
static struct owner_entry *entry_of(struct rrd_owner *o,
                                    const struct rrd_layout *layout,
                                    const char *cluster, const char *name,
                                    double now) {
  struct rrd_keyed key = {0}; /* cut as the file names are */
  rrd_keyed_set(&key, layout, cluster, name);
  struct owner_entry *e = (struct owner_entry *)rrd_keyed_table_find(
      &o->table, layout, key.cluster, key.name);
  if (e == NULL && (e = calloc(1, sizeof(*e))) != NULL) {
    e->key = key;
    rrd_keyed_table_insert(&o->table, &e->key);
  }
  if (e != NULL)
    e->seen = fmax(e->seen, now);
  return e;
}

int rrd_owner_new(time_t (*wall)(void), struct rrd_owner **ret) {
  struct rrd_owner *o = calloc(1, sizeof(*o));
  if (o == NULL || rrd_keyed_table_init(&o->table) != 0) {
    free(o);
    return -ENOMEM;
  }
  pthread_mutex_init(&o->lock, NULL);
  atomic_flag_clear(&o->busy);
  o->wall = wall;
  *ret = o;
  return 0;
}

void rrd_owner_free(struct rrd_owner *o) {
  if (o == NULL)
    return;
  rrd_keyed_table_destroy(&o->table, release);
  pthread_mutex_destroy(&o->lock);
  free(o->dir);
  free(o);
}

/* ---- the rule ------------------------------------------------------------ */

static double window(double interval) {
  return RRD_OWNER_WINDOW_INTERVALS *
         (interval > 0 ? interval : RRD_OWNER_DEFAULT_INTERVAL);
}

/* Longer names than collectd makes compare by what is kept of them. */
static bool is_host(const struct owner_claim *c, const char *host) {
  return c->host[0] && strncmp(c->host, host, RRD_OWNER_HOST_SIZE - 1) == 0;
}

static bool quiet(const struct owner_claim *c, double now) {
  return now - c->last > window(c->interval);
}

/* interval 0: a once-a-minute row says nothing of the host's pace. */
static void note_row(struct owner_claim *c, const char *host, double interval,
                     double now) {
  bool same = is_host(c, host);
  if (!same) {
    *c = (struct owner_claim){.interval = 0};
    snprintf(c->host, sizeof(c->host), "%s", host);
  }
  if (!same || quiet(c, now))
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

/* host's record, or a new one last (the file's marks keep their order);
 * NULL without memory or past OTHERS_MAX (a flood of names). */
static struct owner_other *other_add(struct owner_entry *e, const char *host) {
  struct owner_other **p = &e->others;
  size_t n = 0;
  for (; *p != NULL && !is_host(&(*p)->claim, host); p = &(*p)->next)
    n++;
  if (*p == NULL && n < OTHERS_MAX && (*p = calloc(1, sizeof(**p))) != NULL)
    snprintf((*p)->claim.host, sizeof((*p)->claim.host), "%s", host);
  return *p;
}

/* The file passes to host (or none); its record as another host goes. */
static void new_owner(struct rrd_owner *o, struct owner_entry *e,
                      const char *host, double interval, double now) {
  e->owner.host[0] = '\0';
  if (host != NULL)
    note_row(&e->owner, host, interval, now);
  if (host != NULL && *other_link(e, host) != NULL)
    other_remove(other_link(e, host));
  o->changes++;
}

static void tell(struct rrd_owner_news *news, enum rrd_owner_news_kind kind,
                 const char *host, const char *other) {
  news->kind = kind;
  snprintf(news->host, sizeof(news->host), "%s", host);
  snprintf(news->other, sizeof(news->other), "%s", other);
}

/* x's collision, unless logged within the hour since this owner came. */
static void log_once(struct owner_entry *e, struct owner_other *x, double now,
                     struct rrd_owner_news *news) {
  if (x->logged_at > 0 && x->logged_at >= e->owner.first &&
      now - x->logged_at < RRD_OWNER_LOG_AGAIN)
    return;
  x->logged_at = now;
  tell(news, RRD_OWNER_COLLISION, x->claim.host, e->owner.host);
  news->since = x->since;
  news->marked = x->marked;
  news->window = window(e->owner.interval);
}

/* Refused while the owner reports; a collision once both reported for
 * longer than the owner's window.  The overlap ends at the owner's latest
 * row: an owner that stopped (a live migration's source) hands over
 * without one.  Marked only in the data directory's own files, where
 * nothing says which hosts are one cluster. */
static void refuse(struct rrd_owner *o, struct owner_entry *e, const char *host,
                   double interval, double now, struct rrd_owner_news *news) {
  struct owner_other *x = other_add(e, host);
  if (x == NULL)
    return; /* refused all the same */
  note_row(&x->claim, host, interval, now);
  if (e->owner.last - x->claim.first <= window(e->owner.interval))
    return;
  time_t wall = o->wall != NULL ? o->wall() : time(NULL);
  x->since = (long long)wall - (long long)(now - x->claim.first);
  if (e->key.cluster[0] == '\0') {
    x->marked = true;
    o->changes++;
  }
  log_once(e, x, now, news);
}

static bool decide(struct rrd_owner *o, struct owner_entry *e, const char *host,
                   double interval, double now, struct rrd_owner_news *news) {
  struct owner_other *x = *other_link(e, host);
  if (is_host(&e->owner, host)) {
    note_row(&e->owner, host, interval, now);
    return true;
  }
  if (x != NULL && x->marked) {
    log_once(e, x, now, news);
    return false;
  }
  if (e->owner.host[0] && !quiet(&e->owner, now)) {
    refuse(o, e, host, interval, now, news);
    return false;
  }
  if (e->owner.host[0]) /* the owner went quiet: a migration */
    tell(news, RRD_OWNER_MIGRATED, host, e->owner.host);
  new_owner(o, e, host, interval, now);
  return true;
}

static bool any_marked(const struct owner_entry *e) {
  const struct owner_other *x = e->others;
  while (x != NULL && !x->marked)
    x = x->next;
  return x != NULL;
}

struct sweep {
  const char *dir; /* NULL: guests to forget, else marked ones gone */
  double now, quiet;
};

/* Unreported for twice its window (30 s at least), no host marked: its
 * owner is long quiet, so the next host would take it over anyway (after
 * the logged handover), and guests that come and go cost no memory.  A
 * marked guest goes with its file. */
static bool stale(const struct rrd_keyed *k, void *ctx) {
  const struct owner_entry *e = (const struct owner_entry *)k;
  const struct sweep *w = ctx;
  char path[PATH_MAX];
  if (w->dir == NULL)
    return !any_marked(e) &&
           w->now - e->seen >
               fmax(RRD_OWNER_EXPIRY, 2 * window(e->owner.interval));
  return any_marked(e) && w->now - e->seen >= w->quiet &&
         rrd_cluster_file_path(w->dir, k->cluster, k->layout, k->name, path,
                               sizeof(path)) == 0 &&
         access(path, F_OK) != 0 && errno == ENOENT;
}

bool rrd_owner_admit(struct rrd_owner *o, const struct rrd_layout *layout,
                     const char *cluster, const char *name, const char *host,
                     double interval, double now, struct rrd_owner_news *news) {
  news->kind = RRD_OWNER_QUIET;
  pthread_mutex_lock(&o->lock);
  if (now >= o->next_sweep) {
    struct sweep w = {NULL, now, 0};
    o->changes += rrd_keyed_table_drop(&o->table, stale, release, &w);
    o->next_sweep = now + SWEEP_EVERY;
  }
  struct owner_entry *e =
      entry_of(o, layout, cluster ? cluster : "", name, now);
  bool admitted = e != NULL && decide(o, e, host, interval, now, news);
  o->refused += !admitted;
  pthread_mutex_unlock(&o->lock);
  return admitted;
}

struct rrd_owner_counts rrd_owner_counts(struct rrd_owner *o) {
  pthread_mutex_lock(&o->lock);
  struct rrd_owner_counts c = {o->refused, o->changes, o->table.entry_count};
  pthread_mutex_unlock(&o->lock);
  return c;
}

/* ---- the operator's word, the file's records --------------------------- */

int rrd_owner_put(struct rrd_owner *o, const struct rrd_owner_record *r,
                  double now) {
  pthread_mutex_lock(&o->lock);
  struct owner_entry *e = entry_of(o, r->layout, r->cluster, r->name, now);
  struct owner_other *x = e && r->collision ? other_add(e, r->host) : NULL;
  if (e != NULL && !r->collision)
    new_owner(o, e, r->host, r->interval > 0 ? r->interval : e->owner.interval,
              now);
  if (x != NULL && is_host(&e->owner, r->host))
    new_owner(o, e, NULL, 0, now); /* seen colliding: never the owner */
  if (x != NULL && !x->marked) {
    x->marked = true;
    x->since = r->since;
  }
  o->changes += x != NULL;
  pthread_mutex_unlock(&o->lock);
  return e != NULL ? 0 : -ENOMEM;
}

size_t rrd_owner_forget(struct rrd_owner *o, const struct rrd_owner_record *r) {
  size_t forgot = 0;
  pthread_mutex_lock(&o->lock);
  struct rrd_keyed *k =
      rrd_keyed_table_find(&o->table, r->layout, r->cluster, r->name);
  for (struct owner_other **p = k ? &((struct owner_entry *)k)->others : NULL;
       p != NULL && *p != NULL;)
    if ((*p)->marked) {
      other_remove(p); /* its rows start anew too */
      forgot++;
    } else {
      p = &(*p)->next;
    }
  o->changes += forgot;
  pthread_mutex_unlock(&o->lock);
  return forgot;
}

static int by_file(const void *pa, const void *pb) {
  const struct rrd_keyed *a = *(struct rrd_keyed *const *)pa,
                         *b = *(struct rrd_keyed *const *)pb;
  int c = strcmp(a->cluster, b->cluster);
  c = c ? c : strcmp(a->layout->name, b->layout->name);
  return c ? c : strcmp(a->name, b->name);
}

/* The entry's owner, then its marks as they came. */
static int visit_entry(const struct owner_entry *e,
                       int (*visit)(const struct rrd_owner_record *, void *),
                       void *ctx) {
  struct rrd_owner_record r = {.layout = e->key.layout,
                               .cluster = e->key.cluster,
                               .name = e->key.name,
                               .host = e->owner.host};
  r.interval =
      e->owner.interval > 0 ? e->owner.interval : RRD_OWNER_DEFAULT_INTERVAL;
  int err = r.host[0] ? visit(&r, ctx) : 0;
  r.collision = true;
  for (struct owner_other *x = e->others; err == 0 && x; x = x->next) {
    r.host = x->claim.host;
    r.since = x->since;
    err = x->marked ? visit(&r, ctx) : 0;
  }
  return err;
}

int rrd_owner_each(struct rrd_owner *o,
                   int (*visit)(const struct rrd_owner_record *, void *),
                   void *ctx) {
  pthread_mutex_lock(&o->lock);
  size_t n = 0;
  struct rrd_keyed **all = malloc((o->table.entry_count + 1) * sizeof(*all));
  for (size_t b = 0; all != NULL && b < o->table.bucket_count; b++)
    for (struct rrd_keyed *k = o->table.buckets[b]; k != NULL; k = k->next)
      all[n++] = k;
  int err = all != NULL ? 0 : -ENOMEM;
  if (err == 0)
    qsort(all, n, sizeof(*all), by_file);
  for (size_t i = 0; err == 0 && i < n; i++)
    err = visit_entry((struct owner_entry *)all[i], visit, ctx);
  pthread_mutex_unlock(&o->lock);
  free(all);
  return err;
}

/* ---- kept on disk ------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static void
log_line(struct rrd_owner *o, enum rrd_sink_level level, const char *fmt, ...) {
  char line[2 * PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  o->log(o->log_ctx, level, line);
}

/* Whether the file's inode, size or mtime differ from *last (all zero
 * when there is none), which takes the new ones. */
static bool file_changed(const char *dir, struct stat *last) {
  char path[PATH_MAX];
  struct stat st = {0};
  if (snprintf(path, sizeof(path), FILE_OF, dir) >= PATH_MAX ||
      stat(path, &st) != 0)
    memset(&st, 0, sizeof(st));
  bool changed = st.st_ino != last->st_ino || st.st_size != last->st_size ||
                 st.st_mtim.tv_sec != last->st_mtim.tv_sec ||
                 st.st_mtim.tv_nsec != last->st_mtim.tv_nsec;
  *last = st;
  return changed;
}

/* Reads the file (its lock held) as the new truth, its owners reporting now:
 * an owner made since the last save and not in it goes (its next row
 * makes it again). */
static void take(struct rrd_owner *o, bool start) {
  struct rrd_owner *read;
  struct rrd_owner_read t;
  char buf[128];
  if (rrd_owner_new(NULL, &read) != 0)
    return;
  int r = rrd_owner_file_load(o->dir, read, o->now, &t);
  pthread_mutex_lock(&o->lock);
  if (r == 0) {
    struct rrd_keyed_table old = o->table;
    o->table = read->table;
    read->table = old;
    o->saved = ++o->changes; /* nothing of it to save */
  }
  pthread_mutex_unlock(&o->lock);
  rrd_owner_free(read);
  const char *problem = rrd_owner_file_problem(r, &t, buf, sizeof(buf));
  if (problem[0] && !(r == -EPROTO && o->foreign))
    log_line(o, RRD_SINK_ERROR, "The owners file " FILE_OF " is %s; %s.",
             o->dir, problem,
             r == -EPROTO
                 ? "it is left alone, and the owners of guests' files are "
                   "kept in memory only"
                 : "a guest it does not name is owned by the first host "
                   "to report it that was not seen colliding");
  else if (r == 0 && start)
    log_line(o, RRD_SINK_INFO,
             "Read back the owners of %zu guests' files and %zu hosts seen "
             "colliding from " FILE_OF ".",
             t.owners, t.marks, o->dir);
  else if (r == 0)
    log_line(o, RRD_SINK_INFO,
             "Took the edit of " FILE_OF
             " (pvecg check --owners): now %zu guests' "
             "files have an owner and %zu hosts are seen colliding.",
             o->dir, t.owners, t.marks);
  o->foreign = r == -EPROTO;
}

/* One line until it works again; no directory yet is waited for. */
static void note_failure(struct rrd_owner *o, const char *what,
                         const char *suffix, int err) {
  if (err != 0 && err != -ENOENT && !o->failing)
    log_line(o, RRD_SINK_ERROR,
             "Cannot %s " FILE_OF
             "%s (%s); the owners of guests' files are kept "
             "in memory and saved once it works again.",
             what, o->dir, suffix, strerror(-err));
  o->failing = err != 0 && err != -ENOENT;
}

/* Takes an edit of the file (at start: the file), then saves what
 * changed, under its lock. */
static void look(struct rrd_owner *o, bool start) {
  struct stat now = o->last;
  unsigned long long changes = rrd_owner_counts(o).changes;
  if (!file_changed(o->dir, &now) && (o->foreign || changes == o->saved))
    return; /* the usual case: one stat */
  int err, fd = rrd_owner_file_lock(o->dir);
  if (fd < 0 && fd != -ENOENT) /* no directory yet: waited for */
    note_failure(o, "lock", ".lock", fd);
  if (fd < 0)
    return;
  if (file_changed(o->dir, &o->last))
    take(o, start);
  changes = rrd_owner_counts(o).changes;
  if (!o->foreign && changes != o->saved) {
    err = rrd_owner_file_save(o->dir, o);
    file_changed(o->dir, &o->last); /* ours */
    note_failure(o, "save the owners of guests' files in", "", err);
    o->saved = err == 0 ? changes : o->saved;
  }
  close(fd);
}

int rrd_owner_keep(struct rrd_owner *o, const char *data_dir,
                   rrd_sink_log_fn *log, void *log_ctx, double now) {
  if ((o->dir = strdup(data_dir)) == NULL)
    return -ENOMEM;
  o->log = log;
  o->log_ctx = log_ctx;
  o->now = now;
  o->next_gone = now + GONE_EVERY;
  o->saved = rrd_owner_counts(o).changes; /* an empty start saves nothing */
  look(o, true);
  return 0;
}

void rrd_owner_tick(struct rrd_owner *o, double now) {
  if (o->dir == NULL || atomic_flag_test_and_set(&o->busy))
    return;
  o->now = now;
  if (now >= o->next_gone) {
    struct sweep w = {o->dir, now, GONE_EVERY};
    pthread_mutex_lock(&o->lock);
    o->changes += rrd_keyed_table_drop(&o->table, stale, release, &w);
    pthread_mutex_unlock(&o->lock);
    o->next_gone = now + GONE_EVERY;
  }
  if (now >= o->next_look) {
    look(o, false);
    o->next_look = now + LOOK_EVERY;
  }
  atomic_flag_clear(&o->busy);
}

void rrd_owner_unkeep(struct rrd_owner *o) {
  if (o == NULL || o->dir == NULL)
    return;
  look(o, false);
  free(o->dir);
  o->dir = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/owner/rrd_owner.c: which host a guest's
 * file belongs to when hosts that share VMIDs send to one collector, on a
 * clock the test sets.  A migration after the window passes the file on
 * with one piece of news; a collision refuses the other host's rows from
 * the first, marks the host after the window and is told once per guest,
 * pair of hosts and hour; a marked host never takes the file over, not
 * even once the owner is quiet, while a host never seen colliding does; a
 * live migration shorter than the window is no collision, nor a
 * handover after an overlap of two intervals or a long silence; the window
 * follows the owner's interval; guests nobody reports are forgotten unless
 * a host is marked for them; and threads that share guests keep the counts
 * whole (under ThreadSanitizer in build-tsan).  Through the sink, with
 * librrd and a real rrdcached: the other host's rows never reach the file
 * (not even at the same second), are not counted by the store, the KSM
 * file follows the guest's owner, and the log has exactly the lines
 * promised.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_fixture.h"
#include "pvecg/rrd_owner.h"
#include "rrdcached_fixture.h"

#include "pvecg/rrd_file.h"
#include "pvecg/rrd_last.h"
#include "pvecg/rrd_row.h"
#include "pvecg/rrd_sink.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct rrd_layout *const VM = &layout_pve_vm_9_0;

struct tally {
  int admitted, refused, migrated, collisions;
  struct rrd_owner_news last; /* the latest news that was not quiet */
};

/* The wall clock of the marks: START - 100 + the test's clock. */
#define WALL_BASE 1800000000LL
static double clock_now;
static time_t test_wall(void) { return (time_t)(WALL_BASE + clock_now); }

static int setup(void **state) {
  struct rrd_owner *o = NULL;
  assert_int_equal(rrd_owner_new(test_wall, &o), 0);
  *state = o;
  return 0;
}

static int teardown(void **state) {
  rrd_owner_free(*state);
  return 0;
}

/* One row of host for guest name at now, interval 1 s (a window of 5 s). */
static bool row(struct rrd_owner *o, struct tally *t, const char *name,
                const char *host, double now) {
  struct rrd_owner_news news;
  clock_now = now;
  bool ok = rrd_owner_admit(o, VM, NULL, name, host, 1.0, now, &news);
  *(ok ? &t->admitted : &t->refused) += 1;
  if (news.kind == RRD_OWNER_MIGRATED)
    t->migrated++;
  if (news.kind == RRD_OWNER_COLLISION)
    t->collisions++;
  if (news.kind != RRD_OWNER_QUIET)
    t->last = news;
  return ok;
}

/* ---- migration --------------------------------------------------------- */

static void test_first_host_owns(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  for (int i = 0; i < 10; i++)
    assert_true(row(o, &t, "196", "nodea", 100.0 + i));
  assert_int_equal(t.migrated + t.collisions, 0);
  assert_int_equal(rrd_owner_counts(o).refused, 0);
  assert_int_equal(rrd_owner_counts(o).count, 1);
}

static void test_migration_after_window(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  for (int i = 0; i <= 10; i++)
    row(o, &t, "196", "nodea", 100.0 + i); /* the last at 110 */
  /* Exactly the window (5 intervals of 1 s) after nodea's last row: it
   * may still be on its way, so the file stays nodea's. */
  assert_false(row(o, &t, "196", "nodeb", 115.0));
  assert_int_equal(t.migrated + t.collisions, 0);
  assert_true(row(o, &t, "196", "nodeb", 115.25));
  assert_int_equal(t.migrated, 1);
  assert_string_equal(t.last.host, "nodeb");
  assert_string_equal(t.last.other, "nodea");
  for (int i = 1; i <= 20; i++)
    assert_true(row(o, &t, "196", "nodeb", 115.25 + i));
  assert_int_equal(t.migrated, 1);
  assert_int_equal(t.collisions, 0);
  /* nodea is now the other host: its rows are refused while nodeb goes on */
  assert_false(row(o, &t, "196", "nodea", 136.0));
  assert_int_equal(rrd_owner_counts(o).refused, 2);
}

/* A live migration: the target reports the guest before the source stops.
 * Its rows wait; once the source has been quiet for the window, the file
 * passes on, and no collision is told. */
static void test_live_migration_within_window(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  /* nodea every second up to 110, nodeb every half second from 107 */
  for (double now = 100.0; now <= 116.5; now += 0.5) {
    if (now <= 110.0 && now == (double)(int)now)
      assert_true(row(o, &t, "196", "nodea", now));
    if (now >= 107.0)
      row(o, &t, "196", "nodeb", now);
  }
  assert_int_equal(t.collisions, 0);
  assert_int_equal(t.migrated, 1);
  assert_string_equal(t.last.host, "nodeb");
  assert_string_equal(t.last.other, "nodea");
  /* 107..115 refused (17 rows), from 115.5 on admitted (3 rows) */
  assert_int_equal(rrd_owner_counts(o).refused, 17);
  assert_int_equal(t.admitted, 11 + 3);
}

static int count_mark(const struct rrd_owner_record *r, void *ctx) {
  *(int *)ctx += r->collision;
  return 0;
}

/* No host is marked as seen colliding for any guest. */
static void assert_no_marks(struct rrd_owner *o) {
  int marks = 0;
  assert_int_equal(rrd_owner_each(o, count_mark, &marks), 0);
  assert_int_equal(marks, 0);
}

/* A handover: nodeb reports the guest while nodea still does for two
 * intervals, then nodea stops.  nodeb gets the file once nodea has been
 * quiet for the window, and nothing is marked or logged as a collision. */
static void test_handover(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  for (int i = 0; i < 10; i++)
    assert_true(row(o, &t, "196", "nodea", 100.0 + i));
  for (int i = 0; i < 2; i++) {
    assert_true(row(o, &t, "196", "nodea", 110.0 + i));
    assert_false(row(o, &t, "196", "nodeb", 110.5 + i));
  }
  int waited = 0; /* nodea's last row at 111: the window ends at 116 */
  while (!row(o, &t, "196", "nodeb", 112.5 + waited))
    waited++;
  assert_int_equal(waited, 4);
  assert_int_equal(t.migrated, 1);
  assert_int_equal(t.collisions, 0);
  assert_string_equal(t.last.host, "nodeb");
  assert_no_marks(o);
  for (int i = 0; i < 100; i++)
    assert_true(row(o, &t, "196", "nodeb", 117.0 + i));
  assert_int_equal(t.migrated + t.collisions, 1);
}

/* nodeb's first rows come 10 minutes after nodea's last (a guest
 * migrated while stopped): its file, with nothing to say, since nodea's
 * claim was forgotten long before. */
static void test_handover_after_silence(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  for (int i = 0; i < 10; i++)
    assert_true(row(o, &t, "196", "nodea", 100.0 + i));
  assert_true(row(o, &t, "197", "nodea", 200.0)); /* a look for the gone */
  assert_int_equal(rrd_owner_counts(o).count, 1);
  for (int i = 0; i < 10; i++)
    assert_true(row(o, &t, "196", "nodeb", 709.0 + i));
  assert_int_equal(t.migrated, 0);
  assert_int_equal(t.collisions, 0);
  assert_int_equal(rrd_owner_counts(o).refused, 0);
  assert_no_marks(o);
}

static void test_window_follows_owner_interval(void **state) {
  struct rrd_owner *o = *state;
  struct rrd_owner_news news;
  /* interval 10: a window of 50 s */
  assert_true(
      rrd_owner_admit(o, VM, NULL, "300", "nodea", 10.0, 1000.0, &news));
  assert_false(
      rrd_owner_admit(o, VM, NULL, "300", "nodeb", 1.0, 1050.0, &news));
  assert_true(rrd_owner_admit(o, VM, NULL, "300", "nodeb", 1.0, 1050.5, &news));
  assert_int_equal(news.kind, RRD_OWNER_MIGRATED);
  /* no interval: collectd's default of 10 s */
  assert_true(rrd_owner_admit(o, VM, NULL, "301", "nodea", 0, 1000.0, &news));
  assert_false(rrd_owner_admit(o, VM, NULL, "301", "nodeb", 0, 1050.0, &news));
  assert_true(rrd_owner_admit(o, VM, NULL, "301", "nodeb", 0, 1050.5, &news));
  assert_int_equal(news.kind, RRD_OWNER_MIGRATED);
  /* A row without a pace (a once-a-minute KSM row) keeps the owner's:
   * the window stays 5 s after nodea's rows of interval 1. */
  assert_true(rrd_owner_admit(o, VM, NULL, "302", "nodea", 1.0, 1000.0, &news));
  assert_true(rrd_owner_admit(o, VM, NULL, "302", "nodea", 0, 1000.5, &news));
  assert_false(
      rrd_owner_admit(o, VM, NULL, "302", "nodeb", 1.0, 1005.5, &news));
  assert_true(
      rrd_owner_admit(o, VM, NULL, "302", "nodeb", 1.0, 1005.75, &news));
  assert_int_equal(news.kind, RRD_OWNER_MIGRATED);
}

/* ---- collision --------------------------------------------------------- */

/* nodea and nodeb both report the guest every second from 100 on. */
static void both(struct rrd_owner *o, struct tally *t, const char *name,
                 double from, int seconds) {
  for (int i = 0; i < seconds; i++) {
    assert_true(row(o, t, name, "nodea", from + i));
    assert_false(row(o, t, name, "nodeb", from + i + 0.5));
  }
}

static void test_collision_told_once(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  assert_true(row(o, &t, "196", "nodea", 99.0));
  /* nodeb's first row at 100.5: the overlap passes the window (5 s) with
   * nodea's row at 106, so nodeb's row at 106.5 tells it */
  both(o, &t, "196", 100.0, 6);
  assert_int_equal(t.collisions, 0);
  both(o, &t, "196", 106.0, 1);
  assert_int_equal(t.collisions, 1);
  assert_string_equal(t.last.host, "nodeb");
  assert_string_equal(t.last.other, "nodea");
  assert_true(t.last.marked);
  /* since nodeb's first row, on the wall clock */
  assert_int_equal(t.last.since, WALL_BASE + 100);
  both(o, &t, "196", 107.0, 200);
  assert_int_equal(t.collisions, 1);
  assert_int_equal(t.migrated, 0);
  assert_int_equal(t.refused, 207);
  assert_int_equal(rrd_owner_counts(o).refused, 207);
  assert_int_equal(t.admitted, 208);
  /* an hour after it was told, told again, once */
  both(o, &t, "196", 3707.0, 10);
  assert_int_equal(t.collisions, 2);
  assert_int_equal(t.last.since, WALL_BASE + 100);
}

static void test_pair_told_once_either_way(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  both(o, &t, "196", 100.0, 10);
  assert_int_equal(t.collisions, 1);
  /* nodeb goes away and comes back: the same pair, not told again */
  for (int i = 0; i < 20; i++)
    row(o, &t, "196", "nodea", 110.0 + i);
  both(o, &t, "196", 130.0, 10);
  assert_int_equal(t.collisions, 1);
  assert_int_equal(t.migrated, 0);
}

/* A host seen colliding never takes the file, not even once the owner is
 * quiet for far longer than its window; it is told once an hour while its
 * rows come.  A host never seen colliding still follows a migration. */
static void test_marked_host_never_takes_over(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  both(o, &t, "196", 100.0, 10);
  assert_int_equal(t.collisions, 1);
  for (int i = 0; i < 3700; i++)
    assert_false(row(o, &t, "196", "nodeb", 110.0 + i));
  assert_int_equal(t.migrated, 0);
  assert_int_equal(t.collisions, 2); /* at 3706.5, an hour after 106.5 */
  assert_string_equal(t.last.other, "nodea");
  assert_true(row(o, &t, "196", "nodec", 3810.0));
  assert_int_equal(t.migrated, 1);
  assert_string_equal(t.last.host, "nodec");
  assert_string_equal(t.last.other, "nodea");
  assert_false(row(o, &t, "196", "nodeb", 3811.0));
  assert_true(row(o, &t, "196", "nodec", 3811.0));
  assert_int_equal(rrd_owner_counts(o).refused, 10 + 3700 + 1);
}

/* In a named cluster's directory two nodes of the cluster reporting one
 * VMID for longer than the window is a long live migration: told once,
 * not marked, and the file passes on once the owner stops. */
static void test_long_live_migration_in_a_cluster(void **state) {
  struct rrd_owner *o = *state;
  struct rrd_owner_news news;
  int told = 0;
  for (int i = 0; i < 60; i++) {
    clock_now = 100.0 + i;
    assert_true(
        rrd_owner_admit(o, VM, "prod", "196", "pve1", 1.0, clock_now, &news));
    assert_false(rrd_owner_admit(o, VM, "prod", "196", "pve2", 1.0,
                                 clock_now + 0.5, &news));
    if (news.kind == RRD_OWNER_COLLISION) {
      told++;
      assert_false(news.marked);
      assert_true(news.window == 5.0);
      assert_string_equal(news.host, "pve2");
      assert_string_equal(news.other, "pve1");
    }
  }
  assert_int_equal(told, 1);
  /* pve1 stops: pve2 takes over after the window */
  assert_false(
      rrd_owner_admit(o, VM, "prod", "196", "pve2", 1.0, 164.0, &news));
  assert_true(rrd_owner_admit(o, VM, "prod", "196", "pve2", 1.0, 164.5, &news));
  assert_int_equal(news.kind, RRD_OWNER_MIGRATED);
}

/* The mark keeps a guest that nobody reports for longer than the expiry. */
static void test_marked_guest_not_forgotten(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  both(o, &t, "196", 100.0, 10);
  row(o, &t, "100", "nodea", 100.0 + 2 * RRD_OWNER_EXPIRY);
  assert_int_equal(rrd_owner_counts(o).count, 2);
  assert_false(row(o, &t, "196", "nodeb", 101.0 + 2 * RRD_OWNER_EXPIRY));
}

static void test_third_host_told_once(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  both(o, &t, "196", 100.0, 10);
  assert_int_equal(t.collisions, 1);
  for (int i = 0; i < 20; i++) {
    assert_true(row(o, &t, "196", "nodea", 110.0 + i));
    assert_false(row(o, &t, "196", "nodeb", 110.5 + i));
    assert_false(row(o, &t, "196", "nodec", 110.75 + i));
  }
  assert_int_equal(t.collisions, 2);
  assert_string_equal(t.last.host, "nodec");
  assert_string_equal(t.last.other, "nodea");
  assert_int_equal(t.migrated, 0);
}

/* Several hosts at once: each pair told once.  A flood of host names:
 * still refused, with the memory for one guest bounded. */
static void test_many_rival_hosts(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  char host[16];
  for (int i = 0; i < 30; i++) {
    assert_true(row(o, &t, "196", "nodea", 100.0 + i));
    for (int h = 0; h < 6; h++) {
      snprintf(host, sizeof(host), "other%d", h);
      assert_false(row(o, &t, "196", host, 100.1 + i + h * 0.1));
    }
  }
  assert_int_equal(t.migrated, 0);
  assert_int_equal(t.collisions, 6);
  for (int i = 0; i < 30; i++) {
    assert_true(row(o, &t, "196", "nodea", 130.0 + i));
    for (int h = 0; h < 200; h++) {
      snprintf(host, sizeof(host), "flood%d", h);
      assert_false(row(o, &t, "196", host, 130.0 + i + h * 0.004));
    }
  }
  assert_int_equal(t.migrated, 0);
  assert_int_equal(rrd_owner_counts(o).refused, 180 + 30 * 200);
}

static void test_guests_apart(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  for (int i = 0; i < 10; i++) {
    assert_true(row(o, &t, "100", "nodea", 100.0 + i));
    assert_true(row(o, &t, "101", "nodeb", 100.0 + i));
  }
  struct rrd_owner_news news;
  /* a node file of the same name is another file */
  assert_true(rrd_owner_admit(o, &layout_pve_node_9_0, NULL, "100", "nodeb",
                              1.0, 110.0, &news));
  assert_int_equal(t.refused + t.migrated + t.collisions, 0);
  assert_int_equal(rrd_owner_counts(o).count, 3);
}

/* ---- memory ------------------------------------------------------------ */

static void test_forgotten_once_gone(void **state) {
  struct rrd_owner *o = *state;
  struct tally t = {0};
  char name[16];
  for (int i = 0; i < 1000; i++) {
    snprintf(name, sizeof(name), "%d", 1000 + i);
    row(o, &t, name, "nodea", 100.0);
  }
  row(o, &t, "196", "nodea", 100.0 + RRD_OWNER_EXPIRY / 2);
  assert_int_equal(rrd_owner_counts(o).count, 1001);
  /* the expiry after: the 1000 are dropped, 196 (seen later) is kept */
  row(o, &t, "100", "nodeb", 100.0 + RRD_OWNER_EXPIRY + 1);
  assert_int_equal(rrd_owner_counts(o).count, 2);
  /* a forgotten guest belongs to whoever reports it first, with no news */
  assert_true(row(o, &t, "1000", "nodeb", 100.0 + RRD_OWNER_EXPIRY + 2));
  assert_int_equal(t.migrated + t.collisions, 0);
  assert_int_equal(rrd_owner_counts(o).count, 3);
}

/* ---- threads ----------------------------------------------------------- */

#define THREADS 4
#define ROWS 5000

struct worker {
  struct rrd_owner *o;
  char host[16];
  int admitted_shared;
  int admitted_own;
};

/* Each host reports a guest of its own and one they all share, at times
 * that move on together. */
static void *work(void *arg) {
  struct worker *w = arg;
  struct rrd_owner_news news;
  char own[16];
  snprintf(own, sizeof(own), "9%s", w->host + 4);
  for (int i = 0; i < ROWS; i++) {
    double now = 1000.0 + i * 0.001;
    w->admitted_own +=
        rrd_owner_admit(w->o, VM, NULL, own, w->host, 1.0, now, &news);
    w->admitted_shared +=
        rrd_owner_admit(w->o, VM, NULL, "196", w->host, 1.0, now, &news);
  }
  return NULL;
}

static void test_threads(void **state) {
  struct rrd_owner *o = *state;
  struct worker w[THREADS];
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (struct worker){.o = o};
    snprintf(w[i].host, sizeof(w[i].host), "node%d", i);
    assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
  }
  int shared = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(w[i].admitted_own, ROWS);
    shared += w[i].admitted_shared;
  }
  /* The window is 5 s and the times span 5 s: one host keeps 196. */
  int owners = 0;
  for (int i = 0; i < THREADS; i++)
    owners += w[i].admitted_shared > 0;
  assert_int_equal(owners, 1);
  assert_int_equal(shared, ROWS);
  assert_int_equal(rrd_owner_counts(o).refused, (THREADS - 1) * ROWS);
  assert_int_equal(rrd_owner_counts(o).count, THREADS + 1);
}

/* ---- through the sink -------------------------------------------------- */

#define START 1800000000
#define LOG_MAX 64

struct log {
  pthread_mutex_t lock;
  char lines[LOG_MAX][1024];
  enum rrd_sink_level levels[LOG_MAX];
  int count;
};

struct sink_fixture {
  char *dir;
  struct rrdcached daemon;
  struct log log;
  struct rrd_sink *sink;
  char path[600]; /* guest 196's file */
};

/* The arrival clock the sink reads (only the test's thread writes rows). */
static double test_clock(void) { return clock_now; }

static void capture(void *ctx, enum rrd_sink_level level, const char *message) {
  struct log *log = ctx;
  pthread_mutex_lock(&log->lock);
  if (log->count < LOG_MAX) {
    snprintf(log->lines[log->count], sizeof(log->lines[0]), "%s", message);
    log->levels[log->count++] = level;
  }
  pthread_mutex_unlock(&log->lock);
}

static int sink_setup(void **state) {
  struct sink_fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("rrd-owner");
  pthread_mutex_init(&f->log.lock, NULL);
  rrdcached_prepare(&f->daemon, f->dir, false);
  fixture_path(f->path, "%s/pve-vm-9.0/196", f->daemon.db);
  *state = f;
  return 0;
}

static int sink_teardown(void **state) {
  struct sink_fixture *f = *state;
  rrd_sink_free(f->sink);
  rrdcached_kill(&f->daemon);
  pthread_mutex_destroy(&f->log.lock);
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

static void open_sink(struct sink_fixture *f, bool daemon) {
  if (daemon) {
    if (!rrdcached_available())
      skip();
    rrdcached_start(&f->daemon);
  } else {
    mkdir(f->daemon.db, 0750);
  }
  struct rrd_sink_options o = {
      .data_dir = f->daemon.db,
      .daemon_address = daemon ? f->daemon.address : NULL,
      .recheck_seconds = 300,
      .timeout = 2,
      .log = capture,
      .log_ctx = &f->log,
      .clock = test_clock,
      .wall_clock = test_wall,
  };
  char err[256] = "";
  if (rrd_sink_new(&o, &f->sink, err, sizeof(err)) != 0)
    fail_msg("rrd_sink_new: %s", err);
}

/* The row of host for guest 196 at t: memhost and the pressure columns
 * tell the hosts and the rows apart, exactly in binary. */
static void host_values(const char *host, time_t t, double *v) {
  for (size_t i = 0; i < 17; i++)
    v[i] = NAN;
  double base = strcmp(host, "nodea") == 0 ? 1e9 : 2e9;
  v[10] = base + (double)(t - START);              /* memhost */
  v[11] = strcmp(host, "nodea") == 0 ? 1.5 : 3.25; /* pressurecpusome */
}

/* host's row for guest 196 at t, arriving at clock time now (interval 1 s:
 * a window of 5 s). */
static void guest_row(struct sink_fixture *f, const char *host, time_t t,
                      double now) {
  double v[17];
  host_values(host, t, v);
  clock_now = now;
  rrd_sink_write_guest(f->sink, &layout_pve_vm_9_0, NULL, "196", host, 1.0, t,
                       v, 17);
}

static struct rrd_sink_stats sink_stats(struct sink_fixture *f) {
  struct rrd_sink_stats st;
  rrd_sink_stats(f->sink, &st);
  return st;
}

/* The file's newest row (flushed first through a daemon) is host's at t. */
static void assert_last_row(struct sink_fixture *f, const char *host,
                            time_t t) {
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), 0);
  struct rrd_last_reader *reader;
  struct rrd_last_row last;
  char err[256];
  double v[17];
  assert_int_equal(rrd_last_reader_new(NULL, &reader), 0);
  assert_int_equal(rrd_last_read(reader, f->path, &last, err, sizeof(err)), 0);
  rrd_last_reader_free(reader);
  host_values(host, t, v);
  assert_int_equal(last.time, t);
  assert_true(rrd_last_value(&last, "memhost") == v[10]);
  assert_true(rrd_last_value(&last, "pressurecpusome") == v[11]);
}

/* The log holds exactly one line besides the daemon's "Connected": text,
 * at level. */
static void assert_one_line(struct sink_fixture *f, enum rrd_sink_level level,
                            const char *text) {
  pthread_mutex_lock(&f->log.lock);
  int found = -1, others = 0;
  for (int i = 0; i < f->log.count; i++) {
    if (strncmp(f->log.lines[i], "Connected to rrdcached", 22) == 0)
      continue;
    if (found < 0 && f->log.levels[i] == level &&
        strcmp(f->log.lines[i], text) == 0)
      found = i;
    else
      others++;
  }
  if (found < 0 || others > 0)
    for (int i = 0; i < f->log.count; i++)
      fprintf(stderr, "log[%d] %d: %s\n", i, f->log.levels[i], f->log.lines[i]);
  pthread_mutex_unlock(&f->log.lock);
  assert_true(found >= 0);
  assert_int_equal(others, 0);
}

static void collision_line(const struct sink_fixture *f, char *buf,
                           size_t size) {
  snprintf(buf, size,
           "guest 196 is reported by both nodea and nodeb (since 2027-01-15 "
           "08:01:40 UTC): its file %s stays with nodea, and the rows from "
           "nodeb are dropped, also once nodea stops reporting it (logged "
           "again hourly while they come). If nodea and nodeb are in different "
           "clusters or are standalone hosts that share VMIDs, put each "
           "cluster's hosts in a <Cluster> block of pve_rrd's configuration "
           "(Host \"nodea\" in one, Host \"nodeb\" in another, or "
           "StandaloneHosts true for hosts of their own; see \"Cluster\" in "
           "collectd-pve_rrd(5)). "
           "\"pvecg check --owners --data-dir %s --give pve-vm-9.0/196 "
           "nodeb\" hands the file to nodeb, \"pvecg check --owners "
           "--data-dir %s --forget pve-vm-9.0/196\" forgets the collision.",
           f->path, f->daemon.db, f->daemon.db);
}

/* Both hosts report guest 196 every second, for the same seconds: nodeb's
 * rows never reach the file and are not counted as written. */
static void collide(struct sink_fixture *f, bool daemon) {
  open_sink(f, daemon);
  for (int i = 0; i < 20; i++) {
    guest_row(f, "nodea", START + i, 100.0 + i);
    guest_row(f, "nodeb", START + i, 100.5 + i);
  }
  assert_last_row(f, "nodea", START + 19);
  struct rrd_sink_stats st = sink_stats(f);
  assert_int_equal(st.other_host, 20);
  assert_int_equal(st.store.rows[RRD_STORE_CREATED], 1);
  assert_int_equal(st.store.rows[RRD_STORE_WRITTEN], 19);
  for (int o = RRD_STORE_FOREIGN; o < RRD_STORE_OUTCOMES; o++)
    assert_int_equal(st.store.rows[o], 0);
  char line[4096];
  collision_line(f, line, sizeof(line));
  assert_one_line(f, RRD_SINK_ERROR, line);
}

static void test_sink_collision_direct(void **state) { collide(*state, false); }

/* Through rrdcached, whose journal lists every row it was given: nodea's
 * 20 rows, each with nodea's values, and nothing of nodeb's. */
static void test_sink_collision_daemon(void **state) {
  struct sink_fixture *f = *state;
  collide(f, true);
  rrd_sink_free(f->sink);
  f->sink = NULL;
  rrdcached_stop(&f->daemon);
  time_t times[64];
  assert_int_equal(rrdcached_journal_times(&f->daemon, f->path, times, 64), 20);
  char want[RRD_ROW_SIZE], have[RRD_ROW_SIZE];
  double v[17];
  for (int i = 0; i < 20; i++) {
    host_values("nodea", START + i, v);
    rrd_row_format(&layout_pve_vm_9_0, START + i, v, 17, want, sizeof(want));
    rrdcached_journal_row(&f->daemon, f->path, START + i, have, sizeof(have));
    assert_string_equal(have, want);
  }
}

/* nodea stops; nodeb reports the guest after the window: one line, and
 * the same file goes on with nodeb's rows. */
static void test_sink_migration(void **state) {
  struct sink_fixture *f = *state;
  open_sink(f, true);
  for (int i = 0; i < 5; i++)
    guest_row(f, "nodea", START + i, 100.0 + i);
  assert_last_row(f, "nodea", START + 4);
  struct stat before;
  assert_int_equal(stat(f->path, &before), 0);
  guest_row(f, "nodeb", START + 9, 109.0); /* 5 s after nodea: refused */
  for (int i = 10; i < 15; i++)
    guest_row(f, "nodeb", START + i, 100.0 + i);
  assert_last_row(f, "nodeb", START + 14);
  struct stat after;
  assert_int_equal(stat(f->path, &after), 0);
  assert_int_equal(after.st_ino, before.st_ino);
  struct rrd_sink_stats st = sink_stats(f);
  assert_int_equal(st.other_host, 1);
  assert_int_equal(st.store.rows[RRD_STORE_CREATED], 1);
  assert_int_equal(st.store.rows[RRD_STORE_WRITTEN], 9);
  assert_one_line(f, RRD_SINK_INFO,
                  "guest 196 now reported by nodeb, was nodea.");
}

/* A guest's KSM file follows the owner of its pve-vm-9.0 file: nodeb's
 * KSM rows are refused, nodea's written, even with nodeb first to send
 * one for the KSM file. */
static void test_sink_ksm_follows_owner(void **state) {
  struct sink_fixture *f = *state;
  open_sink(f, false);
  const struct rrd_layout *ksm = &layout_pvecg_ksm_vm_1_0;
  double v[RRD_LAYOUT_DS_MAX];
  for (size_t i = 0; i < ksm->ds_count; i++)
    v[i] = 1;
  guest_row(f, "nodea", START, 100.0);
  clock_now = 100.5;
  rrd_sink_write_guest(f->sink, ksm, NULL, "196", "nodeb", 1.0, START, v,
                       ksm->ds_count);
  char path[700];
  snprintf(path, sizeof(path), "%s/pvecg-ksm-vm-1.0/196", f->daemon.db);
  struct stat st;
  assert_int_not_equal(stat(path, &st), 0);
  rrd_sink_write_guest(f->sink, ksm, NULL, "196", "nodea", 1.0, START, v,
                       ksm->ds_count);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(sink_stats(f).other_host, 1);
}

/* Whether the log holds exactly text, at level. */
static bool logged(struct sink_fixture *f, enum rrd_sink_level level,
                   const char *text) {
  pthread_mutex_lock(&f->log.lock);
  bool found = false;
  for (int i = 0; i < f->log.count; i++)
    found |= f->log.levels[i] == level && strcmp(f->log.lines[i], text) == 0;
  pthread_mutex_unlock(&f->log.lock);
  return found;
}

/* A daemon over TCP has the files on its side: the owners are kept in
 * memory only, said once, and the collision's line says what a restart
 * does instead of naming a command that could not reach them. */
static void test_sink_memory_only_over_tcp(void **state) {
  struct sink_fixture *f = *state;
  struct rrd_sink_options o = {
      .data_dir = "pvecg",
      .daemon_address = "127.0.0.1:1", /* nobody: the rows wait */
      .timeout = 1,
      .log = capture,
      .log_ctx = &f->log,
      .clock = test_clock,
      .wall_clock = test_wall,
  };
  char err[256] = "";
  if (rrd_sink_new(&o, &f->sink, err, sizeof(err)) != 0)
    fail_msg("rrd_sink_new: %s", err);
  for (int i = 0; i < 20; i++) {
    guest_row(f, "nodea", START + i, 100.0 + i);
    guest_row(f, "nodeb", START + i, 100.5 + i);
  }
  assert_true(logged(f, RRD_SINK_INFO,
                     "The owners of guests' files are kept in memory only: "
                     "the files are not on this machine."));
  assert_true(logged(
      f, RRD_SINK_ERROR,
      "guest 196 is reported by both nodea and nodeb (since 2027-01-15 "
      "08:01:40 UTC): its file pvecg/pve-vm-9.0/196 stays with nodea, and "
      "the rows from nodeb are dropped, also once nodea stops reporting it "
      "(logged again hourly while they come). If nodea and nodeb are in "
      "different clusters or are standalone hosts that share VMIDs, put each "
      "cluster's hosts in a <Cluster> block of pve_rrd's configuration (Host "
      "\"nodea\" in one, Host \"nodeb\" in another, or StandaloneHosts true "
      "for hosts of their own; see \"Cluster\" in collectd-pve_rrd(5)). The "
      "owners are kept in memory only here: a "
      "restart of collectd forgets the collision."));
  assert_int_equal(sink_stats(f).other_host, 20);
}

/* Two nodes of cluster prod: the long live migration's line, exactly,
 * once, and the file passes on once pve1 stops. */
static void test_sink_long_live_migration(void **state) {
  struct sink_fixture *f = *state;
  open_sink(f, false);
  double v[17];
  for (int i = 0; i < 20; i++) {
    host_values("nodea", START + i, v);
    clock_now = 100.0 + i;
    rrd_sink_write_guest(f->sink, VM, "prod", "196", "pve1", 1.0, START + i, v,
                         17);
    clock_now = 100.5 + i;
    rrd_sink_write_guest(f->sink, VM, "prod", "196", "pve2", 1.0, START + i, v,
                         17);
  }
  char line[2048];
  snprintf(line, sizeof(line),
           "guest 196 of cluster prod is reported by both pve1 and pve2: its "
           "file %s/prod/pve-vm-9.0/196 stays with pve1 while pve1 reports "
           "it, and the rows from pve2 are dropped meanwhile. Both are in "
           "cluster prod, so this is taken for a live migration that takes "
           "longer than 5 s: pve2 takes over once pve1 stops reporting the "
           "guest. If they are in fact different clusters, give each its own "
           "<Cluster> block.",
           f->daemon.db);
  assert_one_line(f, RRD_SINK_WARNING, line);
  host_values("nodeb", START + 30, v);
  clock_now = 130.0;
  rrd_sink_write_guest(f->sink, VM, "prod", "196", "pve2", 1.0, START + 30, v,
                       17);
  assert_true(logged(f, RRD_SINK_INFO,
                     "guest 196 of cluster prod now reported by pve2, was "
                     "pve1."));
  assert_int_equal(sink_stats(f).other_host, 20);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_first_host_owns),
      T(test_migration_after_window),
      T(test_live_migration_within_window),
      T(test_handover),
      T(test_handover_after_silence),
      T(test_window_follows_owner_interval),
      T(test_collision_told_once),
      T(test_pair_told_once_either_way),
      T(test_marked_host_never_takes_over),
      T(test_marked_guest_not_forgotten),
      T(test_long_live_migration_in_a_cluster),
      T(test_third_host_told_once),
      T(test_many_rival_hosts),
      T(test_guests_apart),
      T(test_forgotten_once_gone),
      T(test_threads),
#define S(name) cmocka_unit_test_setup_teardown(name, sink_setup, sink_teardown)
      S(test_sink_collision_direct),
      S(test_sink_collision_daemon),
      S(test_sink_migration),
      S(test_sink_ksm_follows_owner),
      S(test_sink_memory_only_over_tcp),
      S(test_sink_long_live_migration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

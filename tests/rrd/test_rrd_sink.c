/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/sink/rrd_sink.c and rrd_sender.c (with the link's states,
 * rrd_sink_link.c, a full queue's, rrd_sink_overflow.c, and their lines,
 * rrd_sink_log.c) with a real rrdcached: rows in order and exact (read back
 * from the daemon's journal, which lists every row it accepted), a daemon
 * that is not there yet, goes away and comes back, or stops answering
 * (SIGSTOP), and then perhaps goes away too: writers never wait, rows are
 * kept and replayed in order, one log line per state change; a bounded
 * queue that overflows; FLUSH of everything or of one file; a burst of
 * rows gathered into one exchange, which a flush or the shutdown does not
 * wait for; and the shutdown, which neither loses rows silently nor waits
 * for a frozen daemon.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file.h"
#include "rrd_fixture.h"
#include "pvecg/rrd_row.h"
#include "pvecg/rrd_sink.h"
#include "rrdcached_fixture.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define START 1800000000
#define TIMEOUT 0.4 /* the sink's timeout in these tests */

/* ---- the log ----------------------------------------------------------- */

#define LOG_MAX 128

struct log {
  pthread_mutex_t lock;
  char lines[LOG_MAX][1024];
  enum rrd_sink_level levels[LOG_MAX];
  int count;
};

static void capture(void *ctx, enum rrd_sink_level level, const char *message) {
  struct log *log = ctx;
  pthread_mutex_lock(&log->lock);
  if (log->count < LOG_MAX) {
    snprintf(log->lines[log->count], sizeof(log->lines[0]), "%s", message);
    log->levels[log->count++] = level;
  }
  pthread_mutex_unlock(&log->lock);
}

static int lines_with(struct log *log, const char *part) {
  pthread_mutex_lock(&log->lock);
  int n = 0;
  for (int i = 0; i < log->count; i++)
    n += strstr(log->lines[i], part) != NULL;
  pthread_mutex_unlock(&log->lock);
  return n;
}

static int errors(struct log *log) {
  pthread_mutex_lock(&log->lock);
  int n = 0;
  for (int i = 0; i < log->count; i++)
    n += log->levels[i] == RRD_SINK_ERROR;
  pthread_mutex_unlock(&log->lock);
  return n;
}

static void dump(struct log *log) {
  for (int i = 0; i < log->count; i++)
    fprintf(stderr, "log[%d] %d: %s\n", i, log->levels[i], log->lines[i]);
}

/* ---- fixture ----------------------------------------------------------- */

struct fixture {
  char *dir;
  struct rrdcached daemon;
  struct log log;
  struct rrd_sink *sink;
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("rrd-sink");
  pthread_mutex_init(&f->log.lock, NULL);
  rrdcached_prepare(&f->daemon, f->dir, false);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  rrd_sink_free(f->sink);
  rrdcached_kill(&f->daemon);
  pthread_mutex_destroy(&f->log.lock);
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

static void open_sink_gathering(struct fixture *f, const char *address,
                                size_t queue_size, double gather) {
  struct rrd_sink_options o = {
      .data_dir = f->daemon.db,
      .daemon_address = address,
      .recheck_seconds = 300,
      .queue_size = queue_size,
      .timeout = TIMEOUT,
      .retry_min = 0.05,
      .retry_max = 0.2,
      .gather = gather,
      .log = capture,
      .log_ctx = &f->log,
  };
  char err[256] = "";
  if (rrd_sink_new(&o, &f->sink, err, sizeof(err)) != 0)
    fail_msg("rrd_sink_new: %s", err);
}

static void open_sink(struct fixture *f, const char *address,
                      size_t queue_size) {
  open_sink_gathering(f, address, queue_size, 0);
}

/* The values of row t of guest vmid: exact in binary, distinct per row. */
static void values_at(int vmid, time_t t, double *v) {
  for (size_t i = 0; i < 17; i++)
    v[i] = NAN;
  v[10] = (double)vmid * 1e6 + (double)(t - START);
  v[11] = (double)(t - START) / 4;
}

static void write_row(struct fixture *f, int vmid, time_t t) {
  double v[17];
  char name[16];
  values_at(vmid, t, v);
  snprintf(name, sizeof(name), "%d", vmid);
  rrd_sink_write(f->sink, &layout_pve_vm_9_0, NULL, name, t, v, 17);
}

static void guest_path(const struct fixture *f, int vmid, char *buf,
                       size_t size) {
  snprintf(buf, size, "%s/pve-vm-9.0/%d", f->daemon.db, vmid);
}

static struct rrd_sink_stats stats(struct fixture *f) {
  struct rrd_sink_stats st;
  rrd_sink_stats(f->sink, &st);
  return st;
}

/* Polls until the queue is empty and the daemon reachable (5 s at most). */
static void wait_drained(struct fixture *f) {
  for (int i = 0; i < 500; i++) {
    struct rrd_sink_stats st = stats(f);
    if (st.queued == 0 && st.reachable)
      return;
    usleep(10000);
  }
  dump(&f->log);
  fail_msg("the queue did not drain (%zu rows left)", stats(f).queued);
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) +
         (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The daemon (stopped by now) accepted exactly the rows first..last of
 * vmid, each once, in time order and with its values. */
static void assert_journal(struct fixture *f, int vmid, time_t first,
                           time_t last) {
  char path[600], want[RRD_ROW_SIZE], have[RRD_ROW_SIZE];
  guest_path(f, vmid, path, sizeof(path));
  time_t times[256];
  size_t n = rrdcached_journal_times(&f->daemon, path, times, 256);
  assert_int_equal(n, (size_t)(last - first + 1));
  for (size_t i = 0; i < n; i++)
    assert_int_equal(times[i], first + (time_t)i);
  double v[17];
  values_at(vmid, last, v);
  rrd_row_format(&layout_pve_vm_9_0, last, v, 17, want, sizeof(want));
  rrdcached_journal_row(&f->daemon, path, last, have, sizeof(have));
  assert_string_equal(have, want);
}

/* With the sink and the daemon stopped: guests 100-102 have every row from
 * START to last. */
static void assert_journals_at_stop(struct fixture *f, time_t last) {
  rrd_sink_free(f->sink);
  f->sink = NULL;
  rrdcached_stop(&f->daemon);
  for (int vmid = 100; vmid < 103; vmid++)
    assert_journal(f, vmid, START, last);
}

static time_t disk_last_update(const char *path) {
  char err[256];
  time_t t = 0;
  assert_int_equal(rrd_file_last_update(path, &t, err, sizeof(err)), 0);
  return t;
}

/* ---- direct ------------------------------------------------------------ */

static void test_direct(void **state) {
  struct fixture *f = *state;
  mkdir(f->daemon.db, 0750);
  open_sink(f, NULL, 0);
  char path[600];
  guest_path(f, 100, path, sizeof(path));
  for (time_t t = START; t < START + 3; t++)
    write_row(f, 100, t);
  assert_int_equal(disk_last_update(path), START + 2); /* no flush needed */
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), 0);
  struct rrd_sink_stats st = stats(f);
  assert_false(st.daemon);
  assert_int_equal(st.store.rows[RRD_STORE_CREATED], 1);
  assert_int_equal(st.store.rows[RRD_STORE_WRITTEN], 2);
  /* what the store reports goes to the log */
  guest_path(f, 101, path, sizeof(path));
  fixture_write(path, "x", 1);
  write_row(f, 101, START);
  assert_int_equal(lines_with(&f->log, path), 1);
  assert_int_equal(errors(&f->log), 1);
}

/* ---- through the daemon ------------------------------------------------ */

static void test_rows_in_order(void **state) {
  struct fixture *f = *state;
  rrdcached_start(&f->daemon);
  open_sink(f, f->daemon.address, 0);
  for (time_t t = START; t < START + 20; t++)
    for (int vmid = 100; vmid < 103; vmid++)
      write_row(f, vmid, t);
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), 0);
  char path[600];
  for (int vmid = 100; vmid < 103; vmid++) {
    guest_path(f, vmid, path, sizeof(path));
    assert_int_equal(disk_last_update(path), START + 19); /* flushed */
  }
  struct rrd_sink_stats st = stats(f);
  assert_true(st.daemon && st.reachable);
  assert_int_equal(st.queued, 0);
  assert_int_equal(st.store.rows[RRD_STORE_CREATED], 3);
  assert_int_equal(st.store.rows[RRD_STORE_WRITTEN], 57);
  assert_int_equal(lines_with(&f->log, "Connected to rrdcached at unix:"), 1);
  assert_int_equal(errors(&f->log), 0);
  assert_journals_at_stop(f, START + 19);
}

/* Flushing one file writes that file only. */
static void test_flush_one_file(void **state) {
  struct fixture *f = *state;
  rrdcached_start(&f->daemon);
  open_sink(f, f->daemon.address, 0);
  for (time_t t = START; t < START + 3; t++) {
    write_row(f, 100, t);
    write_row(f, 101, t);
  }
  assert_int_equal(rrd_sink_flush(f->sink, &layout_pve_vm_9_0, NULL, "100"), 0);
  char p100[600], p101[600];
  guest_path(f, 100, p100, sizeof(p100));
  guest_path(f, 101, p101, sizeof(p101));
  assert_int_equal(disk_last_update(p100), START + 2);
  assert_true(disk_last_update(p101) < START); /* as created */
  assert_int_equal(rrd_sink_flush(f->sink, &layout_pve_vm_9_0, NULL, "../x"),
                   -EINVAL);
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), 0);
  assert_int_equal(disk_last_update(p101), START + 2);
}

/* Not running at the start: writers do not wait, rows wait, one line
 * each for "cannot reach" and "reachable again", then every row in
 * order. */
static void test_daemon_not_started(void **state) {
  struct fixture *f = *state;
  open_sink(f, f->daemon.address, 0);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (time_t t = START; t < START + 50; t++)
    write_row(f, 100, t);
  assert_true(seconds_since(&t0) < 0.05);
  usleep(300000); /* a few reconnect attempts */
  struct rrd_sink_stats st = stats(f);
  assert_false(st.reachable);
  assert_int_equal(st.queued, 50);
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), -ETIMEDOUT);
  rrdcached_start(&f->daemon);
  wait_drained(f);
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), 0);
  assert_int_equal(lines_with(&f->log, "Cannot reach rrdcached"), 1);
  assert_int_equal(lines_with(&f->log, "is reachable again"), 1);
  assert_int_equal(lines_with(&f->log, "writing the 50 rows queued"), 1);
  assert_int_equal(lines_with(&f->log, "Connected to"), 0); /* "again" */
  assert_int_equal(errors(&f->log), 1);
  rrd_sink_free(f->sink);
  f->sink = NULL;
  rrdcached_stop(&f->daemon);
  assert_journal(f, 100, START, START + 49);
}

/* Stopped in the middle and started again: nothing lost, nothing twice,
 * one "lost" and one "reachable again" (the failed attempts in between say
 * nothing, and "Connected" is said the first time only). */
static void test_daemon_restart(void **state) {
  struct fixture *f = *state;
  rrdcached_start(&f->daemon);
  open_sink(f, f->daemon.address, 0);
  for (time_t t = START; t < START + 10; t++)
    write_row(f, 100, t);
  wait_drained(f);
  rrdcached_stop(&f->daemon);
  for (time_t t = START + 10; t < START + 20; t++)
    write_row(f, 100, t);
  usleep(200000);
  assert_int_equal(lines_with(&f->log, "Lost the connection to rrdcached"), 1);
  rrdcached_start(&f->daemon);
  for (time_t t = START + 20; t < START + 30; t++)
    write_row(f, 100, t);
  wait_drained(f);
  assert_int_equal(lines_with(&f->log, "is reachable again"), 1);
  assert_int_equal(lines_with(&f->log, "Cannot reach"), 0);
  assert_int_equal(lines_with(&f->log, "Connected to rrdcached"), 1);
  assert_int_equal(errors(&f->log), 1);
  rrd_sink_free(f->sink);
  f->sink = NULL;
  rrdcached_stop(&f->daemon);
  assert_journal(f, 100, START, START + 29);
}

/* A bounded queue: rows beyond it are dropped and counted, in one line
 * when it fills and one when it drains. */
static void test_queue_overflow(void **state) {
  struct fixture *f = *state;
  open_sink(f, f->daemon.address, 10);
  for (time_t t = START; t < START + 25; t++)
    write_row(f, 100, t);
  struct rrd_sink_stats st = stats(f);
  assert_int_equal(st.queued, 10);
  assert_int_equal(st.queue_peak, 10);
  assert_int_equal(st.overflowed, 15);
  assert_int_equal(lines_with(&f->log, "is full (10 rows)"), 1);
  rrdcached_start(&f->daemon);
  wait_drained(f);
  assert_int_equal(lines_with(&f->log, "15 rows were dropped"), 1);
  rrd_sink_free(f->sink);
  f->sink = NULL;
  rrdcached_stop(&f->daemon);
  assert_journal(f, 100, START, START + 9);
}

/* A daemon that answered the first row and is frozen (SIGSTOP) with the
 * second in flight, for longer than the sink's timeout. */
static void freeze_with_a_row_in_flight(struct fixture *f) {
  rrdcached_start(&f->daemon);
  open_sink(f, f->daemon.address, 0);
  write_row(f, 100, START);
  wait_drained(f);
  rrdcached_freeze(&f->daemon);
  write_row(f, 100, START + 1); /* the sender is stuck with this one */
  usleep((useconds_t)(TIMEOUT * 1e6) + 200000);
}

/* SIGSTOP: the sender waits in librrd, writers do not; after timeout the
 * next writer says the daemon does not answer, once; SIGCONT and the rows
 * follow. */
static void test_frozen_daemon(void **state) {
  struct fixture *f = *state;
  freeze_with_a_row_in_flight(f);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (time_t t = START + 2; t < START + 10; t++)
    write_row(f, 100, t);
  assert_true(seconds_since(&t0) < 0.05);
  assert_int_equal(lines_with(&f->log, "has not answered for"), 1);
  assert_false(stats(f).reachable);
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), -ETIMEDOUT);
  rrdcached_thaw(&f->daemon);
  wait_drained(f);
  assert_int_equal(lines_with(&f->log, "answers again"), 1);
  assert_int_equal(errors(&f->log), 1);
  rrd_sink_free(f->sink);
  f->sink = NULL;
  rrdcached_stop(&f->daemon);
  assert_journal(f, 100, START, START + 9);
}

/* Frozen, said so, then killed: the outage has its one line already, so
 * no "lost" on top of it, and its end is "reachable again" (not "answers
 * again"); every row still goes in. */
static void test_frozen_then_gone(void **state) {
  struct fixture *f = *state;
  freeze_with_a_row_in_flight(f);
  write_row(f, 100, START + 2); /* and this writer notices */
  assert_int_equal(lines_with(&f->log, "has not answered for"), 1);
  rrdcached_kill(&f->daemon);
  usleep(200000); /* the request fails, reconnecting fails */
  assert_false(stats(f).reachable);
  rrdcached_start(&f->daemon);
  for (time_t t = START + 3; t < START + 6; t++)
    write_row(f, 100, t);
  wait_drained(f);
  assert_int_equal(lines_with(&f->log, "Lost the connection"), 0);
  assert_int_equal(lines_with(&f->log, "Cannot reach"), 0);
  assert_int_equal(lines_with(&f->log, "is reachable again"), 1);
  assert_int_equal(lines_with(&f->log, "answers again"), 0);
  assert_int_equal(errors(&f->log), 1);
  assert_int_equal(stats(f).store.rows[RRD_STORE_WRITTEN], 5);
}

/* ---- bursts ------------------------------------------------------------ */

#define GATHER 1.5 /* long enough for the test's own pauses */

/* Three guests' files made and written once: the rows after that are plain
 * updates.  Returns the exchanges so far. */
static unsigned long long three_files(struct fixture *f) {
  for (int vmid = 100; vmid < 103; vmid++)
    write_row(f, vmid, START);
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), 0);
  struct rrd_sink_stats st = stats(f);
  assert_int_equal(st.store.rows[RRD_STORE_CREATED], 3);
  usleep(100000); /* the sender waits for work again */
  return st.exchanges;
}

/* A daemon, a sink that gathers for gather s, three files; t0 is now.
 * Returns the exchanges so far. */
static unsigned long long start_gathering(struct fixture *f, double gather,
                                          struct timespec *t0) {
  rrdcached_start(&f->daemon);
  open_sink_gathering(f, f->daemon.address, 0, gather);
  unsigned long long before = three_files(f);
  clock_gettime(CLOCK_MONOTONIC, t0);
  return before;
}

/* Rows that come one by one within the gathering time go to the daemon in
 * one exchange, after it. */
static void test_burst_in_one_exchange(void **state) {
  struct fixture *f = *state;
  struct timespec t0;
  unsigned long long before = start_gathering(f, GATHER, &t0);
  for (int vmid = 100; vmid < 103; vmid++) {
    write_row(f, vmid, START + 1);
    usleep(50000);
  }
  struct rrd_sink_stats st = stats(f);
  if (seconds_since(&t0) < GATHER - 0.5) { /* else too slow to tell */
    assert_int_equal(st.queued, 3);
    assert_int_equal(st.exchanges, before);
  }
  wait_drained(f);
  assert_true(seconds_since(&t0) >= GATHER);
  st = stats(f);
  assert_int_equal(st.exchanges, before + 1);
  assert_int_equal(st.store.rows[RRD_STORE_WRITTEN], 3);
  assert_int_equal(errors(&f->log), 0);
  assert_journals_at_stop(f, START + 1);
}

/* A flush does not wait for the gathering: the rows go at once, in one
 * exchange, and the flush returns. */
static void test_flush_ends_gathering(void **state) {
  struct fixture *f = *state;
  struct timespec t0;
  unsigned long long before = start_gathering(f, GATHER, &t0);
  for (int vmid = 100; vmid < 103; vmid++)
    write_row(f, vmid, START + 1);
  assert_int_equal(rrd_sink_flush(f->sink, NULL, NULL, NULL), 0);
  assert_true(seconds_since(&t0) < GATHER - 0.5);
  assert_int_equal(stats(f).exchanges, before + 1);
  char path[600];
  for (int vmid = 100; vmid < 103; vmid++) {
    guest_path(f, vmid, path, sizeof(path));
    assert_int_equal(disk_last_update(path), START + 1); /* flushed */
  }
}

/* Nor does the shutdown: the gathered row reaches the daemon. */
static void test_shutdown_ends_gathering(void **state) {
  struct fixture *f = *state;
  struct timespec t0;
  start_gathering(f, GATHER, &t0);
  write_row(f, 101, START + 1);
  rrd_sink_free(f->sink);
  f->sink = NULL;
  assert_true(seconds_since(&t0) < GATHER - 0.5);
  assert_int_equal(lines_with(&f->log, "rows for rrdcached"), 0);
  rrdcached_stop(&f->daemon);
  assert_journal(f, 101, START, START + 1);
}

/* Without gathering a row goes as soon as it comes. */
static void test_no_gathering(void **state) {
  struct fixture *f = *state;
  struct timespec t0;
  unsigned long long before = start_gathering(f, -1, &t0);
  write_row(f, 100, START + 1);
  wait_drained(f);
  assert_true(seconds_since(&t0) < GATHER - 0.5);
  assert_int_equal(stats(f).exchanges, before + 1);
}

/* ---- shutdown ---------------------------------------------------------- */

static void test_shutdown_with_rows_left(void **state) {
  struct fixture *f = *state;
  open_sink(f, f->daemon.address, 0);
  for (time_t t = START; t < START + 5; t++)
    write_row(f, 100, t);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rrd_sink_free(f->sink);
  f->sink = NULL;
  assert_true(seconds_since(&t0) < TIMEOUT + 0.5);
  assert_int_equal(lines_with(&f->log, "5 rows for rrdcached at " /* ... */),
                   1);
  assert_int_equal(lines_with(&f->log, "the daemon was unreachable"), 1);
}

/* A daemon frozen at shutdown does not hold it up; the sender cleans up
 * after itself once the daemon answers. */
static void test_shutdown_frozen(void **state) {
  struct fixture *f = *state;
  rrdcached_start(&f->daemon);
  open_sink(f, f->daemon.address, 0);
  write_row(f, 100, START);
  wait_drained(f);
  rrdcached_freeze(&f->daemon);
  write_row(f, 100, START + 1);
  write_row(f, 100, START + 2);
  usleep(50000);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rrd_sink_free(f->sink);
  f->sink = NULL;
  double took = seconds_since(&t0);
  assert_true(took < TIMEOUT + 1.5);
  assert_int_equal(lines_with(&f->log, "giving up on it"), 1);
  int lines = f->log.count;
  rrdcached_thaw(&f->daemon);
  usleep(300000); /* the sender finishes and frees the sink */
  assert_int_equal(f->log.count, lines); /* and says nothing more */
}

int main(void) {
  if (!rrdcached_available()) {
    printf("rrdcached is not installed\n");
    return 77;
  }
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_direct),
      T(test_rows_in_order),
      T(test_flush_one_file),
      T(test_daemon_not_started),
      T(test_daemon_restart),
      T(test_queue_overflow),
      T(test_frozen_daemon),
      T(test_frozen_then_gone),
      T(test_burst_in_one_exchange),
      T(test_flush_ends_gathering),
      T(test_shutdown_ends_gathering),
      T(test_no_gathering),
      T(test_shutdown_with_rows_left),
      T(test_shutdown_frozen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

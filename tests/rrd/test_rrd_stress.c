/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Write-path concurrency: several threads hand rows of many guests to one
 * rrd_sink at the same time, as collectd's write threads do, while another
 * thread keeps asking for statistics and flushes.  Directly through librrd
 * and through a real rrdcached, every file must end with exactly the rows
 * it was given: its last update and last values those of the last round,
 * every row counted once as created or written, nothing else.  Built with
 * -DPVECG_TSAN=ON this runs under ThreadSanitizer (label tsan), which fails
 * the test on any data race in rrd/.
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

#include <rrd.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define START 1800000000
#define THREADS 4
#define GUESTS 40
#define ROUNDS 20
#define FIRST_VMID 1000

struct stress {
  struct rrd_sink *sink;
  pthread_barrier_t round;
  atomic_bool writing;
  atomic_int errors; /* lines the sink logged as errors */
};

struct writer {
  struct stress *s;
  int id;
};

/* ---- rows -------------------------------------------------------------- */

/* The values of round r of guest g: exact in binary, distinct per guest and
 * round, counters rising. */
static void row_values(int g, int r, double *v) {
  const struct rrd_layout *l = &layout_pve_vm_9_0;
  for (size_t i = 0; i < l->ds_count; i++)
    v[i] = l->ds[i].type == RRD_DS_DERIVE
               ? (double)(g * 100000 + r * 100 + (int)i)
               : g + r / 4.0 + (double)i;
}

static void guest_name(int g, char *buf, size_t size) {
  snprintf(buf, size, "%d", FIRST_VMID + g);
}

/* ---- threads ----------------------------------------------------------- */

static void count_errors(void *ctx, enum rrd_sink_level level,
                         const char *message) {
  struct stress *s = ctx;
  if (level == RRD_SINK_ERROR) {
    atomic_fetch_add(&s->errors, 1);
    fprintf(stderr, "error: %s\n", message);
  }
}

/* Each round, thread id writes the guests g with (g + round) % THREADS ==
 * id: the writers of one file change from round to round, and the barrier
 * keeps one file's rows in time order, as collectd's intervals do. */
static void *writer_main(void *arg) {
  struct writer *w = arg;
  for (int r = 0; r < ROUNDS; r++) {
    pthread_barrier_wait(&w->s->round);
    for (int g = 0; g < GUESTS; g++) {
      if ((g + r) % THREADS != w->id)
        continue;
      double v[RRD_LAYOUT_DS_MAX];
      char name[16];
      row_values(g, r, v);
      guest_name(g, name, sizeof(name));
      rrd_sink_write(w->s->sink, &layout_pve_vm_9_0, NULL, name, START + r, v,
                     layout_pve_vm_9_0.ds_count);
    }
  }
  return NULL;
}

/* collectd's flush and a statistics reader, alongside the writers. */
static void *observer_main(void *arg) {
  struct stress *s = arg;
  while (atomic_load(&s->writing)) {
    struct rrd_sink_stats st;
    rrd_sink_stats(s->sink, &st);
    char name[16];
    guest_name((int)(st.queued % GUESTS), name, sizeof(name));
    rrd_sink_flush(s->sink, st.queued % 2 ? &layout_pve_vm_9_0 : NULL, NULL,
                   name);
    usleep(1000);
  }
  return NULL;
}

static void run_threads(struct stress *s) {
  pthread_t writers[THREADS], observer;
  struct writer w[THREADS];
  assert_int_equal(pthread_barrier_init(&s->round, NULL, THREADS), 0);
  atomic_store(&s->writing, true);
  assert_int_equal(pthread_create(&observer, NULL, observer_main, s), 0);
  for (int i = 0; i < THREADS; i++) {
    w[i] = (struct writer){s, i};
    assert_int_equal(pthread_create(&writers[i], NULL, writer_main, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(writers[i], NULL);
  atomic_store(&s->writing, false);
  pthread_join(observer, NULL);
  pthread_barrier_destroy(&s->round);
}

/* ---- checks ------------------------------------------------------------ */

/* The file's last update is the last round's time and its last values are
 * exactly the fields of that round's row. */
static void assert_last_row(const char *db, int g) {
  char path[600], name[16], want[RRD_ROW_SIZE];
  guest_name(g, name, sizeof(name));
  fixture_path(path, "%s/pve-vm-9.0/%s", db, name);
  double v[RRD_LAYOUT_DS_MAX];
  row_values(g, ROUNDS - 1, v);
  assert_true(rrd_row_format(&layout_pve_vm_9_0, START + ROUNDS - 1, v,
                             layout_pve_vm_9_0.ds_count, want,
                             sizeof(want)) > 0);
  time_t t = 0;
  unsigned long n = 0;
  char **names = NULL, **values = NULL;
  assert_int_equal(rrd_lastupdate_r(path, &t, &n, &names, &values), 0);
  assert_int_equal(t, START + ROUNDS - 1);
  assert_int_equal(n, layout_pve_vm_9_0.ds_count);
  char have[RRD_ROW_SIZE];
  int used = snprintf(have, sizeof(have), "%lld", (long long)t);
  for (unsigned long i = 0; i < n; i++) {
    used +=
        snprintf(have + used, sizeof(have) - (size_t)used, ":%s", values[i]);
    free(names[i]);
    free(values[i]);
  }
  free(names);
  free(values);
  assert_string_equal(have, want);
}

static void assert_counts(const struct rrd_sink_stats *st) {
  for (int o = 0; o < RRD_STORE_OUTCOMES; o++) {
    unsigned long long want = o == RRD_STORE_CREATED ? GUESTS
                              : o == RRD_STORE_WRITTEN
                                  ? (unsigned long long)GUESTS * (ROUNDS - 1)
                                  : 0;
    if (st->store.rows[o] != want)
      fail_msg("outcome %d: %llu rows, expected %llu", o, st->store.rows[o],
               want);
  }
}

static struct rrd_sink *open_sink(struct stress *s, const char *db,
                                  const char *address) {
  struct rrd_sink_options o = {
      .data_dir = db,
      .daemon_address = address,
      .recheck_seconds = 3600,
      .timeout = 5,
      .retry_min = 0.05,
      .retry_max = 0.2,
      .log = count_errors,
      .log_ctx = s,
  };
  char err[256] = "";
  struct rrd_sink *sink = NULL;
  if (rrd_sink_new(&o, &sink, err, sizeof(err)) != 0)
    fail_msg("rrd_sink_new: %s", err);
  return sink;
}

/* ---- tests ------------------------------------------------------------- */

static void test_direct(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("rrd-stress");
  char db[300];
  fixture_path(db, "%s/db", dir);
  struct stress s = {0};
  s.sink = open_sink(&s, db, NULL);
  run_threads(&s);
  struct rrd_sink_stats st;
  rrd_sink_stats(s.sink, &st);
  rrd_sink_free(s.sink);
  assert_int_equal(atomic_load(&s.errors), 0);
  assert_counts(&st);
  for (int g = 0; g < GUESTS; g++)
    assert_last_row(db, g);
  fixture_remove(dir);
  free(dir);
}

static void test_rrdcached(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  char *dir = fixture_tmpdir("rrd-stress");
  struct rrdcached d;
  rrdcached_prepare(&d, dir, false);
  rrdcached_start(&d);
  struct stress s = {0};
  s.sink = open_sink(&s, d.db, d.address);
  run_threads(&s);
  assert_int_equal(rrd_sink_flush(s.sink, NULL, NULL, NULL), 0);
  struct rrd_sink_stats st;
  rrd_sink_stats(s.sink, &st);
  rrd_sink_free(s.sink);
  rrdcached_stop(&d);
  assert_int_equal(atomic_load(&s.errors), 0);
  assert_int_equal(st.queued, 0);
  assert_int_equal(st.overflowed, 0);
  assert_counts(&st);
  for (int g = 0; g < GUESTS; g++) {
    assert_last_row(d.db, g);
    char path[600], name[16];
    guest_name(g, name, sizeof(name));
    fixture_path(path, "%s/pve-vm-9.0/%s", d.db, name);
    time_t times[ROUNDS + 1];
    assert_int_equal(rrdcached_journal_times(&d, path, times, ROUNDS + 1),
                     ROUNDS); /* each row accepted once, in order */
    for (int r = 0; r < ROUNDS; r++)
      assert_int_equal(times[r], START + r);
  }
  fixture_remove(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_direct),
      cmocka_unit_test(test_rrdcached),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

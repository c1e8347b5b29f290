/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/file/rrd_fetch.c: rows written with librrd (or sent to a real
 * rrdcached and not yet on disk) come back with their exact values and
 * Proxmox's row times, from the archive the resolution asks for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_fetch.h"
#include "pvecg/rrd_file.h"
#include "rrd_fixture.h"
#include "pvecg/rrd_row.h"
#include "rrdcached_fixture.h"

#include <rrd.h>
#include <rrd_client.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A multiple of 1800 and of 60, so both archives' rows align with it. */
#define T0 1700002800
#define ROWS 40 /* one per minute from T0 + 60 */

/* ---- fetching ---------------------------------------------------------- */

struct fixture {
  char *dir;
  char path[512];
  struct rrdcached daemon; /* pid 0 unless a test started it */
};

/* The row at T0 + 60 * i: memhost = 1000 * i, netin counting 6000 bytes a
 * minute (100/s); row 7 leaves memhost unknown. */
static void row_values(int i, double values[]) {
  for (size_t k = 0; k < layout_pve_vm_9_0.ds_count; k++)
    values[k] = NAN;
  values[rrd_layout_ds_index(&layout_pve_vm_9_0, "memhost")] =
      i == 7 ? NAN : 1000.0 * i;
  values[rrd_layout_ds_index(&layout_pve_vm_9_0, "netin")] = 6000.0 * i;
}

static void format_row(int i, char *buf, size_t size) {
  double values[RRD_LAYOUT_DS_MAX];
  row_values(i, values);
  assert_true(rrd_row_format(&layout_pve_vm_9_0, T0 + 60 * i, values,
                             layout_pve_vm_9_0.ds_count, buf, size) > 0);
}

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("rrd-fetch");
  snprintf(f->path, sizeof(f->path), "%s/100", f->dir);
  char err[256], row[RRD_ROW_SIZE];
  assert_int_equal(
      rrd_file_create(&layout_pve_vm_9_0, f->path, T0, err, sizeof(err)), 0);
  for (int i = 1; i <= ROWS; i++) {
    format_row(i, row, sizeof(row));
    assert_int_equal(rrd_file_update(f->path, row, err, sizeof(err)), 0);
  }
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  rrdc_disconnect();
  if (f->daemon.pid > 0)
    rrdcached_kill(&f->daemon);
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

static double value_of(const struct rrd_series *s, size_t row, const char *ds) {
  int i = rrd_series_ds_index(s, ds);
  assert_true(i >= 0);
  return rrd_series_row(s, row)[i];
}

static void test_fetch_minutes(void **state) {
  struct fixture *f = *state;
  struct rrd_fetch_request req = {.path = f->path,
                                  .cf = RRD_CF_AVERAGE,
                                  .resolution = 60,
                                  .start = T0 + 60,
                                  .end = T0 + 600};
  struct rrd_series s;
  char err[256];
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), 0);
  assert_int_equal(s.step, 60);
  assert_int_equal(s.ds_count, layout_pve_vm_9_0.ds_count);
  assert_string_equal(s.ds_names[10], "memhost");
  assert_int_equal(rrd_series_ds_index(&s, "nosuch"), -ENOENT);
  /* Rows begin at T0 + 60; each is labelled with its end, the time of the
   * update that closes it (as rrdtool fetch prints it). */
  assert_int_equal(s.start, T0 + 60);
  assert_int_equal(s.row_count, 10);
  for (size_t r = 0; r < s.row_count; r++) {
    int i = (int)r + 2;
    assert_int_equal(rrd_series_row_start(&s, r), T0 + 60 * (i - 1));
    assert_int_equal(rrd_series_time(&s, r), T0 + 60 * i);
    if (i == 7)
      assert_true(isnan(value_of(&s, r, "memhost")));
    else
      assert_int_equal((int64_t)value_of(&s, r, "memhost"), 1000 * i);
    assert_int_equal((int64_t)value_of(&s, r, "netin"), 100);
    assert_true(isnan(value_of(&s, r, "cpu")));
  }
  rrd_series_free(&s);
  assert_null(s.values);
}

/* A coarse resolution reads the 30-minute archive: its first row holds the
 * largest of minutes 1..30; the second is not complete yet.  librrd ends a
 * series one row after an aligned end. */
static void test_fetch_coarse(void **state) {
  struct fixture *f = *state;
  struct rrd_fetch_request req = {.path = f->path,
                                  .cf = RRD_CF_MAX,
                                  .resolution = 1800,
                                  .start = T0,
                                  .end = T0 + 1800};
  struct rrd_series s;
  char err[256];
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), 0);
  assert_int_equal(s.step, 1800);
  assert_int_equal(s.start, T0);
  assert_int_equal(s.row_count, 2);
  assert_int_equal((int64_t)value_of(&s, 0, "memhost"), 30000);
  assert_int_equal(rrd_series_row_start(&s, 1), T0 + 1800);
  assert_int_equal(rrd_series_time(&s, 1), T0 + 3600);
  assert_true(isnan(value_of(&s, 1, "memhost")));
  rrd_series_free(&s);
}

static void test_fetch_errors(void **state) {
  struct fixture *f = *state;
  char missing[600], err[256];
  fixture_path(missing, "%s/nosuch", f->dir);
  struct rrd_fetch_request req = {
      .path = missing, .cf = RRD_CF_AVERAGE, .start = T0, .end = T0 + 60};
  struct rrd_series s;
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), -EIO);
  assert_non_null(strstr(err, "No such file"));
  req.path = f->path;
  req.start = T0 + 120;
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), -EINVAL);
  req.path = "";
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), -EINVAL);
  req = (struct rrd_fetch_request){.path = f->path,
                                   .daemon = "unix:/nonexistent/sock",
                                   .start = T0,
                                   .end = T0 + 60};
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), -ENOTCONN);
  assert_non_null(strstr(err, "cannot reach rrdcached at unix:/nonexistent"));
}

/* ---- through rrdcached ------------------------------------------------- */

/* A row the daemon holds in its cache is in the answer: over a unix socket
 * the file is flushed and read here at any resolution. */
static void test_fetch_daemon_unix(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = &f->daemon;
  rrdcached_prepare(d, f->dir, false);
  rrdcached_start(d);
  char path[600], err[256], row[RRD_ROW_SIZE];
  fixture_path(path, "%s/100", d->db);
  assert_int_equal(
      rrd_file_create(&layout_pve_vm_9_0, path, T0, err, sizeof(err)), 0);
  assert_int_equal(rrdc_connect(d->address), 0);
  for (int i = 1; i <= 3; i++) {
    format_row(i, row, sizeof(row));
    const char *rows[] = {row};
    assert_int_equal(rrdc_update(path, 1, rows), 0);
  }
  struct rrd_fetch_request req = {.path = path,
                                  .daemon = d->address,
                                  .cf = RRD_CF_AVERAGE,
                                  .resolution = 60,
                                  .start = T0,
                                  .end = T0 + 180};
  struct rrd_series s;
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), 0);
  assert_int_equal(s.row_count, 4);
  assert_int_equal((int64_t)value_of(&s, 2, "memhost"), 3000);
  assert_true(isnan(value_of(&s, 3, "memhost")));
  rrd_series_free(&s);
}

/* Over TCP the daemon reads the file: its finest rows, and an error rather
 * than the wrong rows for a coarser resolution. */
static void test_fetch_daemon_tcp(void **state) {
  struct fixture *f = *state;
  if (!rrdcached_available())
    skip();
  struct rrdcached *d = &f->daemon;
  rrdcached_prepare(d, f->dir, true);
  rrdcached_start(d);
  char path[600], err[256], row[RRD_ROW_SIZE];
  fixture_path(path, "%s/100", d->db);
  assert_int_equal(
      rrd_file_create(&layout_pve_vm_9_0, path, T0, err, sizeof(err)), 0);
  for (int i = 1; i <= 3; i++) {
    format_row(i, row, sizeof(row));
    assert_int_equal(rrd_file_update(path, row, err, sizeof(err)), 0);
  }
  struct rrd_fetch_request req = {.path = "100",
                                  .daemon = d->address,
                                  .cf = RRD_CF_AVERAGE,
                                  .resolution = 60,
                                  .start = T0,
                                  .end = T0 + 180};
  struct rrd_series s;
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), 0);
  assert_int_equal(s.step, 60);
  assert_int_equal(s.row_count, 4);
  assert_int_equal((int64_t)value_of(&s, 1, "memhost"), 2000);
  rrd_series_free(&s);
  req.resolution = 1800;
  assert_int_equal(rrd_fetch_series(&req, &s, err, sizeof(err)), -EOPNOTSUPP);
  assert_non_null(strstr(err, "only returns 60 s rows, not 1800 s"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fetch_minutes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fetch_coarse, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fetch_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fetch_daemon_unix, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fetch_daemon_tcp, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

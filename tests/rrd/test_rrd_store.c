/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/store/rrd_store.c: every outcome, when it asks to be logged,
 * that files it does not own are never changed, and that parallel writers leave
 * every file with exactly the rows they were given.  The clock is the now
 * parameter, so back-off and re-check timing are tested without sleeping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file.h"
#include "loop_count.h"
#include "rrd_fixture.h"
#include "pvecg/rrd_row.h"
#include "pvecg/rrd_store.h"
#include "rrd_store_entry.h" /* store_start_time */

#include <rrd.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NOW 1800000000 /* the wall clock at the start of each test */
#define RECHECK 3600

struct fixture {
  char *dir;
  char data_dir[512];
  char vm_dir[600]; /* <data_dir>/pve-vm-9.0 */
  struct rrd_store *store;
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("rrd-store");
  snprintf(f->data_dir, sizeof(f->data_dir), "%s/db", f->dir);
  snprintf(f->vm_dir, sizeof(f->vm_dir), "%s/pve-vm-9.0", f->data_dir);
  struct rrd_store_options o = {.data_dir = f->data_dir,
                                .recheck_seconds = RECHECK};
  umask(022);
  assert_int_equal(rrd_store_new(&o, &f->store), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  rrd_store_free(f->store);
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

/* ---- helpers ----------------------------------------------------------- */

/* The values of row k for file number file: exact in binary, counters
 * rising. */
static void row_values(const struct rrd_layout *layout, int file, int k,
                       double *v) {
  for (size_t i = 0; i < layout->ds_count; i++)
    v[i] = layout->ds[i].type == RRD_DS_DERIVE
               ? (double)(file * 100000 + k * 100 + (int)i)
               : file + k / 4.0 + (double)i;
}

static enum rrd_store_outcome write_at(struct fixture *f, const char *name,
                                       time_t t, time_t now,
                                       struct rrd_store_result *res) {
  double v[RRD_LAYOUT_DS_MAX];
  row_values(&layout_pve_vm_9_0, 1, (int)(t % 1000), v);
  assert_int_equal(rrd_store_write(f->store, &layout_pve_vm_9_0, NULL, name, t,
                                   v, layout_pve_vm_9_0.ds_count, now, res),
                   0);
  return res->outcome;
}

static void assert_outcome(struct fixture *f, const char *name, time_t t,
                           time_t now, enum rrd_store_outcome want,
                           bool report) {
  struct rrd_store_result res;
  enum rrd_store_outcome have = write_at(f, name, t, now, &res);
  if (have != want || res.report != report)
    fail_msg("t=%lld now=%lld: outcome %d report %d, expected %d %d: %s",
             (long long)t, (long long)now, have, res.report, want, report,
             res.message);
  assert_true(res.message[0] != '\0');
}

static void assert_contains(const char *text, const char *part) {
  if (strstr(text, part) == NULL)
    fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

static time_t last_update(const char *path) {
  time_t last = 0;
  char err[512] = "";
  if (rrd_file_last_update(path, &last, err, sizeof(err)) != 0)
    fail_msg("%s: %s", path, err);
  return last;
}

/* The file's last values are exactly the fields of row. */
static int last_values_match(const char *path, const char *row) {
  time_t t;
  unsigned long n = 0;
  char **names = NULL, **values = NULL;
  if (rrd_lastupdate_r(path, &t, &n, &names, &values) != 0)
    return 0;
  int ok = 1;
  const char *field = strchr(row, ':');
  for (unsigned long i = 0; i < n; i++) {
    size_t len = field != NULL ? strcspn(field + 1, ":") : 0;
    ok = ok && field != NULL && strlen(values[i]) == len &&
         memcmp(values[i], field + 1, len) == 0;
    field = field != NULL ? strchr(field + 1, ':') : NULL;
    free(names[i]);
    free(values[i]);
  }
  free(names);
  free(values);
  return ok && field == NULL;
}

static mode_t mode_of(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return st.st_mode & 07777;
}

static void vm_path(const struct fixture *f, const char *name, char *buf,
                    size_t size) {
  assert_true((size_t)snprintf(buf, size, "%s/%s", f->vm_dir, name) < size);
}

/* ---- construction ------------------------------------------------------ */

static void test_new_invalid(void **state) {
  (void)state;
  struct rrd_store *store = (struct rrd_store *)0x1;
  struct rrd_store_options o = {.data_dir = "relative/db"};
  assert_int_equal(rrd_store_new(&o, &store), -EINVAL);
  o.data_dir = "";
  assert_int_equal(rrd_store_new(&o, &store), -EINVAL);
  o.data_dir = NULL;
  assert_int_equal(rrd_store_new(&o, &store), -EINVAL);
  assert_int_equal(rrd_store_new(NULL, &store), -EINVAL);
  assert_ptr_equal(store, (struct rrd_store *)0x1); /* untouched */
  rrd_store_free(NULL);
}

/* ---- the common path --------------------------------------------------- */

static void test_created_then_written(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700];
  vm_path(f, "100", path, sizeof(path));
  assert_int_equal(write_at(f, "100", NOW - 5, NOW, &res), RRD_STORE_CREATED);
  assert_false(res.report);
  assert_contains(res.message, path);
  assert_int_equal(mode_of(f->data_dir), 0750);
  assert_int_equal(mode_of(f->vm_dir), 0750);
  assert_int_equal(mode_of(path), 0644);
  assert_int_equal(rrd_file_check(&layout_pve_vm_9_0, path, NULL, 0), 0);
  assert_int_equal(last_update(path), NOW - 5);

  assert_int_equal(write_at(f, "100", NOW + 5, NOW + 10, &res),
                   RRD_STORE_WRITTEN);
  assert_false(res.report);
  assert_int_equal(last_update(path), NOW + 5);
  double v[17];
  char row[RRD_ROW_SIZE];
  row_values(&layout_pve_vm_9_0, 1, (NOW + 5) % 1000, v);
  rrd_row_format(&layout_pve_vm_9_0, NOW + 5, v, 17, row, sizeof(row));
  assert_true(last_values_match(path, row));
}

/* A row older than today's midnight still fits: the file starts before it. */
static void test_created_for_old_row(void **state) {
  struct fixture *f = *state;
  char path[700];
  vm_path(f, "101", path, sizeof(path));
  assert_outcome(f, "101", NOW - 3 * 86400, NOW, RRD_STORE_CREATED, false);
  assert_int_equal(last_update(path), NOW - 3 * 86400);
}

static void test_trailing_slash_and_layout_dirs(void **state) {
  struct fixture *f = *state;
  char dir[600], want[700];
  snprintf(dir, sizeof(dir), "%s//", f->data_dir);
  struct rrd_store_options o = {.data_dir = dir, .recheck_seconds = 60};
  struct rrd_store *store;
  assert_int_equal(rrd_store_new(&o, &store), 0);
  double v[19] = {0};
  struct rrd_store_result res;
  assert_int_equal(rrd_store_write(store, &layout_pve_node_9_0, NULL, "100",
                                   NOW, v, 19, NOW, &res),
                   0);
  assert_int_equal(res.outcome, RRD_STORE_CREATED);
  snprintf(want, sizeof(want), "%s/pve-node-9.0/100", f->data_dir);
  assert_int_equal(rrd_file_check(&layout_pve_node_9_0, want, NULL, 0), 0);
  char path[700];
  assert_int_equal(rrd_store_path(store, &layout_pve_node_9_0, NULL, "100",
                                  path, sizeof(path)),
                   0);
  assert_string_equal(path, want);
  /* the same name under another layout is another file */
  assert_int_equal(rrd_store_write(store, &layout_pve2_vm, NULL, "100", NOW, v,
                                   10, NOW, &res),
                   0);
  assert_int_equal(res.outcome, RRD_STORE_CREATED);
  snprintf(want, sizeof(want), "%s/pve2-vm/100", f->data_dir);
  assert_int_equal(
      rrd_store_path(store, &layout_pve2_vm, NULL, "100", path, sizeof(path)),
      0);
  assert_string_equal(path, want);
  assert_int_equal(rrd_file_check(&layout_pve2_vm, want, NULL, 0), 0);
  rrd_store_free(store);
}

static void test_deleted_file_is_created_again(void **state) {
  struct fixture *f = *state;
  char path[700];
  vm_path(f, "102", path, sizeof(path));
  assert_outcome(f, "102", NOW, NOW, RRD_STORE_CREATED, false);
  assert_int_equal(unlink(path), 0);
  assert_outcome(f, "102", NOW + 10, NOW + 10, RRD_STORE_CREATED, false);
  assert_int_equal(last_update(path), NOW + 10);
  assert_outcome(f, "102", NOW + 20, NOW + 20, RRD_STORE_WRITTEN, false);
}

/* Rows into a settled directory do not stat their file (the directory's
 * epoch holds, rrd_store_dirs.c), yet a file renamed over or deleted
 * there is found at the next second's row: never written into. */
static void test_replaced_in_settled_directory(void **state) {
  struct fixture *f = *state;
  char path[700], other[720];
  vm_path(f, "104", path, sizeof(path));
  snprintf(other, sizeof(other), "%s.other", path);
  assert_outcome(f, "104", NOW, NOW, RRD_STORE_CREATED, false);
  struct timespec settle = {.tv_sec = 1, .tv_nsec = 100000000};
  nanosleep(&settle, NULL);
  assert_outcome(f, "104", NOW + 10, NOW + 10, RRD_STORE_WRITTEN, false);
  assert_outcome(f, "104", NOW + 20, NOW + 20, RRD_STORE_WRITTEN, false);
  /* another layout's file put in its place */
  assert_int_equal(
      rrd_file_create(&layout_pve_node_9_0, other, NOW - 100, NULL, 0), 0);
  assert_int_equal(rename(other, path), 0);
  size_t len = 0;
  char *before = fixture_read(path, &len);
  struct rrd_store_result res;
  assert_int_equal(write_at(f, "104", NOW + 30, NOW + 30, &res),
                   RRD_STORE_FOREIGN);
  assert_true(fixture_same(path, before, len));
  free(before);
  /* deleted in the settled directory: made again */
  assert_int_equal(unlink(path), 0);
  nanosleep(&settle, NULL);
  assert_outcome(f, "104", NOW + RECHECK + 40, NOW + RECHECK + 40,
                 RRD_STORE_RECOVERED, true);
  assert_int_equal(last_update(path), NOW + RECHECK + 40);
}

/* ---- stale rows -------------------------------------------------------- */

static void test_stale(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700];
  vm_path(f, "103", path, sizeof(path));
  assert_outcome(f, "103", NOW, NOW, RRD_STORE_CREATED, false);
  size_t len = 0;
  char *before = fixture_read(path, &len);

  assert_int_equal(write_at(f, "103", NOW - 1, NOW + 1, &res), RRD_STORE_STALE);
  assert_true(res.report);
  assert_contains(res.message, path);
  assert_contains(res.message, "not newer");
  assert_outcome(f, "103", NOW - 5, NOW + 2, RRD_STORE_STALE, false);
  assert_outcome(f, "103", NOW - 2, NOW + 60, RRD_STORE_STALE, false);
  assert_int_equal(write_at(f, "103", NOW - 3, NOW + 61, &res),
                   RRD_STORE_STALE);
  assert_true(res.report); /* 60 s after the first report */
  assert_contains(res.message, "2 further problems");
  assert_true(fixture_same(path, before, len));
  free(before);

  assert_int_equal(write_at(f, "103", NOW + 10, NOW + 70, &res),
                   RRD_STORE_RECOVERED);
  assert_true(res.report);
  assert_contains(res.message, path);
  assert_int_equal(last_update(path), NOW + 10);
  assert_outcome(f, "103", NOW + 20, NOW + 80, RRD_STORE_WRITTEN, false);
}

/* Another writer moved the file on past our rows (pmxcfs writing the same
 * file): one error naming the file and the likely cause, then the file is
 * left alone -- unchanged, nothing logged -- until nobody else has written
 * it for RECHECK seconds; then writing resumes with one line. */
static void test_second_writer(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700], row[RRD_ROW_SIZE];
  vm_path(f, "104", path, sizeof(path));
  assert_outcome(f, "104", NOW, NOW, RRD_STORE_CREATED, false);
  double v[17] = {0};
  rrd_row_format(&layout_pve_vm_9_0, NOW + 100, v, 17, row, sizeof(row));
  assert_int_equal(rrd_file_update(path, row, NULL, 0), 0);

  assert_int_equal(write_at(f, "104", NOW + 50, NOW + 50, &res),
                   RRD_STORE_HELD);
  assert_true(res.report);
  assert_contains(res.message, path);
  assert_contains(res.message, "Another writer is updating");
  assert_contains(res.message, "pmxcfs");
  assert_contains(res.message, "its last update is 1800000100");

  size_t len = 0;
  char *before = fixture_read(path, &len);
  assert_outcome(f, "104", NOW + 150, NOW + 150, RRD_STORE_HELD, false);
  assert_outcome(f, "104", NOW + 160, NOW + 160, RRD_STORE_HELD, false);
  assert_true(fixture_same(path, before, len));
  free(before);

  /* Examined again: the other writer is still at it. */
  rrd_row_format(&layout_pve_vm_9_0, NOW + 200, v, 17, row, sizeof(row));
  assert_int_equal(rrd_file_update(path, row, NULL, 0), 0);
  assert_outcome(f, "104", NOW + 50 + RECHECK, NOW + 50 + RECHECK,
                 RRD_STORE_HELD, false);
  assert_int_equal(last_update(path), NOW + 200);
  /* A whole RECHECK without anyone else writing: ours again. */
  time_t t = NOW + 50 + 2 * RECHECK;
  assert_int_equal(write_at(f, "104", t, t, &res), RRD_STORE_RECOVERED);
  assert_true(res.report);
  assert_contains(res.message, "is written again");
  assert_contains(res.message, "after 4 rows");
  assert_int_equal(last_update(path), t);
  assert_outcome(f, "104", t + 10, t + 10, RRD_STORE_WRITTEN, false);
}

/* Rows of two writers that interleave are all accepted: only asking the
 * file shows someone else wrote -- at the second row after opening it, then
 * every RECHECK -- and asking changes nothing in it. */
static void test_interleaving_writer(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700], row[RRD_ROW_SIZE];
  vm_path(f, "105", path, sizeof(path));
  double v[17] = {0};
  assert_outcome(f, "105", NOW, NOW, RRD_STORE_CREATED, false);
  assert_outcome(f, "105", NOW + 10, NOW + 10, RRD_STORE_WRITTEN, false);
  rrd_row_format(&layout_pve_vm_9_0, NOW + 15, v, 17, row, sizeof(row));
  assert_int_equal(rrd_file_update(path, row, NULL, 0), 0);
  assert_outcome(f, "105", NOW + 20, NOW + 20, RRD_STORE_WRITTEN, false);
  rrd_row_format(&layout_pve_vm_9_0, NOW + 25, v, 17, row, sizeof(row));
  assert_int_equal(rrd_file_update(path, row, NULL, 0), 0);
  size_t len = 0;
  char *before = fixture_read(path, &len);

  time_t t = NOW + 10 + RECHECK;
  assert_int_equal(write_at(f, "105", t, t, &res), RRD_STORE_HELD);
  assert_true(res.report);
  assert_contains(res.message, "its last update is 1800000025");
  assert_contains(res.message, "last row written here (1800000020)");
  assert_true(fixture_same(path, before, len));
  free(before);
}

/* pmxcfs writes every 10 s: the second row already finds it out. */
static void test_other_writer_found_early(void **state) {
  struct fixture *f = *state;
  char path[700], row[RRD_ROW_SIZE];
  vm_path(f, "107", path, sizeof(path));
  double v[17] = {0};
  assert_outcome(f, "107", NOW, NOW, RRD_STORE_CREATED, false);
  rrd_row_format(&layout_pve_vm_9_0, NOW + 5, v, 17, row, sizeof(row));
  assert_int_equal(rrd_file_update(path, row, NULL, 0), 0);
  assert_outcome(f, "107", NOW + 10, NOW + 10, RRD_STORE_HELD, true);
  assert_int_equal(last_update(path), NOW + 5);
}

static void make_vm_dir(struct fixture *f);

/* A file found with rows newer than the first row for it: held like one
 * another writer moves on, not dropped row by row. */
static void test_file_found_ahead(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700], row[RRD_ROW_SIZE];
  make_vm_dir(f);
  vm_path(f, "108", path, sizeof(path));
  double v[17] = {0};
  assert_int_equal(rrd_file_create(&layout_pve_vm_9_0, path, NOW - 10, NULL, 0),
                   0);
  rrd_row_format(&layout_pve_vm_9_0, NOW + 100, v, 17, row, sizeof(row));
  assert_int_equal(rrd_file_update(path, row, NULL, 0), 0);
  assert_int_equal(write_at(f, "108", NOW, NOW, &res), RRD_STORE_HELD);
  assert_true(res.report);
  assert_contains(res.message, "newer than this row (1800000000)");
  assert_outcome(f, "108", NOW + 1, NOW + 1, RRD_STORE_HELD, false);
  /* nobody wrote since, and rows have caught up: written again */
  assert_outcome(f, "108", NOW + 200 + RECHECK, NOW + 200 + RECHECK,
                 RRD_STORE_RECOVERED, true);
}

/* A refusal naming the row's own time: the row is in the file already (a
 * daemon applied it, then the answer was lost and the row sent again). */
static void test_row_already_applied(void **state) {
  struct fixture *f = *state;
  char path[700], row[RRD_ROW_SIZE];
  vm_path(f, "106", path, sizeof(path));
  double v[17];
  assert_outcome(f, "106", NOW, NOW, RRD_STORE_CREATED, false);
  row_values(&layout_pve_vm_9_0, 1, (int)((NOW + 10) % 1000), v);
  rrd_row_format(&layout_pve_vm_9_0, NOW + 10, v, 17, row, sizeof(row));
  assert_int_equal(rrd_file_update(path, row, NULL, 0), 0);
  assert_outcome(f, "106", NOW + 10, NOW + 10, RRD_STORE_WRITTEN, false);
  assert_outcome(f, "106", NOW + 20, NOW + 20, RRD_STORE_WRITTEN, false);
  assert_int_equal(last_update(path), NOW + 20);
}

/* ---- foreign files ----------------------------------------------------- */

static void make_vm_dir(struct fixture *f) {
  assert_int_equal(mkdir(f->data_dir, 0750), 0);
  assert_int_equal(mkdir(f->vm_dir, 0750), 0);
}

static void test_foreign_layout(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700];
  make_vm_dir(f);
  vm_path(f, "200", path, sizeof(path));
  assert_int_equal(rrd_file_create(&layout_pve2_vm, path, NOW - 100, NULL, 0),
                   0);
  size_t len = 0;
  char *before = fixture_read(path, &len);

  assert_int_equal(write_at(f, "200", NOW, NOW, &res), RRD_STORE_FOREIGN);
  assert_true(res.report);
  assert_contains(res.message, path);
  assert_contains(res.message, "ds[10] is missing, expected 'memhost'");
  assert_contains(res.message, "left untouched");
  for (int i = 1; i < 200; i++)
    assert_outcome(f, "200", NOW + 10 * i, NOW + 10 * i, RRD_STORE_FOREIGN,
                   false);
  /* re-checked after RECHECK seconds: the same difference is not news */
  assert_outcome(f, "200", NOW + RECHECK, NOW + RECHECK, RRD_STORE_FOREIGN,
                 false);
  assert_true(fixture_same(path, before, len));
  free(before);
  assert_int_equal(last_update(path), NOW - 100);
}

static void test_foreign_recheck_and_recovery(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700];
  make_vm_dir(f);
  vm_path(f, "201", path, sizeof(path));
  fixture_write(path, "notes\n", 6);

  assert_int_equal(write_at(f, "201", NOW, NOW, &res), RRD_STORE_FOREIGN);
  assert_true(res.report);
  assert_contains(res.message, "cannot be read as an RRD file");
  assert_contains(res.message, "left untouched");
  assert_outcome(f, "201", NOW + 10, NOW + 10, RRD_STORE_FOREIGN, false);

  /* replaced by an RRD of another layout: seen only at the re-check */
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rrd_file_create(&layout_pve_node_9_0, path, NOW, NULL, 0),
                   0);
  assert_outcome(f, "201", NOW + RECHECK - 1, NOW + RECHECK - 1,
                 RRD_STORE_FOREIGN, false);
  assert_int_equal(write_at(f, "201", NOW + RECHECK, NOW + RECHECK, &res),
                   RRD_STORE_FOREIGN);
  assert_true(res.report); /* a new difference */
  assert_contains(res.message, "ds[0] is 'loadavg'");
  assert_int_equal(last_update(path), NOW);

  /* fixed: written at the next re-check, and the recovery is logged */
  assert_int_equal(unlink(path), 0);
  assert_int_equal(rrd_file_create(&layout_pve_vm_9_0, path, NOW, NULL, 0), 0);
  assert_outcome(f, "201", NOW + RECHECK + 10, NOW + RECHECK + 10,
                 RRD_STORE_FOREIGN, false);
  assert_int_equal(
      write_at(f, "201", NOW + 2 * RECHECK, NOW + 2 * RECHECK, &res),
      RRD_STORE_RECOVERED);
  assert_true(res.report);
  assert_int_equal(last_update(path), NOW + 2 * RECHECK);
  assert_outcome(f, "201", NOW + 2 * RECHECK + 10, NOW + 2 * RECHECK + 10,
                 RRD_STORE_WRITTEN, false);
}

/* A file damaged in place fails once, then is found foreign and left. */
static void test_damaged_file(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700];
  vm_path(f, "202", path, sizeof(path));
  assert_outcome(f, "202", NOW, NOW, RRD_STORE_CREATED, false);
  assert_int_equal(truncate(path, 20000), 0);
  size_t len = 0;
  char *before = fixture_read(path, &len);
  assert_int_equal(write_at(f, "202", NOW + 10, NOW + 10, &res),
                   RRD_STORE_FAILED);
  assert_true(res.report);
  assert_contains(res.message, path);
  assert_int_equal(write_at(f, "202", NOW + 20, NOW + 20, &res),
                   RRD_STORE_FOREIGN);
  assert_true(res.report);
  assert_contains(res.message, "too small");
  assert_outcome(f, "202", NOW + 30, NOW + 30, RRD_STORE_FOREIGN, false);
  assert_true(fixture_same(path, before, len));
  free(before);
}

/* ---- failures ---------------------------------------------------------- */

/* A file where the layout directory should be: mkdir fails, even for root.
 */
static void block_vm_dir(struct fixture *f) {
  assert_int_equal(mkdir(f->data_dir, 0750), 0);
  fixture_write(f->vm_dir, "in the way\n", 11);
}

static void test_failed_and_recovered(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  block_vm_dir(f);
  assert_int_equal(write_at(f, "300", NOW, NOW, &res), RRD_STORE_FAILED);
  assert_true(res.report);
  assert_contains(res.message, f->vm_dir);
  assert_contains(res.message, "Not a directory");
  assert_outcome(f, "300", NOW + 10, NOW + 10, RRD_STORE_FAILED, false);
  assert_outcome(f, "300", NOW + 59, NOW + 59, RRD_STORE_FAILED, false);
  assert_int_equal(write_at(f, "300", NOW + 60, NOW + 60, &res),
                   RRD_STORE_FAILED);
  assert_true(res.report);
  assert_contains(res.message, "2 further problems");
  assert_outcome(f, "300", NOW + 179, NOW + 179, RRD_STORE_FAILED, false);
  assert_outcome(f, "300", NOW + 180, NOW + 180, RRD_STORE_FAILED, true);

  assert_int_equal(unlink(f->vm_dir), 0);
  assert_int_equal(write_at(f, "300", NOW + 190, NOW + 190, &res),
                   RRD_STORE_RECOVERED);
  assert_true(res.report);
  char path[700];
  vm_path(f, "300", path, sizeof(path));
  assert_contains(res.message, path);
  assert_int_equal(last_update(path), NOW + 190);
  assert_outcome(f, "300", NOW + 200, NOW + 200, RRD_STORE_WRITTEN, false);
}

/* Reports at 0, 60, 180, 420, ... : the gap doubles from 60 s to 3600 s. */
static void test_failure_backoff(void **state) {
  struct fixture *f = *state;
  block_vm_dir(f);
  const long want[] = {0, 60, 180, 420, 900, 1860, 3780, 7380, 10980};
  size_t seen = 0;
  for (long s = 0; s <= 11000; s += 10) {
    struct rrd_store_result res;
    assert_int_equal(write_at(f, "301", NOW + s, NOW + s, &res),
                     RRD_STORE_FAILED);
    if (!res.report)
      continue;
    assert_true(seen < sizeof(want) / sizeof(want[0]));
    assert_int_equal(s, want[seen]);
    seen++;
  }
  assert_int_equal(seen, sizeof(want) / sizeof(want[0]));
}

/* A second row for the second of our own last row (two reads of collectd
 * less than a second apart) is dropped without a word and is no problem:
 * the next row is simply written. */
static void test_same_second_quiet(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  char path[700];
  vm_path(f, "104", path, sizeof(path));
  assert_outcome(f, "104", NOW, NOW, RRD_STORE_CREATED, false);
  size_t len = 0;
  char *before = fixture_read(path, &len);
  assert_int_equal(write_at(f, "104", NOW, NOW, &res), RRD_STORE_STALE);
  assert_false(res.report);
  assert_contains(res.message, "has a row of ours for that second");
  assert_true(fixture_same(path, before, len));
  free(before);
  assert_outcome(f, "104", NOW + 1, NOW + 1, RRD_STORE_WRITTEN, false);
  assert_int_equal(last_update(path), NOW + 1);
}

/* A row from a clock more than max_ahead_seconds ahead of ours is dropped
 * without touching the file, logged with the back-off; one just within
 * the limit is written. */
static void test_row_ahead_of_clock(void **state) {
  struct fixture *f = *state;
  rrd_store_free(f->store);
  struct rrd_store_options o = {.data_dir = f->data_dir,
                                .recheck_seconds = RECHECK,
                                .max_ahead_seconds = 300};
  assert_int_equal(rrd_store_new(&o, &f->store), 0);
  struct rrd_store_result res;
  char path[700];
  vm_path(f, "105", path, sizeof(path));
  assert_outcome(f, "105", NOW, NOW, RRD_STORE_CREATED, false);
  size_t len = 0;
  char *before = fixture_read(path, &len);
  assert_int_equal(write_at(f, "105", NOW + 3600, NOW + 10, &res),
                   RRD_STORE_STALE);
  assert_true(res.report);
  assert_contains(res.message, path);
  assert_contains(res.message, "it is 3590 s ahead of this host's clock "
                               "(at most 300 s are accepted)");
  assert_outcome(f, "105", NOW + 3610, NOW + 20, RRD_STORE_STALE, false);
  assert_true(fixture_same(path, before, len));
  free(before);
  assert_outcome(f, "105", NOW + 320, NOW + 20, RRD_STORE_RECOVERED, true);
  assert_int_equal(last_update(path), NOW + 320);
}

/* A problem that was not logged does not get its end logged either, so a
 * flapping file cannot fill the log. */
static void test_unlogged_problem_recovers_quietly(void **state) {
  struct fixture *f = *state;
  assert_outcome(f, "302", NOW, NOW, RRD_STORE_CREATED, false);
  assert_outcome(f, "302", NOW - 1, NOW + 10, RRD_STORE_STALE, true);
  assert_outcome(f, "302", NOW + 20, NOW + 20, RRD_STORE_RECOVERED, true);
  assert_outcome(f, "302", NOW + 15, NOW + 30, RRD_STORE_STALE, false);
  assert_outcome(f, "302", NOW + 40, NOW + 40, RRD_STORE_RECOVERED, false);
  assert_outcome(f, "302", NOW + 50, NOW + 50, RRD_STORE_WRITTEN, false);
}

static void write_under(const char *dir, bool first,
                        enum rrd_store_outcome want, const char *part) {
  struct rrd_store_options o = {.data_dir = dir, .recheck_seconds = 60};
  struct rrd_store *store;
  assert_int_equal(rrd_store_new(&o, &store), 0);
  double v[17] = {0};
  struct rrd_store_result res;
  for (int i = 0; i < 2; i++) {
    assert_int_equal(rrd_store_write(store, &layout_pve_vm_9_0, NULL, "100",
                                     NOW + i, v, 17, NOW + i, &res),
                     0);
    assert_int_equal(res.outcome, want);
    assert_int_equal(res.report, i == 0 && first);
    if (i == 0)
      assert_contains(res.message, part);
  }
  rrd_store_free(store);
}

static void test_path_too_long(void **state) {
  (void)state;
  char dir[PATH_MAX];
  /* <dir>/pve-vm-9.0/100 does not fit in PATH_MAX */
  memset(dir, 'd', sizeof(dir));
  dir[0] = '/';
  dir[PATH_MAX - 5] = '\0';
  write_under(dir, true, RRD_STORE_FAILED, "longer than PATH_MAX");
  /* it fits, but the kernel refuses a 4000-byte name */
  dir[PATH_MAX - 30] = '\0';
  write_under(dir, true, RRD_STORE_FAILED, "File name too long");
}

/* ---- invalid calls ----------------------------------------------------- */

static void assert_invalid(struct fixture *f, const char *name, time_t t,
                           size_t n) {
  double v[20] = {0};
  struct rrd_store_result res;
  assert_int_equal(rrd_store_write(f->store, &layout_pve_vm_9_0, NULL, name, t,
                                   v, n, NOW, &res),
                   -EINVAL);
  assert_true(res.message[0] != '\0');
  assert_false(res.report);
}

static void test_invalid(void **state) {
  struct fixture *f = *state;
  char long_name[RRD_STORE_NAME_MAX + 2];
  memset(long_name, 'a', sizeof(long_name));
  long_name[RRD_STORE_NAME_MAX + 1] = '\0';
  const char *names[] = {"",     ".",    "..",      "a/b",  "/",  "\n", "100\n",
                         "1\t0", "\x7f", long_name, "a\\b", "\\", NULL};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    assert_invalid(f, names[i], NOW, 17);
  assert_invalid(f, "100", NOW, 16);
  assert_invalid(f, "100", NOW, 18);
  assert_invalid(f, "100", 0, 17);
  assert_invalid(f, "100", 1, 17);
  assert_invalid(f, "100", -60, 17);

  struct rrd_store_result res;
  double v[17] = {0};
  assert_int_equal(rrd_store_write(f->store, &layout_pve_vm_9_0, NULL, "100",
                                   NOW, NULL, 17, NOW, &res),
                   -EINVAL);
  assert_int_equal(rrd_store_write(NULL, &layout_pve_vm_9_0, NULL, "100", NOW,
                                   v, 17, NOW, &res),
                   -EINVAL);
  assert_int_equal(
      rrd_store_write(f->store, NULL, NULL, "100", NOW, v, 17, NOW, &res),
      -EINVAL);
  assert_int_equal(rrd_store_write(f->store, &layout_pve_vm_9_0, NULL, "100",
                                   NOW, v, 17, NOW, NULL),
                   -EINVAL);
  /* nothing was created for any of them */
  struct stat st;
  assert_int_equal(stat(f->data_dir, &st), -1);

  long_name[RRD_STORE_NAME_MAX] = '\0'; /* 64 bytes is fine */
  assert_outcome(f, long_name, NOW, NOW, RRD_STORE_CREATED, false);
  assert_outcome(f, ".hidden", NOW, NOW, RRD_STORE_CREATED, false);
  assert_outcome(f, "n\xc3\xa4me", NOW, NOW, RRD_STORE_CREATED, false);
}

/* The table grows past its first size without losing entries. */
static void test_many_files(void **state) {
  struct fixture *f = *state;
  double v[10] = {0};
  struct rrd_store_result res;
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 200; i++) {
      char name[16];
      snprintf(name, sizeof(name), "%d", 1000 + i);
      assert_int_equal(rrd_store_write(f->store, &layout_pve2_vm, NULL, name,
                                       NOW + round * 10, v, 10, NOW, &res),
                       0);
      assert_int_equal(res.outcome,
                       round == 0 ? RRD_STORE_CREATED : RRD_STORE_WRITTEN);
    }
}

/* ---- letting go of files whose rows stopped ---------------------------- */

/* The store lets go of a file without rows for 30 s, or four times their
 * spacing (the layout's step until there were two), never of one with a
 * row pending; one let go is examined again by its next row; the paths
 * of those updated since the last take go to the caller. */
static void test_let_go(void **state) {
  struct fixture *f = *state;
  struct rrd_store_result res;
  assert_outcome(f, "100", NOW, NOW, RRD_STORE_CREATED, false);
  assert_outcome(f, "100", NOW + 1, NOW + 1, RRD_STORE_WRITTEN, false);
  assert_outcome(f, "101", NOW + 1, NOW + 1, RRD_STORE_CREATED, false);
  char **dirty = NULL;
  size_t count = 9;
  assert_int_equal(rrd_store_let_go(f->store, NOW + 31, &dirty, &count), 0);
  assert_int_equal(count, 0);
  free(dirty);
  assert_int_equal(rrd_store_let_go(f->store, NOW + 32, &dirty, &count), 1);
  char path[700];
  vm_path(f, "100", path, sizeof(path));
  assert_int_equal(count, 1);
  assert_string_equal(dirty[0], path);
  free(dirty[0]);
  free(dirty);
  /* its next row examines the file again and is written */
  assert_outcome(f, "100", NOW + 40, NOW + 40, RRD_STORE_WRITTEN, false);
  assert_int_equal(last_update(path), NOW + 40);
  /* 101 had one row: four minutes (its step) */
  assert_int_equal(rrd_store_let_go(f->store, NOW + 241, NULL, NULL), 0);
  assert_int_equal(rrd_store_let_go(f->store, NOW + 242, NULL, NULL), 1);
  /* a pending row holds its file */
  double v[RRD_LAYOUT_DS_MAX];
  row_values(&layout_pve_vm_9_0, 1, 5, v);
  struct rrd_store_pending p;
  assert_int_equal(rrd_store_prepare(f->store, &layout_pve_vm_9_0, NULL, "101",
                                     NOW + 300, v, layout_pve_vm_9_0.ds_count,
                                     NOW + 300, &p, &res),
                   1);
  assert_int_equal(rrd_store_let_go(f->store, NOW + 1000, NULL, NULL), 1);
  struct rrd_store_answer ok = {0, 0, NULL};
  rrd_store_complete(f->store, &p, NULL, &ok, NOW + 300, &res);
  assert_int_equal(res.outcome, RRD_STORE_WRITTEN);
  assert_int_equal(rrd_store_let_go(f->store, NOW + 1000, &dirty, &count), 1);
  assert_int_equal(count, 1);
  free(dirty[0]);
  free(dirty);
  assert_int_equal(rrd_store_take_dirty(f->store, &dirty, &count), 0);
  assert_int_equal(count, 0);
  free(dirty);
}

/* Files let go again and again while threads write them: every row is
 * written (each file's rows are its own thread's), none is lost, no entry
 * is freed under a row (valgrind and ThreadSanitizer run this too). */
#define LET_GO_THREADS 4
#define LET_GO_FILES 10 /* per thread */
#define LET_GO_ROWS 30  /* a tenth under valgrind (loop_count) */

struct let_go_writer {
  struct fixture *f;
  int id;
  int rows;
  int errors;
  atomic_int *done;
};

static void *let_go_writer_main(void *arg) {
  struct let_go_writer *w = arg;
  double v[RRD_LAYOUT_DS_MAX];
  for (int k = 0; k < w->rows; k++)
    for (int i = 0; i < LET_GO_FILES; i++) {
      char name[16];
      snprintf(name, sizeof(name), "%d", 2000 + w->id * 100 + i);
      row_values(&layout_pve_vm_9_0, i, k, v);
      struct rrd_store_result res;
      int want = k == 0 ? RRD_STORE_CREATED : RRD_STORE_WRITTEN;
      if (rrd_store_write(w->f->store, &layout_pve_vm_9_0, NULL, name, NOW + k,
                          v, layout_pve_vm_9_0.ds_count, NOW + k, &res) != 0 ||
          (int)res.outcome != want)
        w->errors++;
    }
  atomic_fetch_add(w->done, 1);
  return NULL;
}

static void test_let_go_while_writing(void **state) {
  struct fixture *f = *state;
  pthread_t threads[LET_GO_THREADS];
  struct let_go_writer w[LET_GO_THREADS];
  atomic_int done = 0;
  int rows = loop_count(LET_GO_ROWS);
  for (int i = 0; i < LET_GO_THREADS; i++) {
    w[i] = (struct let_go_writer){f, i, rows, 0, &done};
    assert_int_equal(
        pthread_create(&threads[i], NULL, let_go_writer_main, &w[i]), 0);
  }
  /* all the while, far in the future: whatever no row holds goes */
  size_t let_go = 0;
  while (atomic_load(&done) < LET_GO_THREADS)
    let_go += rrd_store_let_go(f->store, NOW + 1000000, NULL, NULL);
  for (int i = 0; i < LET_GO_THREADS; i++) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(w[i].errors, 0);
  }
  /* each file's last entry went, now or while the others wrote */
  let_go += rrd_store_let_go(f->store, NOW + 1000000, NULL, NULL);
  assert_true(let_go >= LET_GO_THREADS * LET_GO_FILES);
  assert_int_equal(rrd_store_let_go(f->store, NOW + 1000000, NULL, NULL), 0);
  char path[700];
  vm_path(f, "2309", path, sizeof(path));
  assert_int_equal(last_update(path), NOW + rows - 1);
}

/* ---- another access: a daemon over TCP, faked -------------------------- */

struct fake_access {
  int check_r, create_r, update_r;
  int checks, creates, updates;
  char path[256];
};

static int fake_check(void *ctx, const struct rrd_layout *layout,
                      const char *path, char *why, size_t why_size) {
  (void)layout;
  struct fake_access *fa = ctx;
  fa->checks++;
  snprintf(fa->path, sizeof(fa->path), "%s", path);
  snprintf(why, why_size, "fake: no daemon");
  return fa->check_r;
}

static int fake_create(void *ctx, const struct rrd_layout *layout,
                       const char *path, time_t start, char *err,
                       size_t err_size) {
  (void)layout, (void)path, (void)start, (void)err, (void)err_size;
  struct fake_access *fa = ctx;
  fa->creates++;
  return fa->create_r;
}

static int fake_update(void *ctx, const char *path, const char *row,
                       time_t *file_last, char *err, size_t err_size) {
  (void)path, (void)row, (void)file_last;
  struct fake_access *fa = ctx;
  fa->updates++;
  snprintf(err, err_size, "fake: connection broke");
  return fa->update_r;
}

static int fake_last_update(void *ctx, const char *path, time_t *ret, char *err,
                            size_t err_size) {
  (void)ctx, (void)path, (void)err, (void)err_size;
  *ret = NOW - 100;
  return 0;
}

static struct rrd_store *fake_store(struct fake_access *fa, const char *dir,
                                    struct rrd_access *out) {
  *out = (struct rrd_access){fa,          false,       fake_check,
                             fake_create, fake_update, fake_last_update};
  struct rrd_store_options o = {
      .data_dir = dir, .recheck_seconds = RECHECK, .access = out};
  struct rrd_store *store = NULL;
  assert_int_equal(rrd_store_new(&o, &store), 0);
  return store;
}

static enum rrd_store_outcome fake_write(struct rrd_store *store, time_t t,
                                         struct rrd_store_result *res) {
  double v[17] = {0};
  assert_int_equal(
      rrd_store_write(store, &layout_pve_vm_9_0, NULL, "100", t, v, 17, t, res),
      0);
  return res->outcome;
}

/* Paths relative to the daemon's base directory, nothing made locally. */
static void test_remote_paths(void **state) {
  (void)state;
  struct fake_access fa = {.check_r = -ENOENT};
  struct rrd_access fake;
  struct rrd_store *store = fake_store(&fa, "pvecg-remote-test/", &fake);
  struct rrd_store_result res;
  assert_int_equal(fake_write(store, NOW, &res), RRD_STORE_CREATED);
  assert_string_equal(fa.path, "pvecg-remote-test/pve-vm-9.0/100");
  assert_int_equal(access("pvecg-remote-test", F_OK), -1);
  char path[64];
  rrd_store_free(store);
  store = fake_store(&fa, "", &fake);
  assert_int_equal(rrd_store_path(store, &layout_pve_vm_9_0, NULL, "100", path,
                                  sizeof(path)),
                   0);
  assert_string_equal(path, "pve-vm-9.0/100");
  assert_int_equal(rrd_store_path(store, &layout_pve_vm_9_0, NULL, "../x", path,
                                  sizeof(path)),
                   -EINVAL);
  assert_int_equal(
      rrd_store_path(store, &layout_pve_vm_9_0, NULL, "100", path, 8),
      -ENAMETOOLONG);
  rrd_store_free(store);

  struct rrd_store_options o = {.data_dir = "/abs", .access = &fake};
  assert_int_equal(rrd_store_new(&o, &store), -EINVAL);
  o.data_dir = "a/../b";
  assert_int_equal(rrd_store_new(&o, &store), -EINVAL);
  o.data_dir = "..";
  assert_int_equal(rrd_store_new(&o, &store), -EINVAL);
  o.data_dir = "a/..b";
  assert_int_equal(rrd_store_new(&o, &store), 0);
  rrd_store_free(store);
}

/* A daemon that cannot be reached is not a problem of the file: nothing is
 * counted against it, nothing reported, and the row can come again. */
static void test_unavailable(void **state) {
  (void)state;
  struct fake_access fa = {.check_r = -ENOTCONN};
  struct rrd_access fake;
  struct rrd_store *store = fake_store(&fa, "pve", &fake);
  struct rrd_store_result res;
  assert_int_equal(fake_write(store, NOW, &res), RRD_STORE_UNAVAILABLE);
  assert_false(res.report);
  assert_string_equal(res.message, "fake: no daemon");
  assert_int_equal(fa.creates, 0);

  fa.check_r = 0;
  fa.update_r = -ENOTCONN;
  assert_int_equal(fake_write(store, NOW, &res), RRD_STORE_UNAVAILABLE);
  assert_string_equal(res.message, "fake: connection broke");
  fa.update_r = 0;
  assert_int_equal(fake_write(store, NOW, &res), RRD_STORE_WRITTEN);
  assert_false(res.report);
  assert_int_equal(fa.checks, 2);

  char **paths = NULL;
  size_t count = 0;
  assert_int_equal(rrd_store_take_dirty(store, &paths, &count), 0);
  assert_int_equal(count, 1);
  assert_string_equal(paths[0], "pve/pve-vm-9.0/100");
  free(paths[0]);
  free(paths);
  assert_int_equal(rrd_store_take_dirty(store, &paths, &count), 0);
  assert_int_equal(count, 0);
  free(paths);

  struct rrd_store_counts c;
  rrd_store_counts(store, &c);
  assert_int_equal(c.rows[RRD_STORE_UNAVAILABLE], 2);
  assert_int_equal(c.rows[RRD_STORE_WRITTEN], 1);
  assert_int_equal(c.rows[RRD_STORE_CREATED], 0);
  rrd_store_free(store);
}

/* ---- concurrency ------------------------------------------------------- */

#define THREADS 8
#define FILES 50
#define OWN_ROUNDS 4    /* each file written by one thread */
#define SHARED_ROUNDS 4 /* every file written by every thread */

struct shared {
  struct rrd_store *store;
  pthread_barrier_t barrier;
  pthread_mutex_t lock;
  int errors;
  int applied[SHARED_ROUNDS][FILES];
};

struct worker {
  struct shared *shared;
  int id;
};

static time_t round_time(int k) { return NOW + 10 * (time_t)(k + 1); }

static int write_row(struct shared *s, int file, int k) {
  char name[16];
  snprintf(name, sizeof(name), "%d", 500 + file);
  double v[17];
  row_values(&layout_pve_vm_9_0, file, k, v);
  struct rrd_store_result res;
  if (rrd_store_write(s->store, &layout_pve_vm_9_0, NULL, name, round_time(k),
                      v, 17, round_time(k), &res) != 0)
    return -1;
  return res.outcome;
}

static void count(struct shared *s, int *counter, int add) {
  pthread_mutex_lock(&s->lock);
  *counter += add;
  pthread_mutex_unlock(&s->lock);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  struct shared *s = w->shared;
  for (int k = 0; k < OWN_ROUNDS; k++)
    for (int file = w->id; file < FILES; file += THREADS) {
      int want = k == 0 ? RRD_STORE_CREATED : RRD_STORE_WRITTEN;
      if (write_row(s, file, k) != want)
        count(s, &s->errors, 1);
    }
  for (int r = 0; r < SHARED_ROUNDS; r++) {
    pthread_barrier_wait(&s->barrier);
    for (int j = 0; j < FILES; j++) {
      int file = (j + w->id * 7) % FILES; /* threads start apart */
      int o = write_row(s, file, OWN_ROUNDS + r);
      if (o == RRD_STORE_WRITTEN || o == RRD_STORE_RECOVERED)
        count(s, &s->applied[r][file], 1);
      else if (o != RRD_STORE_STALE)
        count(s, &s->errors, 1);
    }
  }
  return NULL;
}

static void test_parallel_writers(void **state) {
  struct fixture *f = *state;
  struct shared s = {.store = f->store};
  pthread_barrier_init(&s.barrier, NULL, THREADS);
  pthread_mutex_init(&s.lock, NULL);
  pthread_t threads[THREADS];
  struct worker workers[THREADS];
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (struct worker){&s, i};
    assert_int_equal(
        pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&s.barrier);
  pthread_mutex_destroy(&s.lock);

  assert_int_equal(s.errors, 0);
  const int last_k = OWN_ROUNDS + SHARED_ROUNDS - 1;
  for (int file = 0; file < FILES; file++) {
    for (int r = 0; r < SHARED_ROUNDS; r++)
      assert_int_equal(s.applied[r][file], 1); /* one writer won each row */
    char name[16], path[700], row[RRD_ROW_SIZE];
    snprintf(name, sizeof(name), "%d", 500 + file);
    vm_path(f, name, path, sizeof(path));
    assert_int_equal(last_update(path), round_time(last_k));
    double v[17];
    row_values(&layout_pve_vm_9_0, file, last_k, v);
    rrd_row_format(&layout_pve_vm_9_0, round_time(last_k), v, 17, row,
                   sizeof(row));
    assert_true(last_values_match(path, row));
  }
}

/* ---- start time -------------------------------------------------------- */

static void assert_midnight(const char *tz, time_t now, time_t want) {
  setenv("TZ", tz, 1);
  tzset();
  assert_int_equal(store_start_time(now), want);
}

static void test_start_time(void **state) {
  (void)state;
  char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
  assert_midnight("UTC0", 1700000000, 1699920000);
  assert_midnight("UTC0", 1699920000, 1699920000);
  const char *cet = "CET-1CEST,M3.5.0,M10.5.0/3";
  assert_midnight(cet, 1711879200, 1711839600); /* 2024-03-31, 23 h day */
  assert_midnight(cet, 1730026800, 1729980000); /* 2024-10-27, 25 h day */
  assert_midnight(cet, 1730069999, 1729980000); /* its last second */
  /* Brazil 2018: clocks jumped from 00:00 to 01:00, so the day began at
   * 01:00 local, as mktime (and so pmxcfs) has it. */
  assert_midnight("BRT3BRST,M10.3.0/0,M2.3.0/0", 1540130400, 1540090800);
  if (old != NULL)
    setenv("TZ", old, 1);
  else
    unsetenv("TZ");
  tzset();
  free(old);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_invalid),
      T(test_created_then_written),
      T(test_created_for_old_row),
      T(test_trailing_slash_and_layout_dirs),
      T(test_deleted_file_is_created_again),
      T(test_replaced_in_settled_directory),
      T(test_stale),
      T(test_second_writer),
      T(test_interleaving_writer),
      T(test_other_writer_found_early),
      T(test_file_found_ahead),
      T(test_row_already_applied),
      T(test_foreign_layout),
      T(test_foreign_recheck_and_recovery),
      T(test_damaged_file),
      T(test_failed_and_recovered),
      T(test_failure_backoff),
      T(test_same_second_quiet),
      T(test_row_ahead_of_clock),
      T(test_unlogged_problem_recovers_quietly),
      T(test_path_too_long),
      T(test_invalid),
      T(test_many_files),
      T(test_let_go),
      T(test_let_go_while_writing),
      cmocka_unit_test(test_remote_paths),
      cmocka_unit_test(test_unavailable),
      T(test_parallel_writers),
      cmocka_unit_test(test_start_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

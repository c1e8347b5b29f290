/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/file/rrd_direct.c and rrd/file/rrd_header.c: files written by
 * librrd (the library rrdtool and rrdcached write with) read without it give
 * exactly what librrd's fetch gives, row for row and bit for bit, for every
 * archive, unknown rows and a ring that wrapped around; a file that is not
 * exactly the layout's is refused, never read; reading leaves the
 * process's signal actions as they were.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_direct.h"
#include "pvecg/rrd_fetch.h"
#include "pvecg/rrd_file.h"
#include "pvecg/rrd_row.h"
#include "rrd_fixture.h"
#include "rrd_header.h"

#include <rrd.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A multiple of every archive's resolution (a week of minutes: 604800). */
#define T0 1700006400
#define MINUTES 3000 /* more than the minute archives' 1440 rows: they wrap */

struct fixture {
  char *dir;
  char path[512];
};

/* The row of minute i: values that differ per column and minute, one
 * column unknown every 7th minute, negative ones where the layout lets. */
static void row_values(const struct rrd_layout *l, int i, double *v) {
  for (size_t k = 0; k < l->ds_count; k++)
    v[k] = l->ds[k].type == RRD_DS_DERIVE ? 6000.0 * i + (double)k
                                          : 1000.0 * i + 0.25 * (double)k;
  v[i % (int)l->ds_count] = i % 7 == 0 ? NAN : v[i % (int)l->ds_count];
}

static void write_rows(const struct rrd_layout *l, const char *path, int from,
                       int to) {
  for (int i = from; i <= to; i++) {
    double v[RRD_LAYOUT_DS_MAX];
    char row[RRD_ROW_SIZE], err[256];
    row_values(l, i, v);
    assert_true(
        rrd_row_format(l, T0 + 60 * i, v, l->ds_count, row, sizeof(row)) > 0);
    assert_int_equal(rrd_file_update(path, row, err, sizeof(err)), 0);
  }
}

static void make_file(struct fixture *f, const struct rrd_layout *l,
                      int minutes) {
  char err[256];
  fixture_path(f->path, "%s/%s", f->dir, l->name);
  unlink(f->path);
  assert_int_equal(rrd_file_create(l, f->path, T0, err, sizeof(err)), 0);
  write_rows(l, f->path, 1, minutes);
}

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("rrd-direct");
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

/* Same rows, same times, same bits (NaN for NaN) as librrd's fetch, in
 * (start, end].  Returns how many values were known. */
static size_t assert_same_as_librrd(const char *path, struct rrd_direct *d,
                                    enum rrd_cf cf, unsigned long reso,
                                    time_t start, time_t end) {
  char err[256];
  struct rrd_fetch_request req = {
      .path = path, .cf = cf, .resolution = reso, .start = start, .end = end};
  struct rrd_series want, got;
  assert_int_equal(rrd_fetch_series(&req, &want, err, sizeof(err)), 0);
  assert_int_equal(want.step, reso);
  assert_int_equal(rrd_direct_fetch(d, cf, reso, start, end, SIZE_MAX, &got),
                   0);
  assert_int_equal(got.start, want.start);
  assert_int_equal(got.step, want.step);
  assert_int_equal(got.ds_count, want.ds_count);
  /* librrd's fetch gives one row past an aligned end, which every reader
   * leaves out (export_run.c takes rows in (start, end]) */
  assert_int_equal(got.row_count, (size_t)(end - start) / reso);
  assert_int_equal(want.row_count, got.row_count + 1);
  size_t n = got.row_count * got.ds_count, known = 0;
  for (size_t i = 0; i < n; i++) {
    if (isnan(want.values[i])) {
      assert_true(isnan(got.values[i]));
    } else {
      known++;
      assert_memory_equal(&got.values[i], &want.values[i], sizeof(double));
    }
  }
  rrd_series_free(&want);
  rrd_series_free(&got);
  return known;
}

/* Whether archive i is the coarsest of its CF. */
static bool coarsest(const struct rrd_layout *l, size_t i) {
  for (size_t j = 0; j < l->rra_count; j++)
    if (l->rra[j].cf == l->rra[i].cf && l->rra[j].steps > l->rra[i].steps)
      return false;
  return true;
}

/* Every archive of both CFs over what it holds, beyond both its ends. */
static void assert_every_archive(const struct rrd_layout *l, const char *path,
                                 time_t last) {
  struct rrd_direct *d;
  assert_int_equal(rrd_direct_open(path, l, &d), 0);
  assert_int_equal(rrd_direct_last_update(d), last);
  for (size_t i = 0; i < l->rra_count; i++) {
    time_t reso = (time_t)(l->rra[i].steps * l->step);
    time_t newest = last - last % reso;
    time_t oldest = newest - (time_t)(l->rra[i].rows - 1) * reso;
    /* a range inside, one that ends after the newest row, and (where
     * librrd's fetch does not prefer a coarser archive that covers it) one
     * that starts before the oldest */
    size_t known = assert_same_as_librrd(
        path, d, l->rra[i].cf, (unsigned long)reso, newest - 5 * reso, newest);
    assert_true(known > 0 || reso > 60 * 100); /* a week: nothing yet */
    if (coarsest(l, i))
      assert_same_as_librrd(path, d, l->rra[i].cf, (unsigned long)reso,
                            oldest - 3 * reso, oldest + 2 * reso);
    assert_same_as_librrd(path, d, l->rra[i].cf, (unsigned long)reso,
                          newest - 2 * reso, newest + 3 * reso);
  }
  rrd_direct_close(d);
}

static void test_every_archive_wrapped(void **state) {
  struct fixture *f = *state;
  make_file(f, &layout_pve_vm_9_0, MINUTES);
  assert_every_archive(&layout_pve_vm_9_0, f->path, T0 + 60 * MINUTES);
  /* the whole minute archive, across the ring's end */
  struct rrd_direct *d;
  assert_int_equal(rrd_direct_open(f->path, &layout_pve_vm_9_0, &d), 0);
  time_t last = T0 + 60 * MINUTES;
  /* nearly all known: one column every 7th minute is not, nor the rate
   * of a counter after it (the equality above is what is asserted) */
  size_t all = 1440 * layout_pve_vm_9_0.ds_count;
  assert_in_range(assert_same_as_librrd(f->path, d, RRD_CF_AVERAGE, 60,
                                        last - 1440 * 60, last),
                  all - 2 * 1440 / 7, all - 1440 / 7);
  assert_in_range(
      assert_same_as_librrd(f->path, d, RRD_CF_MAX, 60, last - 1440 * 60, last),
      all - 2 * 1440 / 7, all - 1440 / 7);
  rrd_direct_close(d);
}

static void test_every_layout(void **state) {
  struct fixture *f = *state;
  for (size_t i = 0; i < rrd_layouts_count; i++) {
    make_file(f, rrd_layouts[i], 100);
    assert_every_archive(rrd_layouts[i], f->path, T0 + 60 * 100);
  }
}

/* A fresh file: every row unknown, as librrd says. */
static void test_empty_file(void **state) {
  struct fixture *f = *state;
  make_file(f, &layout_pve_node_9_0, 0);
  struct rrd_direct *d;
  assert_int_equal(rrd_direct_open(f->path, &layout_pve_node_9_0, &d), 0);
  assert_int_equal(rrd_direct_last_update(d), T0);
  struct rrd_series s;
  assert_int_equal(
      rrd_direct_fetch(d, RRD_CF_AVERAGE, 60, T0 - 120, T0, 10, &s), 0);
  assert_int_equal(s.row_count, 2);
  for (size_t i = 0; i < 2 * s.ds_count; i++)
    assert_true(isnan(s.values[i]));
  rrd_series_free(&s);
  rrd_direct_close(d);
}

/* Every row asked for unknown where none of them is in the archive: all
 * before its oldest row (also the first max_rows of a longer range, as a
 * read of a file that grew since its plan asks), or all after its newest. */
static void test_outside_archive(void **state) {
  struct fixture *f = *state;
  const struct rrd_layout *l = &layout_pve_node_9_0;
  make_file(f, l, 50); /* the minute archive: T0 - 1389 min to T0 + 50 */
  struct rrd_direct *d;
  assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
  const struct {
    time_t start, end;
    size_t max_rows, rows;
  } spans[] = {{T0 - 60 * 1500, T0 - 60 * 1490, SIZE_MAX, 10},
               {T0 - 60 * 1500, T0 + 60 * 50, 7, 7},
               {T0 + 60 * 60, T0 + 60 * 70, SIZE_MAX, 10}};
  for (size_t k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
    struct rrd_series s;
    assert_int_equal(rrd_direct_fetch(d, RRD_CF_AVERAGE, 60, spans[k].start,
                                      spans[k].end, spans[k].max_rows, &s),
                     0);
    assert_int_equal(s.row_count, spans[k].rows);
    assert_int_equal(s.start, spans[k].start);
    for (size_t i = 0; i < s.row_count * s.ds_count; i++)
      assert_true(isnan(s.values[i]));
    rrd_series_free(&s);
  }
  rrd_direct_close(d);
}

/* max_rows: the oldest rows only. */
static void test_row_limit(void **state) {
  struct fixture *f = *state;
  make_file(f, &layout_pve_vm_9_0, 50);
  struct rrd_direct *d;
  assert_int_equal(rrd_direct_open(f->path, &layout_pve_vm_9_0, &d), 0);
  struct rrd_series s;
  time_t last = T0 + 60 * 50;
  assert_int_equal(
      rrd_direct_fetch(d, RRD_CF_AVERAGE, 60, last - 600, last, 3, &s), 0);
  assert_int_equal(s.row_count, 3);
  assert_int_equal(rrd_series_time(&s, 0), last - 540);
  double v[RRD_LAYOUT_DS_MAX];
  row_values(&layout_pve_vm_9_0, 41, v);
  int mem = rrd_layout_ds_index(&layout_pve_vm_9_0, "memhost");
  assert_memory_equal(&rrd_series_row(&s, 0)[mem], &v[mem], sizeof(double));
  rrd_series_free(&s);
  assert_int_equal(
      rrd_direct_fetch(d, RRD_CF_AVERAGE, 90, last - 180, last, SIZE_MAX, &s),
      -EINVAL); /* no 90 s archive */
  assert_int_equal(
      rrd_direct_fetch(d, RRD_CF_AVERAGE, 60, last - 90, last, SIZE_MAX, &s),
      -EINVAL); /* not aligned */
  rrd_direct_close(d);
}

/* ---- refusals ---------------------------------------------------------- */

static void assert_refused(const char *path, const struct rrd_layout *l,
                           int want) {
  struct rrd_direct *d = NULL;
  assert_int_equal(rrd_direct_open(path, l, &d), want);
  assert_null(d);
}

/* Bytes of the file changed at offset: the result of reading it. */
static void patch(const char *path, size_t offset, const void *bytes,
                  size_t len) {
  size_t size;
  char *data = fixture_read(path, &size);
  assert_non_null(data);
  assert_true(offset + len <= size);
  memcpy(data + offset, bytes, len);
  fixture_write(path, data, size);
  free(data);
}

static void test_refuses_another_layout(void **state) {
  struct fixture *f = *state;
  make_file(f, &layout_pve_vm_9_0, 3);
  assert_refused(f->path, &layout_pve_node_9_0, -EPROTO);
  assert_refused(f->path, &layout_pve2_vm, -EPROTO);
  assert_refused(f->path, &layout_pvecg_ksm_vm_1_0, -EPROTO);
  char missing[600];
  fixture_path(missing, "%s/none", f->dir);
  assert_refused(missing, &layout_pve_vm_9_0, -ENOENT);
  assert_refused(f->dir, &layout_pve_vm_9_0, -EPROTO); /* a directory */
}

/* Every field the check reads, damaged one at a time. */
static void test_refuses_damage(void **state) {
  struct fixture *f = *state;
  const struct rrd_layout *l = &layout_pve_vm_9_0;
  struct rrd_header_plan plan;
  assert_int_equal(rrd_header_plan(l, &plan), 0);
  /* what an update moves: the live head, and past 17 pdp_prep of 112
   * bytes and 8 x 17 cdp_prep of 80, the 8 row pointers */
  assert_int_equal(plan.live_offset, plan.head_len - 16);
  assert_int_equal(plan.ptr_offset, plan.head_len + 17 * 112 + 8 * 17 * 80);
  assert_int_equal(plan.ptr_offset + plan.ptr_len, plan.data_offset);
  const struct {
    size_t offset;
    const char *bytes;
    size_t len;
  } damage[] = {
      {0, "XRD", 4},                     /* cookie */
      {4, "0002", 5},                    /* version */
      {4, "0005", 5},                    /* a version not known here */
      {16, "\1", 1},                     /* float cookie */
      {24, "\22", 1},                    /* ds count 17 -> 18 */
      {32, "\11", 1},                    /* rra count 8 -> 9 */
      {40, "\75", 1},                    /* step 60 -> 61 */
      {128, "M", 1},                     /* ds[0] name */
      {128 + 20, "DERIVE", 7},           /* ds[0] type */
      {128 + 40, "\1", 1},               /* ds[0] heartbeat */
      {128 + 48, "\1", 1},               /* ds[0] min */
      {128 + 56, "\0\0\0\0\0\0\0\0", 8}, /* ds[0] max: 0, not U */
      {128 + 17 * 120, "MIN", 4},        /* rra[0] cf */
      {128 + 17 * 120 + 24, "\1", 1},    /* rra[0] rows 1440 -> 1441 */
      {128 + 17 * 120 + 32, "\2", 1},    /* rra[0] steps 1 -> 2 */
      {128 + 17 * 120 + 47, "\0", 1},    /* rra[0] xff 0.5 -> tiny */
      {plan.head_len - 16, "\377\377\377\377\377\377\377\377", 8},
      {plan.head_len - 8, "\377\377\377\377", 4}, /* microseconds */
      {plan.ptr_offset, "\377\377", 2},           /* a row pointer */
  };
  for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
    make_file(f, l, 3);
    struct rrd_direct *d;
    assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
    rrd_direct_close(d);
    patch(f->path, damage[i].offset, damage[i].bytes, damage[i].len);
    assert_refused(f->path, l, -EPROTO);
  }
}

/* A file cut short or grown is not the layout's size. */
static void test_refuses_size(void **state) {
  struct fixture *f = *state;
  make_file(f, &layout_pve_vm_9_0, 3);
  assert_int_equal(truncate(f->path, 4096), 0);
  assert_refused(f->path, &layout_pve_vm_9_0, -EPROTO);
  make_file(f, &layout_pve_vm_9_0, 3);
  size_t size;
  char *data = fixture_read(f->path, &size);
  char *more = realloc(data, size + 8);
  assert_non_null(more);
  memset(more + size, 0, 8);
  fixture_write(f->path, more, size + 8);
  free(more);
  assert_refused(f->path, &layout_pve_vm_9_0, -EPROTO);
}

/* A symbolic link is not followed, as the layout check has it. */
static void test_refuses_symlink(void **state) {
  struct fixture *f = *state;
  make_file(f, &layout_pve_vm_9_0, 3);
  char link[600];
  fixture_path(link, "%s/link", f->dir);
  assert_int_equal(symlink(f->path, link), 0);
  assert_refused(link, &layout_pve_vm_9_0, -EIO);
}

/* ---- a file kept open --------------------------------------------------- */

/* Bytes changed in the file itself (its inode), as an update or rrdtool
 * tune writes them under a descriptor kept open. */
static void patch_in_place(const char *path, size_t offset, const void *bytes,
                           size_t len) {
  int fd = open(path, O_WRONLY);
  assert_true(fd >= 0);
  assert_int_equal(pwrite(fd, bytes, len, (off_t)offset), (ssize_t)len);
  close(fd);
}

/* The rows written since the open, after a refresh, as librrd reads them
 * (also where an update comes between the refresh and the read); whether
 * anything was written since the last read. */
static void test_refresh_reads_new_rows(void **state) {
  struct fixture *f = *state;
  const struct rrd_layout *l = &layout_pve_vm_9_0;
  make_file(f, l, 50);
  struct rrd_direct *d;
  bool moved = true;
  assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
  assert_int_equal(rrd_direct_refresh(d, 600, &moved), 0);
  assert_false(moved);
  write_rows(l, f->path, 51, 60);
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 50);
  assert_int_equal(rrd_direct_refresh(d, 600, &moved), 0);
  assert_true(moved);
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 60);
  assert_int_equal(rrd_direct_refresh(d, 0, &moved), 0); /* a whole check */
  assert_false(moved);
  assert_true(assert_same_as_librrd(f->path, d, RRD_CF_AVERAGE, 60,
                                    T0 + 60 * 40, T0 + 60 * 60) > 0);
  /* an update between the refresh and the read: the rows are read again,
   * the update's row with them */
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  write_rows(l, f->path, 61, 61);
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 60);
  assert_true(assert_same_as_librrd(f->path, d, RRD_CF_AVERAGE, 60,
                                    T0 + 60 * 50, T0 + 60 * 61) > 0);
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 61);
  assert_int_equal(rrd_direct_refresh(d, 0, NULL), 0); /* a whole check */
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 61);
  assert_true(assert_same_as_librrd(f->path, d, RRD_CF_MAX, 60, T0 + 60 * 51,
                                    T0 + 60 * 61) > 0);
  /* a gap longer than the minute archive: librrd moves each pointer by
   * fewer rows than the gap crossed, as the pointers read say */
  write_rows(l, f->path, 2100, 2101); /* the gap's end unknown, then 2101 */
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  assert_true(assert_same_as_librrd(f->path, d, RRD_CF_AVERAGE, 60,
                                    T0 + 60 * 2000, T0 + 60 * 2101) > 0);
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 2101);
  /* removed: the descriptor still reads the file it opened */
  assert_int_equal(unlink(f->path), 0);
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 2101);
  rrd_direct_close(d);
}

/* A process standing in for librrd's update (rrdcached's write) of the
 * file: it takes the write lock on the whole file (fcntl, as rrd_update
 * does) and pauses; given the file as the update leaves it, it then writes
 * the row pointers and the rows, pauses, and writes the last update.  At
 * each pause it says so and waits to be told to go on. */
struct writer {
  pid_t pid;
  int ready[2], go[2];
};

static int writer_pause(const struct writer *w) {
  char c = 0;
  return write(w->ready[1], &c, 1) != 1 || read(w->go[0], &c, 1) != 1;
}

static void writer_child(const struct writer *w, const char *path, char *after,
                         size_t size, const struct rrd_header_plan *plan) {
  size_t live = plan->head_len - rrd_header_live_size();
  int fd = open(path, O_RDWR);
  struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  int bad = fd < 0 || fcntl(fd, F_SETLK, &lock) != 0 || writer_pause(w);
  if (after != NULL) {
    bad |= pwrite(fd, after, live, 0) != (ssize_t)live ||
           pwrite(fd, after + plan->head_len, size - plan->head_len,
                  (off_t)plan->head_len) != (ssize_t)(size - plan->head_len);
    bad |= writer_pause(w);
    bad |= pwrite(fd, after + live, rrd_header_live_size(), (off_t)live) !=
           (ssize_t)rrd_header_live_size();
  }
  free(after); /* under valgrind the child's leaks are its exit status */
  _exit(bad);
}

/* Returns once the stand-in holds the lock and has written nothing. */
static void writer_start(struct writer *w, const char *path, char *after,
                         size_t size, const struct rrd_header_plan *plan) {
  assert_int_equal(pipe(w->ready), 0);
  assert_int_equal(pipe(w->go), 0);
  w->pid = fork();
  assert_true(w->pid >= 0);
  if (w->pid == 0) { /* ends when the test's process does, whatever happened */
    close(w->go[1]);
    close(w->ready[0]);
    writer_child(w, path, after, size, plan);
  }
  char c;
  assert_int_equal(read(w->ready[0], &c, 1), 1);
}

/* Lets it go on to its next pause: the pointers and rows written. */
static void writer_next(struct writer *w) {
  char c = 0;
  assert_int_equal(write(w->go[1], &c, 1), 1);
  assert_int_equal(read(w->ready[0], &c, 1), 1);
}

/* Lets it finish and end. */
static void writer_end(struct writer *w) {
  char c = 0;
  int status;
  assert_int_equal(write(w->go[1], &c, 1), 1);
  assert_int_equal(waitpid(w->pid, &status, 0), w->pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int i = 0; i < 2; i++) {
    close(w->ready[i]);
    close(w->go[i]);
  }
}

/* Makes f->path with 50 minutes and returns the file as librrd leaves it
 * with minute 51 written (f->path is left as it was), in *size bytes, and
 * the plan of its header. */
static char *file_after_update(struct fixture *f, const struct rrd_layout *l,
                               size_t *size, struct rrd_header_plan *plan) {
  make_file(f, l, 50);
  assert_int_equal(rrd_header_plan(l, plan), 0);
  char done[600];
  size_t done_size;
  char *before = fixture_read(f->path, size);
  fixture_path(done, "%s/done", f->dir);
  fixture_write(done, before, *size);
  write_rows(l, done, 51, 51);
  char *after = fixture_read(done, &done_size);
  assert_int_equal(done_size, *size);
  free(before);
  return after;
}

/* librrd's update as another process sees it half done: the file locked
 * for writing, the row pointers moved and the new row written, the last
 * update not yet; the writer paused there.  Comparing the header before
 * and after the rows cannot tell: the read gives no rows while the lock
 * stays (they would all be a minute off), and once the update is done the
 * new row with the others, as librrd reads them. */
static void test_update_under_way(void **state) {
  struct fixture *f = *state;
  const struct rrd_layout *l = &layout_pve_vm_9_0;
  size_t size;
  struct rrd_header_plan plan;
  char *after = file_after_update(f, l, &size, &plan);
  struct rrd_direct *d;
  assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  struct writer w;
  writer_start(&w, f->path, after, size, &plan);
  writer_next(&w);
  struct rrd_series s;
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 50);
  assert_int_equal(rrd_direct_fetch(d, RRD_CF_AVERAGE, 60, T0 + 60 * 40,
                                    T0 + 60 * 51, SIZE_MAX, &s),
                   -EAGAIN);
  /* a reader that came in the middle and read the torn pair waits too */
  struct rrd_direct *late;
  assert_int_equal(rrd_direct_open(f->path, l, &late), 0);
  assert_int_equal(rrd_direct_fetch(late, RRD_CF_AVERAGE, 60, T0 + 60 * 40,
                                    T0 + 60 * 51, SIZE_MAX, &s),
                   -EAGAIN);
  rrd_direct_close(late);
  writer_end(&w);
  char *now = fixture_read(f->path, &size);
  assert_memory_equal(now, after, size); /* the whole update, as librrd's */
  free(now);
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  assert_int_equal(rrd_direct_last_update(d), T0 + 60 * 51);
  assert_true(assert_same_as_librrd(f->path, d, RRD_CF_AVERAGE, 60,
                                    T0 + 60 * 40, T0 + 60 * 51) > 0);
  rrd_direct_close(d);
  free(after);
}

#define SPAN_ROWS 10

/* Reads minutes 41..50 into values (SPAN_ROWS rows of the layout). */
static int fetch_span(struct rrd_direct *d, const struct rrd_layout *l,
                      double *values) {
  struct rrd_series s;
  int r = rrd_direct_fetch(d, RRD_CF_AVERAGE, 60, T0 + 60 * 40, T0 + 60 * 50,
                           SIZE_MAX, &s);
  if (r < 0)
    return r;
  assert_int_equal(s.row_count, SPAN_ROWS);
  memcpy(values, s.values, SPAN_ROWS * l->ds_count * sizeof(double));
  rrd_series_free(&s);
  return 0;
}

/* Every read asks about the writer's lock, also of a file whose rows were
 * just taken: a writer that holds it and has written nothing yet holds
 * the read back, for the rings of every layout. */
static void test_every_read_asks(void **state) {
  struct fixture *f = *state;
  const struct rrd_layout *layouts[] = {&layout_pve_vm_9_0, &layout_pve2_vm};
  for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
    const struct rrd_layout *l = layouts[i];
    make_file(f, l, 50);
    struct rrd_header_plan plan;
    assert_int_equal(rrd_header_plan(l, &plan), 0);
    struct rrd_direct *d;
    double values[SPAN_ROWS * RRD_LAYOUT_DS_MAX];
    assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
    assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
    assert_int_equal(fetch_span(d, l, values), 0);
    struct writer w;
    writer_start(&w, f->path, NULL, 0, &plan);
    assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
    assert_int_equal(fetch_span(d, l, values), -EAGAIN);
    writer_end(&w);
    assert_true(assert_same_as_librrd(f->path, d, RRD_CF_AVERAGE, 60,
                                      T0 + 60 * 40, T0 + 60 * 50) > 0);
    rrd_direct_close(d);
  }
}

/* Between whole checks a definition changed in place is not read; a whole
 * check refuses it.  What an update writes is checked at every refresh
 * and read. */
static void test_refresh_checks(void **state) {
  struct fixture *f = *state;
  const struct rrd_layout *l = &layout_pve_vm_9_0;
  struct rrd_header_plan plan;
  assert_int_equal(rrd_header_plan(l, &plan), 0);
  struct rrd_direct *d;
  make_file(f, l, 3);
  assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
  patch_in_place(f->path, 128, "M", 1); /* ds[0]'s name */
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  assert_int_equal(rrd_direct_refresh(d, 0, NULL), -EPROTO);
  rrd_direct_close(d);
  /* what an update writes, read and refused at the refresh */
  const struct {
    size_t offset;
    const char *bytes;
    size_t len;
    int refresh, fetch;
  } damage[] = {
      {plan.head_len - 16, "\377\377\377\377\377\377\377\377", 8, -EPROTO, 0},
      {plan.head_len - 8, "\377\377\377\377", 4, -EPROTO, 0}, /* microseconds */
      {plan.ptr_offset + 8, "\377\377", 2, -EPROTO, 0}, /* a row pointer */
  };
  for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
    make_file(f, l, 3);
    assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
    patch_in_place(f->path, damage[i].offset, damage[i].bytes, damage[i].len);
    assert_int_equal(rrd_direct_refresh(d, 600, NULL), damage[i].refresh);
    struct rrd_series got;
    if (damage[i].refresh == 0)
      assert_int_equal(
          rrd_direct_fetch(d, RRD_CF_AVERAGE, 60, T0, T0 + 180, SIZE_MAX, &got),
          damage[i].fetch);
    rrd_direct_close(d);
  }
  make_file(f, l, 3); /* cut short: the row pointers are past its end */
  assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
  assert_int_equal(truncate(f->path, 4096), 0);
  assert_int_equal(rrd_direct_refresh(d, 0, NULL), -EPROTO);
  rrd_direct_close(d);
  /* cut short between a refresh and the rows' read: a short read, an
   * error */
  make_file(f, l, 3);
  assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  assert_int_equal(truncate(f->path, 4096), 0);
  struct rrd_series got;
  assert_int_equal(
      rrd_direct_fetch(d, RRD_CF_AVERAGE, 60, T0, T0 + 180, SIZE_MAX, &got),
      -EIO);
  assert_int_equal(rrd_direct_refresh(d, 0, NULL), -EPROTO);
  rrd_direct_close(d);
}

/* ---- signals ------------------------------------------------------------ */

static volatile sig_atomic_t own_calls;

static void own_handler(int sig) {
  (void)sig;
  own_calls++;
}

/* A file read, then cut short under a kept descriptor and read again: an
 * error each time the bytes are not there. */
static void read_and_cut(struct fixture *f) {
  const struct rrd_layout *l = &layout_pve_vm_9_0;
  make_file(f, l, 50);
  struct rrd_direct *d;
  double values[SPAN_ROWS * RRD_LAYOUT_DS_MAX];
  assert_int_equal(rrd_direct_open(f->path, l, &d), 0);
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), 0);
  assert_int_equal(fetch_span(d, l, values), 0);
  assert_int_equal(truncate(f->path, 4096), 0);
  assert_int_equal(fetch_span(d, l, values), -EIO);
  assert_int_equal(rrd_direct_refresh(d, 600, NULL), -EPROTO);
  assert_int_equal(rrd_direct_refresh(d, 0, NULL), -EPROTO);
  rrd_direct_close(d);
  assert_int_equal(rrd_direct_open(f->path, l, &d), -EPROTO);
}

/* A library leaves SIGBUS to the program: whether it ignores it, keeps
 * the default or handles it itself, its action is the same after files
 * were read and cut short under the reader, and its handler never ran. */
static void test_signals_untouched(void **state) {
  struct fixture *f = *state;
  struct sigaction saved;
  assert_int_equal(sigaction(SIGBUS, NULL, &saved), 0);
  struct sigaction own = {.sa_handler = own_handler};
  sigemptyset(&own.sa_mask);
  struct sigaction ign = {.sa_handler = SIG_IGN}, dfl = {.sa_handler = SIG_DFL};
  const struct sigaction *actions[] = {&ign, &dfl, &own};
  for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
    assert_int_equal(sigaction(SIGBUS, actions[i], NULL), 0);
    own_calls = 0;
    read_and_cut(f);
    struct sigaction now;
    assert_int_equal(sigaction(SIGBUS, NULL, &now), 0);
    assert_true(now.sa_handler == actions[i]->sa_handler);
    assert_false(now.sa_flags & SA_SIGINFO);
    assert_int_equal(own_calls, 0);
  }
  assert_int_equal(sigaction(SIGBUS, &saved, NULL), 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_refresh_reads_new_rows, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_refresh_checks, setup, teardown),
    cmocka_unit_test_setup_teardown(test_update_under_way, setup, teardown),
    cmocka_unit_test_setup_teardown(test_every_read_asks, setup, teardown),
    cmocka_unit_test_setup_teardown(test_signals_untouched, setup, teardown),
    cmocka_unit_test_setup_teardown(test_every_archive_wrapped, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_every_layout, setup, teardown),
    cmocka_unit_test_setup_teardown(test_empty_file, setup, teardown),
    cmocka_unit_test_setup_teardown(test_row_limit, setup, teardown),
    cmocka_unit_test_setup_teardown(test_outside_archive, setup, teardown),
    cmocka_unit_test_setup_teardown(test_refuses_another_layout, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_refuses_damage, setup, teardown),
    cmocka_unit_test_setup_teardown(test_refuses_size, setup, teardown),
    cmocka_unit_test_setup_teardown(test_refuses_symlink, setup, teardown),
};

int main(void) {
  rrd_file_prepare_librrd();
  return cmocka_run_group_tests(tests, NULL, NULL);
}

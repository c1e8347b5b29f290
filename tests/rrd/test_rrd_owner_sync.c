/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the owners kept in <DataDir>/pvecg-owners (rrd/owner/rrd_owner.c)
 * on a clock the test sets: a collision saved exactly on the write path;
 * after a restart the owner keeps the file (reporting at start) and the host
 * seen colliding never gets it, while a host never seen colliding does
 * after the window; a marked guest whose file went is forgotten; a file
 * cut short is logged once and what it holds still counts, a marked owner
 * is none; a file of another version is logged once and never
 * overwritten; `pvecg check --owners`' edit (give, forget, save) is
 * taken while the writer runs, logged in one line and kept; a data
 * directory not there yet is waited for, not made; and write threads ticking at
 * once (build-tsan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_fixture.h"
#include "pvecg/rrd_owner.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct rrd_layout *const VM = &layout_pve_vm_9_0;

static double clock_now;
static time_t test_wall(void) { return (time_t)(1800000000 + clock_now); }

#define LOG_MAX 16

struct fixture {
  char *dir;
  char owners_path[PATH_MAX];
  struct rrd_owner *owners;
  pthread_mutex_t lock; /* ticks of several threads log */
  char lines[LOG_MAX][1024];
  enum rrd_sink_level levels[LOG_MAX];
  int count;
};

static void capture(void *ctx, enum rrd_sink_level level, const char *line) {
  struct fixture *f = ctx;
  pthread_mutex_lock(&f->lock);
  if (f->count < LOG_MAX) {
    snprintf(f->lines[f->count], sizeof(f->lines[0]), "%s", line);
    f->levels[f->count++] = level;
  }
  pthread_mutex_unlock(&f->lock);
}

/* An (empty) file for guest name: marked guests without one are dropped. */
static void guest_file(struct fixture *f, const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/pve-vm-9.0", f->dir);
  mkdir(path, 0750);
  snprintf(path, sizeof(path), "%s/pve-vm-9.0/%s", f->dir, name);
  fixture_write(path, "", 0);
}

static void write_text(const char *path, const char *text) {
  fixture_write(path, text, strlen(text));
}

static void start(struct fixture *f, double now) {
  rrd_owner_free(f->owners);
  assert_int_equal(rrd_owner_new(test_wall, &f->owners), 0);
  clock_now = now;
  assert_int_equal(rrd_owner_keep(f->owners, f->dir, capture, f, now), 0);
}

static void stop(struct fixture *f) { rrd_owner_unkeep(f->owners); }

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("owner-sync");
  snprintf(f->owners_path, sizeof(f->owners_path), "%s/pvecg-owners", f->dir);
  pthread_mutex_init(&f->lock, NULL);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  stop(f);
  rrd_owner_free(f->owners);
  pthread_mutex_destroy(&f->lock);
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

/* A row as the sink takes it: admitted or not, then the tick. */
static bool admit(struct fixture *f, const char *name, const char *host,
                  double now) {
  struct rrd_owner_news news;
  clock_now = now;
  bool ok = rrd_owner_admit(f->owners, VM, NULL, name, host, 1.0, now, &news);
  rrd_owner_tick(f->owners, now);
  return ok;
}

/* nodea owns guest name from 99; nodeb reports it too for 10 s. */
static void collide(struct fixture *f, const char *name) {
  assert_true(admit(f, name, "nodea", 99.0));
  for (int i = 0; i < 10; i++) {
    assert_true(admit(f, name, "nodea", 100.0 + i));
    assert_false(admit(f, name, "nodeb", 100.5 + i));
  }
}

static void assert_file(struct fixture *f, const char *want) {
  size_t len = 0;
  char *have = fixture_read(f->owners_path, &len);
  assert_non_null(have);
  assert_string_equal(have, want);
  free(have);
}

static void test_restart_keeps_owner(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  guest_file(f, "100");
  start(f, 0);
  collide(f, "196");
  assert_true(admit(f, "100", "nodea", 112.0)); /* saved with this look */
  assert_file(f, "pvecg-owners 2\n"
                 "owner pve-vm-9.0 . 100 1 nodea\n"
                 "owner pve-vm-9.0 . 196 1 nodea\n"
                 "collision pve-vm-9.0 . 196 1800000100 nodeb\n"
                 "end 3\n");
  stop(f);
  start(f, 500.0);
  assert_int_equal(f->count, 1);
  assert_non_null(strstr(f->lines[0], "Read back the owners of 2 guests' "
                                      "files and 1 hosts seen colliding"));
  /* nodea counts as reporting at start: nodec waits for its window */
  assert_false(admit(f, "100", "nodec", 503.0));
  assert_true(admit(f, "100", "nodec", 506.0));
  /* nodeb never gets 196, not even long after nodea's last row */
  assert_false(admit(f, "196", "nodeb", 600.0));
  assert_true(admit(f, "196", "nodec", 601.0));
  assert_false(admit(f, "196", "nodeb", 602.0));
}

static void test_marked_file_gone_forgotten(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  start(f, 0);
  collide(f, "196");
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/pve-vm-9.0/196", f->dir);
  unlink(path);
  admit(f, "100", "nodea", 1000.0); /* the look for files gone */
  assert_int_equal(rrd_owner_counts(f->owners).count, 1);
  assert_file(f, "pvecg-owners 2\n"
                 "owner pve-vm-9.0 . 100 1 nodea\n"
                 "end 1\n");
}

static void test_cut_short_logged_once(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  write_text(f->owners_path, "pvecg-owners 2\n"
                             "owner pve-vm-9.0 . 196 1 nodeb\n"
                             "collision pve-vm-9.0 . 196 1800000100 nodeb\n"
                             "owner pve-vm-9.0 . 197 no");
  start(f, 0);
  assert_int_equal(f->count, 1);
  assert_int_equal(f->levels[0], RRD_SINK_ERROR);
  assert_non_null(strstr(f->lines[0], "is cut short (0 lines skipped)"));
  /* the marked owner is none: the first host not marked takes it */
  assert_false(admit(f, "196", "nodeb", 1.0));
  assert_true(admit(f, "196", "nodea", 2.0));
  assert_int_equal(f->count, 1);
}

static void test_other_version_left_alone(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  write_text(f->owners_path, "pvecg-owners 1\nowner x\n");
  start(f, 0);
  assert_int_equal(f->count, 1);
  assert_non_null(strstr(f->lines[0], "is not a version 2 owners file"));
  collide(f, "196");
  admit(f, "196", "nodea", 200.0);
  stop(f);
  assert_file(f, "pvecg-owners 1\nowner x\n");
  assert_int_equal(f->count, 1);
}

/* What `pvecg check --owners` does under the file's lock: guest 196's
 * file given to host, or (host NULL) its marks forgotten: how many. */
static size_t settle(struct fixture *f, const char *host) {
  struct rrd_owner *o;
  struct rrd_owner_read read;
  struct rrd_owner_record q = {.layout = VM, .cluster = "", .name = "196"};
  size_t forgot = 0;
  int fd = rrd_owner_file_lock(f->dir);
  assert_true(fd >= 0);
  assert_int_equal(rrd_owner_new(NULL, &o), 0);
  assert_int_equal(rrd_owner_file_load(f->dir, o, 0, &read), 0);
  q.host = host;
  if (host != NULL)
    assert_int_equal(rrd_owner_put(o, &q, 0), 0);
  else
    forgot = rrd_owner_forget(o, &q);
  if (host != NULL || forgot > 0)
    assert_int_equal(rrd_owner_file_save(f->dir, o), 0);
  rrd_owner_free(o);
  close(fd);
  return forgot;
}

/* The operator gives the file to nodeb and later forgets a collision,
 * while the writer runs: both taken at the next look, logged, kept. */
static void test_operator_edit_taken(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  start(f, 0);
  collide(f, "196");
  admit(f, "196", "nodea", 112.0);
  settle(f, "nodeb");
  int before = f->count;
  assert_true(admit(f, "196", "nodea", 115.0)); /* the edit taken after it */
  assert_int_equal(f->count, before + 1);
  char want[PATH_MAX + 200];
  snprintf(want, sizeof(want),
           "Took the edit of %s (pvecg check --owners): now 1 guests' files "
           "have an owner and 0 hosts are seen colliding.",
           f->owners_path);
  assert_string_equal(f->lines[before], want);
  assert_true(admit(f, "196", "nodeb", 115.5));
  assert_false(admit(f, "196", "nodea", 116.0));
  /* nodea goes on: seen colliding in turn, then forgotten */
  for (int i = 0; i < 10; i++) {
    assert_true(admit(f, "196", "nodeb", 117.0 + i));
    assert_false(admit(f, "196", "nodea", 117.5 + i));
  }
  assert_file(f, "pvecg-owners 2\n"
                 "owner pve-vm-9.0 . 196 1 nodeb\n"
                 "collision pve-vm-9.0 . 196 1800000116 nodea\n"
                 "end 2\n");
  assert_int_equal(settle(f, NULL), 1);
  assert_int_equal(settle(f, NULL), 0);
  before = f->count;
  admit(f, "196", "nodeb", 130.0);
  assert_int_equal(f->count, before + 1);
  assert_non_null(strstr(f->lines[before], ": now 1 guests' files have an "
                                           "owner and 0 hosts are seen "
                                           "colliding."));
  assert_file(f, "pvecg-owners 2\n"
                 "owner pve-vm-9.0 . 196 1 nodeb\n"
                 "end 1\n");
}

static void test_data_dir_waited_for(void **state) {
  struct fixture *f = *state;
  char *dir = f->dir;
  char sub[PATH_MAX];
  snprintf(sub, sizeof(sub), "%s/later", dir);
  f->dir = sub;
  snprintf(f->owners_path, sizeof(f->owners_path), "%s/later/pvecg-owners",
           dir);
  start(f, 0);
  admit(f, "196", "nodea", 1.0);
  struct stat st;
  assert_int_equal(stat(sub, &st), -1);
  assert_int_equal(f->count, 0);
  mkdir(sub, 0750);
  admit(f, "196", "nodea", 5.0);
  assert_file(f, "pvecg-owners 2\nowner pve-vm-9.0 . 196 1 nodea\nend 1\n");
  stop(f);
  f->dir = dir;
}

/* A data directory that cannot hold the lock: one line, owners in memory. */
static void test_lock_failure_logged_once(void **state) {
  struct fixture *f = *state;
  char *dir = f->dir;
  char file[PATH_MAX];
  snprintf(file, sizeof(file), "%s/not-a-directory", dir);
  write_text(file, "x");
  f->dir = file;
  start(f, 0);
  assert_true(admit(f, "196", "nodea", 1.0));
  assert_true(admit(f, "197", "nodea", 5.0));
  assert_true(admit(f, "196", "nodea", 9.0));
  assert_int_equal(f->count, 1);
  assert_non_null(strstr(f->lines[0], "Cannot lock"));
  stop(f);
  f->dir = dir;
}

/* ---- threads ----------------------------------------------------------- */

struct ticker {
  struct fixture *f;
  int n;
};

static void *tick_rows(void *arg) {
  struct ticker *t = arg;
  struct rrd_owner_news news;
  char name[16];
  for (int i = 0; i < 2000; i++) {
    double now = 10.0 + i * 0.01;
    snprintf(name, sizeof(name), "%d", 100 + t->n * 1000 + i % 50);
    rrd_owner_admit(t->f->owners, VM, NULL, name, "nodea", 1.0, now, &news);
    rrd_owner_tick(t->f->owners, now);
  }
  return NULL;
}

static void test_threads_tick(void **state) {
  struct fixture *f = *state;
  pthread_t th[3];
  struct ticker t[3];
  start(f, 0);
  for (int i = 0; i < 3; i++) {
    t[i] = (struct ticker){f, i};
    assert_int_equal(pthread_create(&th[i], NULL, tick_rows, &t[i]), 0);
  }
  for (int i = 0; i < 3; i++)
    pthread_join(th[i], NULL);
  stop(f);
  struct rrd_owner *o;
  struct rrd_owner_read r;
  assert_int_equal(rrd_owner_new(NULL, &o), 0);
  int fd = rrd_owner_file_lock(f->dir);
  assert_int_equal(rrd_owner_file_load(f->dir, o, 0, &r), 0);
  close(fd);
  assert_int_equal(r.owners, 150);
  assert_false(r.cut);
  rrd_owner_free(o);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_restart_keeps_owner),      T(test_marked_file_gone_forgotten),
      T(test_cut_short_logged_once),    T(test_other_version_left_alone),
      T(test_operator_edit_taken),      T(test_data_dir_waited_for),
      T(test_lock_failure_logged_once), T(test_threads_tick),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

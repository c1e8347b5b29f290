/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the owners kept on disk (rrd/rrd_owner_state.c and
 * rrd/rrd_owner_keeper.c), on a clock the test sets: a collision saved
 * exactly, and after a restart the owner keeps the file and the host seen
 * colliding never gets it, not even after the owner's silence, while a
 * host never seen colliding does; a guest whose file went is forgotten at
 * start; a file cut short or of another version is said once, the
 * collisions read from it still hold and a marked owner is none; a
 * request is applied while the keeper runs, saved and removed; a second
 * keeper of the same directory is refused with one line; a data directory
 * not there yet is waited for, not made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrd_fixture.h"
#include "rrd_owner.h"
#include "rrd_owner_keeper.h"

#include "pvecg/rrd_owner_disk.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct rrd_layout *const VM = &layout_pve_vm_9_0;

/* Read by the keeper's thread too. */
static _Atomic double clock_now;
static double test_clock(void) { return clock_now; }
static time_t test_wall(void) { return (time_t)(1800000000 + clock_now); }

#define LOG_MAX 16

struct fixture {
  char *dir;
  char owners_path[PATH_MAX];
  struct rrd_owner *owners;
  struct rrd_owner_keeper *keeper;
  pthread_mutex_t lock;
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

/* The log as the keeper's thread left it, read under its lock. */
static int log_count(struct fixture *f) {
  pthread_mutex_lock(&f->lock);
  int n = f->count;
  pthread_mutex_unlock(&f->lock);
  return n;
}

static const char *log_line(struct fixture *f, int i) {
  static char copy[1024];
  pthread_mutex_lock(&f->lock);
  snprintf(copy, sizeof(copy), "%s", f->lines[i]);
  pthread_mutex_unlock(&f->lock);
  return copy;
}

static enum rrd_sink_level log_level(struct fixture *f, int i) {
  pthread_mutex_lock(&f->lock);
  enum rrd_sink_level level = f->levels[i];
  pthread_mutex_unlock(&f->lock);
  return level;
}

/* Makes an (empty) file for guest name: the keeper forgets guests whose
 * file is missing. */
static void guest_file(struct fixture *f, const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/pve-vm-9.0", f->dir);
  mkdir(path, 0750);
  snprintf(path, sizeof(path), "%s/pve-vm-9.0/%s", f->dir, name);
  fixture_write(path, "", 0);
}

/* The configuration of the test: pve1 has left cluster prod. */
static bool moved_hosts;
static bool test_host_in_cluster(const char *cluster, const char *host) {
  return !(moved_hosts && strcmp(host, "pve1") == 0 &&
           strcmp(cluster, "prod") == 0);
}

static int start(struct fixture *f) {
  rrd_owner_free(f->owners);
  assert_int_equal(rrd_owner_new(&f->owners), 0);
  rrd_owner_set_wall_clock(f->owners, test_wall);
  struct rrd_owner_keeper_options o = {
      .data_dir = f->dir,
      .owners = f->owners,
      .clock = test_clock,
      .log = capture,
      .log_ctx = f,
      .save_every = 0.02,
      .requests_every = 0.02,
      .host_in_cluster = test_host_in_cluster,
  };
  return rrd_owner_keeper_start(&o, &f->keeper);
}

static void stop(struct fixture *f) {
  rrd_owner_keeper_stop(f->keeper);
  f->keeper = NULL;
}

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("owner-keeper");
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

static bool admit(struct fixture *f, const char *name, const char *host,
                  double now) {
  struct rrd_owner_news news;
  clock_now = now;
  return rrd_owner_admit(f->owners, VM, NULL, name, host, 1.0, now, &news);
}

/* nodea owns guest name from 100; nodeb reports it too for 10 s. */
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
  assert_int_equal(start(f), 0);
  collide(f, "196");
  stop(f);
  assert_file(f, "pvecg-owners 1\n"
                 "owner pve-vm-9.0 . 196 nodea 1\n"
                 "collision pve-vm-9.0 . 196 nodeb 1800000100\n"
                 "end 2\n");
  assert_int_equal(log_count(f), 0);
  /* restarted: nodeb reports first, and alone, for longer than a window */
  assert_int_equal(start(f), 0);
  char line[PATH_MAX + 128];
  snprintf(line, sizeof(line),
           "Read back the owners of 1 guests' files and 1 hosts seen "
           "colliding from %s.",
           f->owners_path);
  assert_int_equal(log_count(f), 1);
  assert_string_equal(log_line(f, 0), line);
  assert_int_equal(log_level(f, 0), RRD_SINK_INFO);
  for (int i = 0; i < 60; i++)
    assert_false(admit(f, "196", "nodeb", 1000.0 + i));
  assert_true(admit(f, "196", "nodec", 1061.0)); /* a migration */
  assert_false(admit(f, "196", "nodea", 1062.0));
}

/* A guest whose file went (deleted while collectd was down) is forgotten
 * at start, and the file saved without it at the next change. */
static void test_file_gone_forgotten(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  guest_file(f, "197");
  assert_int_equal(start(f), 0);
  collide(f, "196");
  collide(f, "197");
  stop(f);
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/pve-vm-9.0/197", f->dir);
  unlink(path);
  assert_int_equal(start(f), 0);
  assert_int_equal(rrd_owner_count(f->owners), 1);
  assert_true(admit(f, "197", "nodeb", 1000.0)); /* a new guest */
  assert_false(admit(f, "196", "nodeb", 1000.0));
  stop(f);
  assert_file(f, "pvecg-owners 1\n"
                 "owner pve-vm-9.0 . 196 nodea 1\n"
                 "collision pve-vm-9.0 . 196 nodeb 1800000100\n"
                 "owner pve-vm-9.0 . 197 nodeb 1\n"
                 "end 3\n");
}

/* Cut short after the collision, before the owner of 197: one line; 196's
 * owner and collision hold, 197 goes to its first reporter. */
static void test_cut_short_said_once(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  guest_file(f, "197");
  static const char text[] = "pvecg-owners 1\n"
                             "owner pve-vm-9.0 . 196 nodea 1\n"
                             "collision pve-vm-9.0 . 196 nodeb 1800000100\n"
                             "owner pve-vm-9.0 . 197 no";
  fixture_write(f->owners_path, text, strlen(text));
  assert_int_equal(start(f), 0);
  char line[PATH_MAX + 256];
  snprintf(line, sizeof(line),
           "The owners file %s: cut short (no end line counting its 2 "
           "records); a guest it does not name is owned by the first host to "
           "report it that was not seen colliding.",
           f->owners_path);
  assert_int_equal(log_count(f), 1);
  assert_string_equal(log_line(f, 0), line);
  assert_int_equal(log_level(f, 0), RRD_SINK_ERROR);
  assert_false(admit(f, "196", "nodeb", 1000.0));
  assert_true(admit(f, "197", "nodeb", 1000.0));
  assert_true(admit(f, "196", "nodea", 1001.0));
}

/* Another version: nothing is taken from it, said once, and it is not
 * overwritten until something changes. */
static void test_other_version_said_once(void **state) {
  struct fixture *f = *state;
  static const char text[] = "pvecg-owners 2\nwhatever\n";
  fixture_write(f->owners_path, text, strlen(text));
  assert_int_equal(start(f), 0);
  char line[PATH_MAX + 256];
  snprintf(line, sizeof(line),
           "The owners file %s: not a version 1 owners file (its first line "
           "is not \"pvecg-owners 1\"); every guest it does not name is "
           "owned by the first host to report it that was not seen "
           "colliding.",
           f->owners_path);
  assert_int_equal(log_count(f), 1);
  assert_string_equal(log_line(f, 0), line);
  usleep(100000);
  assert_file(f, text);
  assert_int_equal(rrd_owner_count(f->owners), 0);
}

/* An owner the file also names as seen colliding is none: whoever the
 * file says, a host seen colliding never gets the file.  A line that is
 * no record is skipped and said. */
static void test_marked_owner_is_none(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  static const char text[] = "pvecg-owners 1\n"
                             "owner pve-vm-9.0 . 196 nodea 1\n"
                             "collision pve-vm-9.0 . 196 nodea 5\n"
                             "owner pve-vm-9.0 . 196\n"
                             "end 2\n";
  fixture_write(f->owners_path, text, strlen(text));
  assert_int_equal(start(f), 0);
  char line[PATH_MAX + 256];
  snprintf(line, sizeof(line),
           "The owners file %s: line 4: not a record (1 lines skipped); a "
           "guest it does not name is owned by the first host to report it "
           "that was not seen colliding.",
           f->owners_path);
  assert_int_equal(log_count(f), 1);
  assert_string_equal(log_line(f, 0), line);
  assert_false(admit(f, "196", "nodea", 1000.0));
  assert_true(admit(f, "196", "nodeb", 1000.5));
}

/* Waits (at most 5 s) for the keeper to take the request at path. */
static void wait_taken(const char *path) {
  for (int i = 0; i < 500 && access(path, F_OK) == 0; i++)
    usleep(10000);
  assert_int_not_equal(access(path, F_OK), 0);
}

/* --give and --forget while the keeper runs: applied, said, saved. */
static void test_requests_applied(void **state) {
  struct fixture *f = *state;
  guest_file(f, "196");
  assert_int_equal(start(f), 0);
  collide(f, "196");
  struct rrd_owner_record r = {.kind = RRD_OWNER_RECORD_GIVE, .layout = VM};
  snprintf(r.name, sizeof(r.name), "196");
  snprintf(r.host, sizeof(r.host), "nodeb");
  char path[PATH_MAX];
  assert_int_equal(rrd_owner_disk_request(f->dir, &r, 1, path, sizeof(path)),
                   0);
  wait_taken(path);
  assert_true(admit(f, "196", "nodeb", 111.0));
  assert_false(admit(f, "196", "nodea", 111.5));
  assert_file(f, "pvecg-owners 1\n"
                 "owner pve-vm-9.0 . 196 nodeb 1\n"
                 "end 1\n");
  r.kind = RRD_OWNER_RECORD_FORGET;
  assert_int_equal(rrd_owner_disk_request(f->dir, &r, 1, path, sizeof(path)),
                   0);
  wait_taken(path);
  assert_int_equal(log_count(f), 2);
  assert_string_equal(log_line(f, 0), "The file pve-vm-9.0/196 now belongs to "
                                      "nodeb, as pvecg check --owners asked.");
  assert_string_equal(log_line(f, 1),
                      "The collisions of the file pve-vm-9.0/196 "
                      "are forgotten, as pvecg check --owners "
                      "asked.");
}

/* A second writer of the same data directory keeps its owners in memory. */
static void test_second_keeper_refused(void **state) {
  struct fixture *f = *state;
  assert_int_equal(start(f), 0);
  struct rrd_owner *other;
  assert_int_equal(rrd_owner_new(&other), 0);
  struct rrd_owner_keeper_options o = {
      .data_dir = f->dir, .owners = other, .log = capture, .log_ctx = f};
  struct rrd_owner_keeper *k = NULL;
  assert_int_equal(rrd_owner_keeper_start(&o, &k), -EWOULDBLOCK);
  assert_null(k);
  rrd_owner_free(other);
  char line[PATH_MAX + 256];
  snprintf(line, sizeof(line),
           "Another process holds %s.lock (another collectd writing the same "
           "DataDir?): the owners of guests' files are kept in memory only.",
           f->owners_path);
  assert_int_equal(log_count(f), 1);
  assert_string_equal(log_line(f, 0), line);
}

/* A data directory that is not there yet is not made: the lock and the
 * owners follow once the first file has made it. */
static void test_data_dir_waited_for(void **state) {
  struct fixture *f = *state;
  char *parent = f->dir;
  f->dir = malloc(strlen(parent) + 8);
  sprintf(f->dir, "%s/fresh", parent);
  snprintf(f->owners_path, sizeof(f->owners_path), "%s/pvecg-owners", f->dir);
  assert_int_equal(start(f), 0);
  assert_true(admit(f, "196", "nodea", 100.0));
  usleep(100000);
  struct stat st;
  assert_int_not_equal(stat(f->dir, &st), 0);
  assert_int_equal(mkdir(f->dir, 0750), 0);
  char lock[PATH_MAX + 16];
  snprintf(lock, sizeof(lock), "%s.lock", f->owners_path);
  for (int i = 0; i < 500 && access(f->owners_path, F_OK) != 0; i++)
    usleep(10000);
  assert_int_equal(access(lock, F_OK), 0);
  assert_file(f, "pvecg-owners 1\nowner pve-vm-9.0 . 196 nodea 1\nend 1\n");
  assert_int_equal(log_count(f), 0);
  stop(f);
  free(f->dir);
  f->dir = parent; /* removed with what is in it */
}

/* An owner the configuration no longer sends to its file's cluster is
 * none: said once, and the guest goes to the first host to report it that
 * was not seen colliding. */
static void test_owner_moved_away(void **state) {
  struct fixture *f = *state;
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/prod", f->dir);
  mkdir(path, 0750);
  snprintf(path, sizeof(path), "%s/prod/pve-vm-9.0", f->dir);
  mkdir(path, 0750);
  snprintf(path, sizeof(path), "%s/prod/pve-vm-9.0/196", f->dir);
  fixture_write(path, "", 0);
  snprintf(path, sizeof(path), "%s/prod/pve-vm-9.0/197", f->dir);
  fixture_write(path, "", 0);
  static const char text[] = "pvecg-owners 1\n"
                             "owner pve-vm-9.0 prod 196 pve1 1\n"
                             "collision pve-vm-9.0 prod 196 pve3 5\n"
                             "owner pve-vm-9.0 prod 197 pve1 1\n"
                             "end 3\n";
  fixture_write(f->owners_path, text, strlen(text));
  moved_hosts = true;
  assert_int_equal(start(f), 0);
  moved_hosts = false;
  char line[PATH_MAX + 256];
  snprintf(line, sizeof(line),
           "The owners file %s names 2 owners whose rows the configuration "
           "no longer sends to their file (the first: pve1 of "
           "prod/pve-vm-9.0/196); those files go to the first host to report "
           "them that was not seen colliding.",
           f->owners_path);
  assert_int_equal(log_count(f), 2);
  assert_string_equal(log_line(f, 1), line);
  assert_int_equal(log_level(f, 1), RRD_SINK_WARNING);
  struct rrd_owner_news news;
  assert_false(
      rrd_owner_admit(f->owners, VM, "prod", "196", "pve3", 1, 1000, &news));
  assert_true(
      rrd_owner_admit(f->owners, VM, "prod", "196", "pve2", 1, 1000, &news));
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_restart_keeps_owner),   T(test_file_gone_forgotten),
      T(test_cut_short_said_once),   T(test_other_version_said_once),
      T(test_marked_owner_is_none),  T(test_requests_applied),
      T(test_second_keeper_refused), T(test_data_dir_waited_for),
      T(test_owner_moved_away),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

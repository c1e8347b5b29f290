/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/rrdcached/rrdcached_client.c against a real rrdcached -B (unix
 * socket and TCP on 127.0.0.1): files created through the daemon with exactly
 * the layout, checked through its INFO (a foreign file recognised, not
 * touched), updates and refusals, the last update including rows the
 * daemon has not written yet, and -ENOTCONN whenever the daemon is away --
 * including a daemon restarted under an open connection, which the client
 * rides over by itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file.h"
#include "rrd_fixture.h"
#include "pvecg/rrd_row.h"
#include "pvecg/rrdcached_client.h"
#include "rrdcached_fixture.h"

#include <rrd.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define START 1800000000

struct fixture {
  char *dir;
  struct rrdcached daemon;
  struct rrdcached_client *client;
  const struct rrd_access *access;
  char path[600]; /* the file of guest 100, as the client names it */
};

static int setup_for(void **state, bool tcp) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("rrdcached-client");
  rrdcached_prepare(&f->daemon, f->dir, tcp);
  rrdcached_start(&f->daemon);
  assert_int_equal(rrdcached_client_new(f->daemon.address, &f->client), 0);
  f->access = rrdcached_client_access(f->client);
  if (tcp)
    snprintf(f->path, sizeof(f->path), "pve/pve-vm-9.0/100");
  else
    snprintf(f->path, sizeof(f->path), "%s/100", f->daemon.db);
  *state = f;
  return 0;
}

static int setup_unix(void **state) { return setup_for(state, false); }
static int setup_tcp(void **state) { return setup_for(state, true); }

static int teardown(void **state) {
  struct fixture *f = *state;
  rrdcached_client_free(f->client);
  rrdcached_kill(&f->daemon);
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

static void row_at(time_t t, double memhost, char *row, size_t size) {
  double v[17];
  for (size_t i = 0; i < 17; i++)
    v[i] = NAN;
  v[10] = memhost;
  assert_true(rrd_row_format(&layout_pve_vm_9_0, t, v, 17, row, size) > 0);
}

static int update(struct fixture *f, time_t t, time_t *last) {
  char row[RRD_ROW_SIZE], err[512] = "";
  row_at(t, (double)t, row, sizeof(row));
  return f->access->update(f->access->ctx, f->path, row, last, err,
                           sizeof(err));
}

/* ---- addresses --------------------------------------------------------- */

static void test_addresses(void **state) {
  (void)state;
  struct rrdcached_client *c = NULL;
  const char *bad[] = {"", "unix:relative.sock", "host name:1", "a\tb"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
    assert_int_equal(rrdcached_client_new(bad[i], &c), -EINVAL);
  assert_int_equal(rrdcached_client_new(NULL, &c), -EINVAL);
  assert_null(c);
  assert_int_equal(rrdcached_client_new("unix:/run/rrdcached.sock", &c), 0);
  assert_true(rrdcached_client_is_unix(c));
  assert_true(rrdcached_client_access(c)->local);
  assert_string_equal(rrdcached_client_address(c), "unix:/run/rrdcached.sock");
  rrdcached_client_free(c);
  assert_int_equal(rrdcached_client_new("/run/rrdcached.sock", &c), 0);
  assert_true(rrdcached_client_is_unix(c));
  rrdcached_client_free(c);
  assert_int_equal(rrdcached_client_new("192.0.2.1:42217", &c), 0);
  assert_false(rrdcached_client_is_unix(c));
  assert_false(rrdcached_client_access(c)->local);
  rrdcached_client_free(c);
}

/* Nobody listens: every operation says so, none crashes or waits. */
static void test_unreachable(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("rrdcached-none");
  char address[300], path[300], why[512] = "", row[RRD_ROW_SIZE];
  snprintf(address, sizeof(address), "unix:%s/nobody.sock", dir);
  snprintf(path, sizeof(path), "%s/100", dir);
  struct rrdcached_client *c;
  assert_int_equal(rrdcached_client_new(address, &c), 0);
  const struct rrd_access *a = rrdcached_client_access(c);
  assert_int_equal(rrdcached_client_connect(c, why, sizeof(why)), -ENOTCONN);
  assert_non_null(strstr(why, "Unable to connect to rrdcached"));
  fixture_write(path, "x", 1); /* present locally: the daemon is asked */
  assert_int_equal(a->check(a->ctx, &layout_pve_vm_9_0, path, why, sizeof(why)),
                   -ENOTCONN);
  row_at(START, 1, row, sizeof(row));
  time_t last;
  assert_int_equal(a->update(a->ctx, path, row, &last, why, sizeof(why)),
                   -ENOTCONN);
  assert_int_equal(
      a->create(a->ctx, &layout_pve_vm_9_0, path, START, why, sizeof(why)),
      -ENOTCONN);
  assert_int_equal(a->last_update(a->ctx, path, &last, why, sizeof(why)),
                   -ENOTCONN);
  assert_int_equal(rrdcached_client_flush(c, path, why, sizeof(why)),
                   -ENOTCONN);
  rrdcached_client_free(c);
  fixture_remove(dir);
  free(dir);
}

/* ---- files through the daemon ------------------------------------------ */

/* Created through the daemon with exactly the layout, never replaced;
 * updates, the refusal of a row that is not newer (with the time the
 * store needs), and the last update including rows still in the cache. */
static void roundtrip(struct fixture *f) {
  char why[512] = "";
  const struct rrd_access *a = f->access;
  assert_int_equal(
      a->check(a->ctx, &layout_pve_vm_9_0, f->path, why, sizeof(why)), -ENOENT);
  assert_int_equal(
      a->create(a->ctx, &layout_pve_vm_9_0, f->path, START, why, sizeof(why)),
      0);
  assert_int_equal(
      a->create(a->ctx, &layout_pve_vm_9_0, f->path, START, why, sizeof(why)),
      -EEXIST);
  assert_int_equal(
      a->check(a->ctx, &layout_pve_vm_9_0, f->path, why, sizeof(why)), 0);
  time_t last = 0;
  assert_int_equal(update(f, START + 10, &last), 0);
  assert_int_equal(update(f, START + 11, &last), 0);
  assert_int_equal(update(f, START + 11, &last), -ESTALE);
  assert_int_equal(last, START + 11);
  assert_int_equal(update(f, START + 5, &last), -ESTALE);
  assert_int_equal(last, START + 11);
  assert_int_equal(a->last_update(a->ctx, f->path, &last, why, sizeof(why)), 0);
  assert_int_equal(last, START + 11);
}

/* The file as librrd reads it from disk, with the layout the check wants. */
static void assert_on_disk(const char *path, time_t last_update) {
  char why[512] = "";
  assert_int_equal(rrd_file_check(&layout_pve_vm_9_0, path, why, sizeof(why)),
                   0);
  time_t t = 0;
  assert_int_equal(rrd_file_last_update(path, &t, why, sizeof(why)), 0);
  assert_int_equal(t, last_update);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_size, 1346072); /* as PVE's */
}

/* The connection to the daemon -- the only socket of this test -- is not
 * inherited by programs collectd's exec plugin starts. */
static void assert_sockets_cloexec(void) {
  DIR *dir = opendir("/proc/self/fd");
  assert_non_null(dir);
  int sockets = 0;
  const struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    int fd = atoi(de->d_name);
    struct stat st;
    if (de->d_name[0] == '.' || fd == dirfd(dir) || fstat(fd, &st) != 0 ||
        !S_ISSOCK(st.st_mode))
      continue;
    sockets++;
    assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  }
  closedir(dir);
  assert_int_equal(sockets, 1);
}

static void test_unix_files(void **state) {
  struct fixture *f = *state;
  roundtrip(f);
  assert_sockets_cloexec();
  char why[512] = "";
  /* rows reach the disk on FLUSH (the daemon's write timeout is 300 s) */
  assert_int_equal(update(f, START + 12, NULL), 0);
  assert_int_equal(rrdcached_client_flush(f->client, f->path, why, sizeof(why)),
                   0);
  assert_on_disk(f->path, START + 12);
}

static void test_tcp_files(void **state) {
  struct fixture *f = *state;
  roundtrip(f); /* the daemon made pve/pve-vm-9.0/ itself (-R) */
  assert_sockets_cloexec();
  char why[512] = "", disk[1000];
  assert_int_equal(rrdcached_client_flush(f->client, f->path, why, sizeof(why)),
                   0);
  snprintf(disk, sizeof(disk), "%s/%s", f->daemon.db, f->path);
  assert_on_disk(disk, START + 11);
  /* an absolute path is refused by librrd itself for a remote daemon */
  char abs_path[700];
  snprintf(abs_path, sizeof(abs_path), "%s/200", f->daemon.db);
  assert_int_equal(f->access->check(f->access->ctx, &layout_pve_vm_9_0,
                                    abs_path, why, sizeof(why)),
                   -EIO);
  assert_non_null(strstr(why, "absolute path names not allowed"));
  /* and paths out of the base directory by the daemon (-B) */
  assert_int_equal(f->access->check(f->access->ctx, &layout_pve_vm_9_0,
                                    "../outside", why, sizeof(why)),
                   -EACCES);
}

/* A file of another layout, and one that is no RRD at all, recognised
 * through the daemon and left byte for byte as they were. */
static void test_foreign_files(void **state) {
  struct fixture *f = *state;
  char foreign[600], junk[600], why[512] = "";
  snprintf(foreign, sizeof(foreign), "%s/101", f->daemon.db);
  snprintf(junk, sizeof(junk), "%s/102", f->daemon.db);
  const char *defs[] = {"DS:foo:GAUGE:600:0:U", "RRA:AVERAGE:0.5:1:10"};
  assert_int_equal(rrd_create_r2(foreign, 300, START, 0, NULL, NULL, 2, defs),
                   0);
  fixture_write(junk, "not an rrd file\n", 16);
  size_t len = 0;
  char *before = fixture_read(foreign, &len);
  const struct rrd_access *a = f->access;
  assert_int_equal(
      a->check(a->ctx, &layout_pve_vm_9_0, foreign, why, sizeof(why)), -EPROTO);
  assert_string_equal(why, "step is 300 s, expected 60 s");
  assert_int_equal(a->check(a->ctx, &layout_pve_vm_9_0, junk, why, sizeof(why)),
                   -EIO);
  assert_int_equal(
      a->create(a->ctx, &layout_pve_vm_9_0, foreign, START, why, sizeof(why)),
      -EEXIST);
  assert_true(fixture_same(foreign, before, len));
  assert_true(fixture_same(junk, "not an rrd file\n", 16));
  free(before);
}

/* rrdcached 1.7.2 answers a CREATE it cannot do (a new directory without
 * -R) in two lines; the next request must still get its own answer. */
static void test_create_error_then_request(void **state) {
  (void)state;
  char *dir = fixture_tmpdir("rrdcached-noR");
  struct rrdcached d;
  rrdcached_prepare(&d, dir, true);
  d.recursive = false;
  rrdcached_start(&d);
  struct rrdcached_client *c;
  assert_int_equal(rrdcached_client_new(d.address, &c), 0);
  const struct rrd_access *a = rrdcached_client_access(c);
  char why[512] = "";
  assert_int_equal(
      a->create(a->ctx, &layout_pve_vm_9_0, "100", START, why, sizeof(why)), 0);
  assert_int_equal(
      a->create(a->ctx, &layout_pve_vm_9_0, "sub/100", START, why, sizeof(why)),
      -EIO);
  assert_non_null(strstr(why, "No permission to recursively create"));
  assert_int_equal(
      a->check(a->ctx, &layout_pve_vm_9_0, "100", why, sizeof(why)), 0);
  time_t last = 0;
  assert_int_equal(a->last_update(a->ctx, "100", &last, why, sizeof(why)), 0);
  assert_int_equal(last, START);
  rrdcached_client_free(c);
  rrdcached_kill(&d);
  fixture_remove(dir);
  free(dir);
}

/* A daemon restarted under an open connection: the first request after it
 * is made on a new connection, unnoticed by the caller; while it is down,
 * -ENOTCONN. */
static void test_daemon_restart(void **state) {
  struct fixture *f = *state;
  char why[512] = "";
  const struct rrd_access *a = f->access;
  assert_int_equal(
      a->create(a->ctx, &layout_pve_vm_9_0, f->path, START, why, sizeof(why)),
      0);
  assert_int_equal(update(f, START + 1, NULL), 0);
  rrdcached_stop(&f->daemon);
  assert_int_equal(update(f, START + 2, NULL), -ENOTCONN);
  assert_int_equal(update(f, START + 2, NULL), -ENOTCONN);
  rrdcached_start(&f->daemon);
  assert_int_equal(update(f, START + 2, NULL), 0);
  rrdcached_stop(&f->daemon);
  rrdcached_start(&f->daemon);
  assert_int_equal(update(f, START + 3, NULL), 0); /* reconnected inside */
  assert_sockets_cloexec(); /* also librrd's own new connection */
  time_t last = 0;
  assert_int_equal(a->last_update(a->ctx, f->path, &last, why, sizeof(why)), 0);
  assert_int_equal(last, START + 3);
  rrdcached_stop(&f->daemon);
  time_t times[8];
  assert_int_equal(rrdcached_journal_times(&f->daemon, f->path, times, 8), 3);
  assert_int_equal(times[0], START + 1);
  assert_int_equal(times[1], START + 2);
  assert_int_equal(times[2], START + 3);
  rrdcached_start(&f->daemon); /* for teardown */
}

int main(void) {
  if (!rrdcached_available()) {
    printf("rrdcached is not installed\n");
    return 77;
  }
  signal(SIGPIPE, SIG_IGN); /* the client's contract (collectd does this) */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_addresses),
      cmocka_unit_test(test_unreachable),
      cmocka_unit_test_setup_teardown(test_unix_files, setup_unix, teardown),
      cmocka_unit_test_setup_teardown(test_tcp_files, setup_tcp, teardown),
      cmocka_unit_test_setup_teardown(test_foreign_files, setup_unix, teardown),
      cmocka_unit_test(test_create_error_then_request),
      cmocka_unit_test_setup_teardown(test_daemon_restart, setup_unix,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

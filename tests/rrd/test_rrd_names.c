/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Node names as they arrive over collectd's network plugin, written through
 * a real rrdcached: the daemon's protocol is one line of words per request,
 * so a host name with spaces must still name exactly its own file -- never
 * a shorter name's file with the rest taken for values.  (Names the store
 * refuses -- '/', '\\', "..", control characters, too long -- and odd but
 * valid ones written directly: test_rrd_store's test_invalid.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file.h"
#include "rrd_fixture.h"
#include "pvecg/rrd_sink.h"
#include "rrdcached_fixture.h"

#include <rrd.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define START 1800000000

static int errors;

static void count_errors(void *ctx, enum rrd_sink_level level,
                         const char *message) {
  (void)ctx;
  if (level == RRD_SINK_ERROR) {
    errors++;
    fprintf(stderr, "error: %s\n", message);
  }
}

/* The entries of dir, sorted and joined by '|'. */
static void listing(const char *dir, char *buf, size_t size) {
  struct dirent **list = NULL;
  int n = scandir(dir, &list, NULL, alphasort);
  assert_true(n >= 0);
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (strcmp(list[i]->d_name, ".") != 0 && strcmp(list[i]->d_name, "..")) {
      size_t used = strlen(buf), len = strlen(list[i]->d_name);
      assert_true(used + 1 + len < size);
      if (used > 0)
        buf[used++] = '|';
      memcpy(buf + used, list[i]->d_name, len + 1);
    }
    free(list[i]);
  }
  free(list);
}

static void test_names_through_the_daemon(void **state) {
  (void)state;
  if (!rrdcached_available())
    skip();
  char *dir = fixture_tmpdir("rrd-names");
  struct rrdcached d;
  rrdcached_prepare(&d, dir, false);
  rrdcached_start(&d);
  struct rrd_sink_options o = {.data_dir = d.db,
                               .daemon_address = d.address,
                               .recheck_seconds = 3600,
                               .log = count_errors};
  char err[256] = "";
  struct rrd_sink *sink = NULL;
  if (rrd_sink_new(&o, &sink, err, sizeof(err)) != 0)
    fail_msg("rrd_sink_new: %s", err);
  const char *names[] = {"node1", "node1 2", "node1 2 3", "node1 3"};
  const size_t count = sizeof(names) / sizeof(names[0]);
  double v[RRD_LAYOUT_DS_MAX];
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < count; i++) {
      for (size_t j = 0; j < layout_pve_node_9_0.ds_count; j++)
        v[j] = j == 0 ? (double)(i + 1) : NAN; /* loadavg: which name */
      rrd_sink_write(sink, &layout_pve_node_9_0, NULL, names[i], START + k, v,
                     layout_pve_node_9_0.ds_count);
    }
  assert_int_equal(rrd_sink_flush(sink, NULL, NULL, NULL), 0);
  struct rrd_sink_stats st;
  rrd_sink_stats(sink, &st);
  rrd_sink_free(sink);
  rrdcached_stop(&d);
  assert_int_equal(errors, 0);
  assert_int_equal(st.store.rows[RRD_STORE_CREATED], count);
  assert_int_equal(st.store.rows[RRD_STORE_WRITTEN], count);

  char path[600], files[256];
  fixture_path(path, "%s/pve-node-9.0", d.db);
  listing(path, files, sizeof(files));
  assert_string_equal(files, "node1|node1 2|node1 2 3|node1 3");
  for (size_t i = 0; i < count; i++) {
    fixture_path(path, "%s/pve-node-9.0/%s", d.db, names[i]);
    time_t t = 0;
    unsigned long n = 0;
    char **ds = NULL, **values = NULL;
    assert_int_equal(rrd_lastupdate_r(path, &t, &n, &ds, &values), 0);
    assert_int_equal(t, START + 1);
    char want[32];
    snprintf(want, sizeof(want), "%zu", i + 1);
    assert_string_equal(values[0], want); /* its own row, no other's */
    for (unsigned long j = 0; j < n; j++) {
      free(ds[j]);
      free(values[j]);
    }
    free(ds);
    free(values);
  }
  fixture_remove(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names_through_the_daemon),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_answer.c and serve_list.c without HTTP: the
 * listings of a data directory and a PVE configuration (names, types and
 * nodes where known, everything else left out, foreign files ignored), the
 * page's files with their policy, and the JSON error answers; the
 * overview (serve_overview.c) of files that are no RRDs and of real ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fixture_tree.h"
#include "pvecg/rrd_file.h"
#include "serve_answer.h"
#include "serve_assets.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char root[256], data_dir[300], config_dir[300];

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-serve");
  snprintf(data_dir, sizeof(data_dir), "%s/data", root);
  snprintf(config_dir, sizeof(config_dir), "%s/pve", root);
  fixture_mkdir(root, "data/pve-vm-9.0");
  fixture_mkdir(root, "data/pve-node-9.0");
  fixture_mkdir(root, "pve/nodes/pve1/qemu-server");
  fixture_mkdir(root, "pve/nodes/pve2/lxc");
  fixture_mkdir(root, "pve/qemu-server");
  fixture_write(root, "data/pve-vm-9.0/100", "");
  fixture_write(root, "data/pve-vm-9.0/1000", "");
  fixture_write(root, "data/pve-vm-9.0/101", "");
  fixture_write(root, "data/pve-vm-9.0/102", "");
  fixture_write(root, "data/pve-vm-9.0/099", "");     /* not a VMID */
  fixture_write(root, "data/pve-vm-9.0/100.tmp", ""); /* nor this */
  fixture_mkdir(root, "data/pve-vm-9.0/103");         /* not a file */
  fixture_mkdir(root, "data/pve-node-9.0/dir");
  fixture_write(root, "data/pve-node-9.0/pve2", "");
  fixture_write(root, "data/pve-node-9.0/pve1", "");
  fixture_write(root, "data/pve-node-9.0/.hidden", "");
  fixture_write(root, "pve/nodes/pve1/qemu-server/100.conf",
                "name: web\nmemory: 2048\n[snap]\nname: old\n");
  fixture_write(root, "pve/nodes/pve2/lxc/101.conf",
                "hostname: ct-\"1\"\ncores: 2\n");
  /* the local node's link repeats pve1's guest without the node */
  fixture_write(root, "pve/qemu-server/100.conf", "name: web\n");
  fixture_write(root, "pve/qemu-server/1000.conf", "memory: 512\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

static void answer(const char *method, const char *path,
                   const struct serve_param *params, size_t count,
                   struct serve_reply *r) {
  struct serve_config c = {.data_dir = data_dir,
                           .list_dir = data_dir,
                           .config_dir = config_dir,
                           .now = 1700000000};
  serve_answer(&c, method, path, params, count, &(struct serve_headers){0}, r);
}

static void check_json(const struct serve_reply *r, int status,
                       const char *body) {
  assert_int_equal(r->status, status);
  assert_string_equal(r->content_type, "application/json;charset=UTF-8");
  assert_string_equal(r->cache_control, "no-store");
  assert_false(r->page);
  assert_non_null(r->body);
  assert_int_equal(r->size, strlen(body));
  assert_memory_equal(r->body, body, r->size);
}

static void test_resources(void **state) {
  struct serve_reply r;
  (void)state;
  answer("GET", "/api2/json/cluster/resources", NULL, 0, &r);
  check_json(&r, 200,
             "{\"data\":["
             "{\"id\":\"node/pve1\",\"type\":\"node\",\"node\":\"pve1\"},"
             "{\"id\":\"node/pve2\",\"type\":\"node\",\"node\":\"pve2\"},"
             "{\"id\":\"qemu/100\",\"type\":\"qemu\",\"vmid\":100,"
             "\"name\":\"web\",\"node\":\"pve1\"},"
             "{\"id\":\"lxc/101\",\"type\":\"lxc\",\"vmid\":101,"
             "\"name\":\"ct-\\\"1\\\"\",\"node\":\"pve2\"},"
             "{\"id\":\"guest/102\",\"type\":\"guest\",\"vmid\":102},"
             "{\"id\":\"qemu/1000\",\"type\":\"qemu\",\"vmid\":1000}"
             "]}");
  assert_string_equal(r.message, "");
  serve_reply_free(&r);
}

static void test_nodes_and_empty(void **state) {
  struct serve_reply r;
  (void)state;
  answer("GET", "/api2/json/nodes", NULL, 0, &r);
  check_json(&r, 200,
             "{\"data\":["
             "{\"id\":\"node/pve1\",\"type\":\"node\",\"node\":\"pve1\"},"
             "{\"id\":\"node/pve2\",\"type\":\"node\",\"node\":\"pve2\"}]}");
  serve_reply_free(&r);
  struct serve_config none = {
      .data_dir = "/nonexistent", .list_dir = "/nonexistent", .config_dir = ""};
  serve_answer(&none, "GET", "/api2/json/cluster/resources", NULL, 0,
               &(struct serve_headers){0}, &r);
  check_json(&r, 200, "{\"data\":[]}");
  serve_reply_free(&r);
}

static void test_page(void **state) {
  struct serve_reply r;
  const struct serve_asset *index = serve_asset_find("/");
  (void)state;
  assert_non_null(index);
  answer("GET", "/", NULL, 0, &r);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.content_type, "text/html; charset=utf-8");
  assert_true(r.page);
  assert_null(r.body);
  assert_ptr_equal(r.data, index->data);
  assert_int_equal(r.size, index->size);
  assert_non_null(memmem(r.data, r.size, "app.js", 6));
  serve_reply_free(&r);
  answer("GET", "/app.js", NULL, 0, &r);
  assert_string_equal(r.content_type, "text/javascript; charset=utf-8");
  serve_reply_free(&r);
  answer("GET", "/app.css", NULL, 0, &r);
  assert_string_equal(r.content_type, "text/css; charset=utf-8");
  serve_reply_free(&r);
}

static void test_errors(void **state) {
  struct serve_reply r;
  struct serve_param day[] = {{"timeframe", "day"}};
  struct serve_param bad[] = {{"timeframe", "days"}};
  (void)state;
  answer("GET", "/../etc/passwd", NULL, 0, &r);
  check_json(&r, 404, "{\"data\":null,\"message\":\"no such path\"}");
  assert_string_equal(r.message, "no such path");
  serve_reply_free(&r);
  answer("DELETE", "/api2/json/nodes", NULL, 0, &r);
  check_json(&r, 405,
             "{\"data\":null,\"message\":\"only GET and HEAD are served\"}");
  serve_reply_free(&r);
  answer("GET", "/api2/json/nodes/pve1/qemu/100/rrddata", bad, 1, &r);
  check_json(&r, 400,
             "{\"data\":null,\"message\":\"Parameter verification failed.\","
             "\"errors\":{\"timeframe\":\"value does not have a value in the "
             "enumeration 'hour, day, week, month, year, decade'\"}}");
  assert_string_equal(r.message,
                      "Parameter verification failed. (timeframe: value does "
                      "not have a value in the enumeration 'hour, day, week, "
                      "month, year, decade')");
  serve_reply_free(&r);
  answer("GET", "/api2/json/nodes/pve1/qemu/200/rrddata", day, 1, &r);
  check_json(&r, 404,
             "{\"data\":null,\"message\":\"no RRD file for this guest\"}");
  serve_reply_free(&r);
  answer("GET", "/api2/json/nodes/pve9/rrddata", day, 1, &r);
  check_json(&r, 404,
             "{\"data\":null,\"message\":\"no RRD file for this node\"}");
  serve_reply_free(&r);
  /* a file that is not an RRD: librrd's reason goes to the log only */
  answer("GET", "/api2/json/nodes/pve1/qemu/100/rrddata", day, 1, &r);
  check_json(&r, 500,
             "{\"data\":null,\"message\":\"the RRD file could not be "
             "read\"}");
  assert_non_null(strstr(r.message, "/data/pve-vm-9.0/100: "));
  serve_reply_free(&r);
}

/* ---- the overview -------------------------------------------------------- */

#define NODE_NULLS                                                             \
  "\"time\":null,\"age\":null,\"stale\":true,\"memused\":null,\"memtotal\":"   \
  "null,\"cpu\":null,"                                                         \
  "\"maxcpu\":null,\"pressurecpusome\":null,\"pressureiosome\":null,"          \
  "\"pressurememorysome\":null,\"ksm\":false,\"pressure\":false,"              \
  "\"spark\":null}"
#define GUEST_NULLS                                                            \
  "\"time\":null,\"age\":null,\"stale\":true,\"memhost\":null,\"mem\":null,"   \
  "\"maxmem\":null,"                                                           \
  "\"cpu\":null,\"maxcpu\":null,\"pressurecpusome\":null,"                     \
  "\"pressureiosome\":null,\"pressurememorysome\":null,\"ksmsaved\":null,"     \
  "\"ksm\":false,\"pressure\":false,\"spark\":null}"

/* Files that are no RRDs: every one listed as the listing has it, with
 * nothing known. */
static void test_overview_unreadable(void **state) {
  struct serve_reply r;
  (void)state;
  answer("GET", "/api2/json/pvecg/overview", NULL, 0, &r);
  check_json(
      &r, 200,
      "{\"data\":["
      "{\"id\":\"node/pve1\",\"type\":\"node\",\"node\":\"pve1\"," NODE_NULLS
      ",{\"id\":\"node/pve2\",\"type\":\"node\",\"node\":\"pve2\"," NODE_NULLS
      ",{\"id\":\"qemu/100\",\"type\":\"qemu\",\"vmid\":100,"
      "\"name\":\"web\",\"node\":\"pve1\"," GUEST_NULLS
      ",{\"id\":\"lxc/101\",\"type\":\"lxc\",\"vmid\":101,"
      "\"name\":\"ct-\\\"1\\\"\",\"node\":\"pve2\"," GUEST_NULLS
      ",{\"id\":\"guest/102\",\"type\":\"guest\",\"vmid\":102," GUEST_NULLS
      ",{\"id\":\"qemu/1000\",\"type\":\"qemu\",\"vmid\":1000," GUEST_NULLS
      "]}");
  serve_reply_free(&r);
}

#define T0 1700000040 /* a whole minute */

/* A guest file with ten rows a minute apart after T0: memhost 1000*i,
 * the last row's memhost U and its cpu a double "%.15g" cannot give. */
static void make_guest_file(const char *dir) {
  char path[400], err[256], row[256];
  snprintf(path, sizeof(path), "%s/pve-vm-9.0/100", dir);
  assert_int_equal(
      rrd_file_create(&layout_pve_vm_9_0, path, T0, err, sizeof(err)), 0);
  for (int i = 1; i <= 10; i++) {
    char memhost[32];
    snprintf(memhost, sizeof(memhost), "%d", 1000 * i);
    snprintf(row, sizeof(row),
             "%d:2:%s:4096:2048:0:0:0:0:0:0:%s:1.5:0:0.25:0:U:0", T0 + 60 * i,
             i == 10 ? "0.30000000000000004" : "0.5", i == 10 ? "U" : memhost);
    assert_int_equal(rrd_file_update(path, row, err, sizeof(err)), 0);
  }
}

/* Its KSM file: one row at the pve file's last, ksmsaved 12288. */
static void make_ksm_file(const char *dir) {
  char path[400], err[256];
  snprintf(path, sizeof(path), "%s/pvecg-ksm-vm-1.0/100", dir);
  assert_int_equal(
      rrd_file_create(&layout_pvecg_ksm_vm_1_0, path, T0, err, sizeof(err)), 0);
  assert_int_equal(
      rrd_file_update(path, "1700000640:3:0:-4096:12288", err, sizeof(err)), 0);
}

/* Its stall-time file: counters (microseconds) that grow by 15 s of cpu
 * some, 6 s of memory some and 3 s of memory full per 60 s row, so
 * rrddata's rows (from the second on) hold 250000, 100000 and 50000 µs
 * per second: 25 %, 10 % and 5 % of each row's time. */
static void make_pressure_file(const char *dir) {
  char path[400], err[256], row[128];
  snprintf(path, sizeof(path), "%s/pvecg-pressure-vm-1.0/100", dir);
  assert_int_equal(rrd_file_create(&layout_pvecg_pressure_vm_1_0, path, T0, err,
                                   sizeof(err)),
                   0);
  for (long i = 1; i <= 10; i++) {
    snprintf(row, sizeof(row), "%ld:%ld:0:0:0:%ld:%ld", T0 + 60 * i,
             5000000000L + 15000000L * i, 6000000L * i, 3000000L * i);
    assert_int_equal(rrd_file_update(path, row, err, sizeof(err)), 0);
  }
}

static void test_overview_values(void **state) {
  char dir[300], want[2000];
  struct serve_reply r;
  (void)state;
  snprintf(dir, sizeof(dir), "%s/rrd", root);
  fixture_mkdir(root, "rrd/pve-vm-9.0");
  make_guest_file(dir);
  fixture_mkdir(root, "rrd/pvecg-ksm-vm-1.0");
  make_ksm_file(dir);
  fixture_mkdir(root, "rrd/pvecg-pressure-vm-1.0");
  make_pressure_file(dir);
  /* the hour before T0 + 630: rows T0 - 2940 ... T0 + 600 */
  struct serve_config c = {
      .data_dir = dir, .list_dir = dir, .config_dir = "", .now = T0 + 630};
  serve_answer(&c, "GET", "/api2/json/pvecg/overview", NULL, 0,
               &(struct serve_headers){0}, &r);
  snprintf(want, sizeof(want), "%s",
           "{\"data\":[{\"id\":\"guest/100\",\"type\":\"guest\","
           "\"vmid\":100,\"time\":1700000640,\"age\":30,\"stale\":false,"
           "\"memhost\":null,"
           "\"mem\":2048,\"maxmem\":4096,\"cpu\":0.30000000000000004,"
           "\"maxcpu\":2,\"pressurecpusome\":1.5,\"pressureiosome\":0.25,"
           "\"pressurememorysome\":null,\"ksmsaved\":12288,\"ksm\":true,"
           "\"pressure\":true,\"spark\":[");
  for (int i = 0; i < 50; i++)
    strcat(want, "null,");
  strcat(want, "1000,2000,3000,4000,5000,6000,7000,8000,9000,null],"
               "\"spark_time\":1699997100,\"spark_step\":60}]}");
  check_json(&r, 200, want);
  serve_reply_free(&r);
}

/* rrddata with pressure=1: the stall-time file's rows, µs per second. */
static void test_pressure_rrddata(void **state) {
  char dir[300];
  struct serve_reply r;
  struct serve_param p[] = {{"timeframe", "hour"}, {"pressure", "1"}};
  struct serve_param both[] = {
      {"timeframe", "hour"}, {"pressure", "1"}, {"ksm", "1"}};
  const char *row = "{\"time\":1700000640,\"stallcpusome\":250000,"
                    "\"stallcpufull\":0,\"stalliosome\":0,\"stalliofull\":0,"
                    "\"stallmemorysome\":100000,\"stallmemoryfull\":50000}";
  (void)state;
  snprintf(dir, sizeof(dir), "%s/rrd", root);
  struct serve_config c = {
      .data_dir = dir, .list_dir = dir, .config_dir = "", .now = T0 + 630};
  serve_answer(&c, "GET", "/api2/json/nodes/pve1/qemu/100/rrddata", p, 2,
               &(struct serve_headers){0}, &r);
  assert_int_equal(r.status, 200);
  assert_non_null(r.body);
  if (memmem(r.body, r.size, row, strlen(row)) == NULL)
    fail_msg("no row %s in %.*s", row, (int)r.size, r.body);
  serve_reply_free(&r);
  /* the guest's pve file is no stall-time file, and 101 has none */
  serve_answer(&c, "GET", "/api2/json/nodes/pve1/qemu/101/rrddata", p, 2,
               &(struct serve_headers){0}, &r);
  check_json(&r, 404,
             "{\"data\":null,\"message\":\"no RRD file for this guest\"}");
  serve_reply_free(&r);
  serve_answer(&c, "GET", "/api2/json/nodes/pve1/rrddata", p, 2,
               &(struct serve_headers){0}, &r);
  check_json(&r, 404,
             "{\"data\":null,\"message\":\"no RRD file for this node\"}");
  serve_reply_free(&r);
  serve_answer(&c, "GET", "/api2/json/nodes/pve1/qemu/100/rrddata", both, 3,
               &(struct serve_headers){0}, &r);
  assert_int_equal(r.status, 400);
  serve_reply_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resources),
      cmocka_unit_test(test_nodes_and_empty),
      cmocka_unit_test(test_page),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_overview_unreadable),
      cmocka_unit_test(test_overview_values),
      cmocka_unit_test(test_pressure_rrddata),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

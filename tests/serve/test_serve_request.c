/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_request.c and serve_listen.c: every path the server
 * has, the names and parameters each takes, and the exact 4xx answer for
 * what it refuses (hostile paths included); the cluster parameter of every
 * API path and /metrics; --listen's addresses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_listen.h"
#include "serve_request.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#define P(k, v) ((struct serve_param){k, v})

static struct serve_request req;
static struct serve_error err;

static int parse(const char *path, const struct serve_param *params,
                 size_t count) {
  memset(&req, 0x5a, sizeof(req));
  memset(&err, 0, sizeof(err));
  return serve_request_parse("GET", path, params, count, &req, &err);
}

static void check_refused(const char *path, const struct serve_param *params,
                          size_t count, int status, const char *message,
                          const char *param, const char *problem) {
  assert_int_equal(parse(path, params, count), -EINVAL);
  assert_int_equal(err.status, status);
  assert_string_equal(err.message, message);
  assert_string_equal(err.param, param);
  assert_string_equal(err.param_problem, problem);
}

static void test_guest_rrddata(void **state) {
  struct serve_param p[] = {P("timeframe", "week"), P("cf", "MAX")};
  (void)state;
  assert_int_equal(parse("/api2/json/nodes/pve1/qemu/100/rrddata", p, 2), 0);
  assert_int_equal(req.route, SERVE_ROUTE_GUEST_RRDDATA);
  assert_string_equal(req.node, "pve1");
  assert_string_equal(req.guest_type, "qemu");
  assert_string_equal(req.vmid, "100");
  assert_int_equal(req.timeframe, RRDDATA_WEEK);
  assert_int_equal(req.cf, RRD_CF_MAX);
  assert_int_equal(
      parse("/api2/json/nodes/host.example.com/lxc/999999999/rrddata", p, 1),
      0);
  assert_string_equal(req.guest_type, "lxc");
  assert_string_equal(req.node, "host.example.com");
  assert_string_equal(req.vmid, "999999999");
  assert_int_equal(req.cf, RRD_CF_AVERAGE);
}

/* ksm: 0 or 1, once, on the rrddata paths alone. */
static void test_ksm(void **state) {
  const char *g = "/api2/json/nodes/pve1/qemu/100/rrddata";
  struct serve_param on[] = {P("timeframe", "day"), P("ksm", "1")};
  struct serve_param off[] = {P("ksm", "0"), P("timeframe", "day")};
  struct serve_param bad[] = {P("timeframe", "day"), P("ksm", "yes")};
  struct serve_param none[] = {P("timeframe", "day"), P("ksm", NULL)};
  struct serve_param twice[] = {P("timeframe", "day"), P("ksm", "1"),
                                P("ksm", "1")};
  const char *problem = "type check ('boolean') failed - not 0 or 1";
  (void)state;
  assert_int_equal(parse(g, on, 2), 0);
  assert_true(req.ksm);
  assert_int_equal(parse("/api2/json/nodes/pve1/rrddata", on, 2), 0);
  assert_int_equal(req.route, SERVE_ROUTE_NODE_RRDDATA);
  assert_true(req.ksm);
  assert_int_equal(parse(g, off, 2), 0);
  assert_false(req.ksm);
  assert_int_equal(parse(g, on, 1), 0);
  assert_false(req.ksm);
  check_refused(g, bad, 2, 400, "Parameter verification failed.", "ksm",
                problem);
  check_refused(g, none, 2, 400, "Parameter verification failed.", "ksm",
                problem);
  check_refused(g, twice, 3, 400, "Parameter verification failed.", "ksm",
                "given more than once");
  check_refused("/api2/json/pvecg/overview", on + 1, 1, 400,
                "Parameter verification failed.", "ksm",
                "property is not defined in schema and the schema does not "
                "allow additional properties");
}

/* pressure: as ksm, and never with ksm=1 (they name different files). */
static void test_pressure(void **state) {
  const char *g = "/api2/json/nodes/pve1/qemu/100/rrddata";
  struct serve_param on[] = {P("timeframe", "hour"), P("pressure", "1")};
  struct serve_param with_ksm_off[] = {P("ksm", "0"), P("pressure", "1"),
                                       P("timeframe", "hour")};
  struct serve_param both[] = {P("timeframe", "hour"), P("ksm", "1"),
                               P("pressure", "1")};
  struct serve_param both_reversed[] = {P("pressure", "1"), P("ksm", "1"),
                                        P("timeframe", "hour")};
  struct serve_param bad[] = {P("timeframe", "hour"), P("pressure", "true")};
  struct serve_param twice[] = {P("timeframe", "hour"), P("pressure", "0"),
                                P("pressure", "1")};
  const char *v = "Parameter verification failed.";
  (void)state;
  assert_int_equal(parse(g, on, 2), 0);
  assert_true(req.pressure);
  assert_false(req.ksm);
  assert_int_equal(parse("/api2/json/nodes/pve1/rrddata", on, 2), 0);
  assert_int_equal(req.route, SERVE_ROUTE_NODE_RRDDATA);
  assert_true(req.pressure);
  assert_int_equal(parse(g, on, 1), 0);
  assert_false(req.pressure);
  assert_int_equal(parse(g, with_ksm_off, 3), 0);
  assert_true(req.pressure);
  assert_false(req.ksm);
  check_refused(g, both, 3, 400, v, "pressure",
                "ksm and pressure name different files; give one");
  check_refused(g, both_reversed, 3, 400, v, "ksm",
                "ksm and pressure name different files; give one");
  check_refused(g, bad, 2, 400, v, "pressure",
                "type check ('boolean') failed - not 0 or 1");
  check_refused(g, twice, 3, 400, v, "pressure", "given more than once");
  check_refused("/api2/json/cluster/resources", on + 1, 1, 400, v, "pressure",
                "property is not defined in schema and the schema does not "
                "allow additional properties");
  check_refused("/metrics", on + 1, 1, 400, v, "pressure",
                "property is not defined in schema and the schema does not "
                "allow additional properties");
}

static void test_node_rrddata_and_listings(void **state) {
  struct serve_param p[] = {P("cf", "AVERAGE"), P("timeframe", "decade")};
  (void)state;
  assert_int_equal(parse("/api2/json/nodes/pve-2/rrddata", p, 2), 0);
  assert_int_equal(req.route, SERVE_ROUTE_NODE_RRDDATA);
  assert_string_equal(req.node, "pve-2");
  assert_int_equal(req.timeframe, RRDDATA_DECADE);
  assert_int_equal(req.cf, RRD_CF_AVERAGE);
  assert_int_equal(parse("/api2/json/nodes", NULL, 0), 0);
  assert_int_equal(req.route, SERVE_ROUTE_NODES);
  assert_int_equal(parse("/api2/json/cluster/resources", NULL, 0), 0);
  assert_int_equal(req.route, SERVE_ROUTE_RESOURCES);
  assert_int_equal(parse("/api2/json/pvecg/overview", NULL, 0), 0);
  assert_int_equal(req.route, SERVE_ROUTE_OVERVIEW);
  assert_int_equal(parse("/metrics", NULL, 0), 0);
  assert_int_equal(req.route, SERVE_ROUTE_METRICS);
  /* they take no parameter, as the listings */
  assert_int_equal(parse("/metrics", p, 1), -EINVAL);
  assert_int_equal(err.status, 400);
  assert_string_equal(err.param, "cf");
  assert_int_equal(parse("/api2/json/pvecg/overview", p + 1, 1), -EINVAL);
  assert_string_equal(err.param, "timeframe");
  /* only the exact path: anything else under it is the page's (a 404) */
  assert_int_equal(parse("/metrics/", NULL, 0), 0);
  assert_int_equal(req.route, SERVE_ROUTE_ASSET);
}

static void test_assets(void **state) {
  struct serve_param p[] = {P("anything", "x")};
  (void)state;
  assert_int_equal(parse("/", p, 1), 0);
  assert_int_equal(req.route, SERVE_ROUTE_ASSET);
  assert_string_equal(req.asset, "/");
  assert_int_equal(parse("/app.js", NULL, 0), 0);
  assert_string_equal(req.asset, "/app.js");
  /* "/api2/json" itself is not the API: the page's lookup says 404 */
  assert_int_equal(parse("/api2/json", NULL, 0), 0);
  assert_int_equal(req.route, SERVE_ROUTE_ASSET);
}

static void test_unknown_paths(void **state) {
  static const char *const paths[] = {
      "/api2/json/",
      "/api2/json/nodes/",
      "/api2/json/nodes//rrddata",
      "/api2/json/nodes/pve1/rrddata/",
      "/api2/json/nodes/pve1/openvz/100/rrddata",
      "/api2/json/nodes/pve1/qemu/100",
      "/api2/json/nodes/pve1/qemu/100/status",
      "/api2/json/nodes/../rrddata",
      "/api2/json/nodes/./rrddata",
      "/api2/json/nodes/.hidden/rrddata",
      "/api2/json/nodes/%2e%2e/rrddata",
      "/api2/json/nodes/a\\b/rrddata",
      "/api2/json/nodes/a b/rrddata",
      "/api2/json/nodes/pve1/qemu/../../../etc/passwd",
      "/api2/json/cluster",
      "/api2/json/pvecg",
      "/api2/json/pvecg/overview/",
      "/api2/json/pvecg/metrics",
      "/api2/json/a/b/c/d/e/f/g/h/i",
      "/api2/extjs/nodes",
      "relative",
      "",
  };
  (void)state;
  for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
    int r = parse(paths[i], NULL, 0);
    if (strncmp(paths[i], "/api2/json/", 11) != 0 && paths[i][0] == '/') {
      assert_int_equal(r, 0); /* the page's lookup refuses those */
      assert_int_equal(req.route, SERVE_ROUTE_ASSET);
      continue;
    }
    assert_int_equal(r, -EINVAL);
    assert_int_equal(err.status, 404);
    assert_string_equal(err.message, "no such path");
    assert_string_equal(err.param, "");
  }
}

static void test_bad_names(void **state) {
  struct serve_param p[] = {P("timeframe", "hour")};
  char long_node[128];
  char path[256];
  (void)state;
  check_refused("/api2/json/nodes/pve1/qemu/99/rrddata", p, 1, 400,
                "Parameter verification failed.", "vmid",
                "invalid format - not a VMID (100..999999999)");
  check_refused("/api2/json/nodes/pve1/qemu/0100/rrddata", p, 1, 400,
                "Parameter verification failed.", "vmid",
                "invalid format - not a VMID (100..999999999)");
  check_refused("/api2/json/nodes/pve1/lxc/1000000000/rrddata", p, 1, 400,
                "Parameter verification failed.", "vmid",
                "invalid format - not a VMID (100..999999999)");
  memset(long_node, 'n', 65);
  long_node[65] = '\0';
  snprintf(path, sizeof(path), "/api2/json/nodes/%s/rrddata", long_node);
  check_refused(path, p, 1, 400, "Parameter verification failed.", "node",
                "value is too long");
  long_node[64] = '\0';
  snprintf(path, sizeof(path), "/api2/json/nodes/%s/rrddata", long_node);
  assert_int_equal(parse(path, p, 1), 0);
  assert_string_equal(req.node, long_node);
}

static void test_bad_parameters(void **state) {
  const char *g = "/api2/json/nodes/pve1/qemu/100/rrddata";
  struct serve_param bad_tf[] = {P("timeframe", "Hour")};
  struct serve_param no_value[] = {P("timeframe", NULL)};
  struct serve_param bad_cf[] = {P("timeframe", "day"), P("cf", "MIN")};
  struct serve_param twice[] = {P("timeframe", "day"), P("timeframe", "day")};
  struct serve_param other[] = {P("timeframe", "day"), P("ds", "cpu")};
  struct serve_param cf_only[] = {P("cf", "MAX")};
  struct serve_param many[SERVE_PARAMS_MAX + 1];
  (void)state;
  const char *tf_problem = "value does not have a value in the enumeration "
                           "'hour, day, week, month, year, decade'";
  check_refused(g, bad_tf, 1, 400, "Parameter verification failed.",
                "timeframe", tf_problem);
  check_refused(g, no_value, 1, 400, "Parameter verification failed.",
                "timeframe", tf_problem);
  check_refused(g, bad_cf, 2, 400, "Parameter verification failed.", "cf",
                "value does not have a value in the enumeration "
                "'AVERAGE, MAX'");
  check_refused(g, twice, 2, 400, "Parameter verification failed.", "timeframe",
                "given more than once");
  check_refused(g, other, 2, 400, "Parameter verification failed.", "ds",
                "property is not defined in schema and the schema does not "
                "allow additional properties");
  check_refused(g, cf_only, 1, 400, "Parameter verification failed.",
                "timeframe", "property is missing and it is not optional");
  check_refused("/api2/json/nodes", cf_only, 1, 400,
                "Parameter verification failed.", "cf",
                "property is not defined in schema and the schema does not "
                "allow additional properties");
  for (size_t i = 0; i <= SERVE_PARAMS_MAX; i++)
    many[i] = P("timeframe", "day");
  check_refused(g, many, SERVE_PARAMS_MAX + 1, 400, "too many query parameters",
                "", "");
}

static void test_cluster(void **state) {
  static const char *const paths[] = {"/api2/json/nodes/pve1/qemu/100/rrddata",
                                      "/api2/json/nodes/pve1/rrddata",
                                      "/api2/json/cluster/resources",
                                      "/api2/json/nodes",
                                      "/api2/json/pvecg/overview",
                                      "/metrics"};
  struct serve_param p[] = {P("timeframe", "day"), P("cluster", "prod")};
  (void)state;
  for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
    bool rrddata = i < 2;
    assert_int_equal(parse(paths[i], rrddata ? p : p + 1, rrddata ? 2 : 1), 0);
    assert_true(req.has_cluster);
    assert_string_equal(req.cluster, "prod");
    assert_int_equal(parse(paths[i], p, rrddata ? 1 : 0), 0);
    assert_false(req.has_cluster);
  }
  /* "" (or no value): the data directory's own files */
  struct serve_param own[] = {P("cluster", ""), P("cluster", NULL)};
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(parse("/metrics", own + i, 1), 0);
    assert_true(req.has_cluster);
    assert_string_equal(req.cluster, "");
  }
  /* any name a cluster's directory may have, up to 64 bytes */
  struct serve_param odd[] = {P("cluster", "dc1:\"x\""),
                              P("cluster", "a234567890123456789012345678901234"
                                           "567890123456789012345678901234")};
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(parse("/api2/json/nodes", odd + i, 1), 0);
    assert_string_equal(req.cluster, odd[i].value);
  }
  /* what cannot be one */
  static const char *const bad[] = {
      "pve-vm-9.0",
      "pve2-storage",
      ".hidden",
      "..",
      "a/b",
      "a\\b",
      "a\nb",
      "dc 1", /* a space: no line of the owners file could name it */
      "a2345678901234567890123456789012345678901234567890123456789012345"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
    struct serve_param b = P("cluster", bad[i]);
    check_refused("/api2/json/cluster/resources", &b, 1, 400,
                  "Parameter verification failed.", "cluster",
                  "invalid format - not a cluster name");
  }
  struct serve_param twice[] = {P("cluster", "a"), P("cluster", "b")};
  check_refused("/metrics", twice, 2, 400, "Parameter verification failed.",
                "cluster", "given more than once");
  /* rrddata still wants its timeframe */
  check_refused("/api2/json/nodes/pve1/rrddata", p + 1, 1, 400,
                "Parameter verification failed.", "timeframe",
                "property is missing and it is not optional");
}

static void test_methods_and_length(void **state) {
  char path[600];
  (void)state;
  memset(&err, 0, sizeof(err));
  assert_int_equal(
      serve_request_parse("POST", "/api2/json/nodes", NULL, 0, &req, &err),
      -EINVAL);
  assert_int_equal(err.status, 405);
  assert_string_equal(err.message, "only GET and HEAD are served");
  assert_int_equal(
      serve_request_parse("HEAD", "/api2/json/nodes", NULL, 0, &req, &err), 0);
  memset(path, 'a', sizeof(path) - 1);
  path[0] = '/';
  path[sizeof(path) - 1] = '\0';
  check_refused(path, NULL, 0, 414, "the path is too long", "", "");
}

static void check_listen(const char *text, int family, const char *host,
                         unsigned port) {
  struct serve_listen l;
  char out[64];
  assert_int_equal(serve_listen_parse(text, &l), 0);
  assert_int_equal(l.addr.ss_family, family);
  assert_int_equal(l.port, port);
  const void *a =
      family == AF_INET6
          ? (const void *)&((struct sockaddr_in6 *)&l.addr)->sin6_addr
          : (const void *)&((struct sockaddr_in *)&l.addr)->sin_addr;
  assert_non_null(inet_ntop(family, a, out, sizeof(out)));
  assert_string_equal(out, host);
}

static void test_listen(void **state) {
  static const char *const bad[] = {
      "127.0.0.1",       "127.0.0.1:",
      "127.0.0.1:65536", "localhost:80",
      ":8016",           "::1:8016",
      "[::1]8016",       "[::1]:",
      "[]:80",           "127.0.0.1:+80",
      "127.0.0.1:0x50",  "1.2.3:80",
      "[127.0.0.1]:80",  NULL,
  };
  struct serve_listen l;
  (void)state;
  check_listen("127.0.0.1:8016", AF_INET, "127.0.0.1", 8016);
  check_listen("0.0.0.0:0", AF_INET, "0.0.0.0", 0);
  check_listen("[::1]:443", AF_INET6, "::1", 443);
  check_listen("[::]:65535", AF_INET6, "::", 65535);
  for (size_t i = 0; bad[i] != NULL; i++)
    assert_int_equal(serve_listen_parse(bad[i], &l), -EINVAL);
  assert_int_equal(serve_listen_parse(NULL, &l), -EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_guest_rrddata),
      cmocka_unit_test(test_ksm),
      cmocka_unit_test(test_pressure),
      cmocka_unit_test(test_node_rrddata_and_listings),
      cmocka_unit_test(test_assets),
      cmocka_unit_test(test_unknown_paths),
      cmocka_unit_test(test_bad_names),
      cmocka_unit_test(test_bad_parameters),
      cmocka_unit_test(test_cluster),
      cmocka_unit_test(test_methods_and_length),
      cmocka_unit_test(test_listen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

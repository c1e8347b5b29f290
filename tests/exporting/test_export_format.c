/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_format.c: the exact text of every format for
 * exact inputs — unknown values left out, an all-unknown row giving nothing,
 * numbers that must survive (2^53+2, 1e15, negatives, tiny values),
 * escaping of line-protocol measurements, tags and fields, CSV quoting,
 * JSON strings — and sources that cannot be written refused without a
 * byte of output; a named cluster's rows (the Graphite level after the
 * prefix, the cluster tag, CSV's first column and JSON's field, "" for the
 * data directory's own files when named clusters exist).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "text_capture.h"

#include "pvecg/export_format.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A layout of the tests' own: only its column names are used. */
static const struct rrd_ds_def six_ds[] = {
    {"a", RRD_DS_GAUGE, false}, {"b", RRD_DS_GAUGE, false},
    {"c", RRD_DS_GAUGE, false}, {"d", RRD_DS_GAUGE, false},
    {"e", RRD_DS_GAUGE, false}, {"f", RRD_DS_DERIVE, false},
};
static const struct rrd_layout six = {
    .name = "six", .ds = six_ds, .ds_count = 6};

/* Column names line protocol and CSV must escape or quote. */
static const struct rrd_ds_def odd_ds[] = {{"x y", RRD_DS_GAUGE, false},
                                           {"k=v", RRD_DS_GAUGE, false},
                                           {"c,d", RRD_DS_GAUGE, false},
                                           {"q\"", RRD_DS_GAUGE, false}};
static const struct rrd_layout odd = {
    .name = "odd", .ds = odd_ds, .ds_count = 4};

/* 4, unknown, 2^53+2, 1e15, -0.5, 1e-300 */
static const double six_values[6] = {4,    NAN,  9007199254740994.0,
                                     1e15, -0.5, 1e-300};
static const double six_unknown[6] = {NAN, NAN, NAN, NAN, NAN, NAN};

#define T 1700000060

/* Formats one row and compares text and counts. */
static void check_row(enum export_format f, const struct export_source *src,
                      time_t t, const double *values, const char *expected,
                      size_t lines, size_t count) {
  struct capture c;
  capture_open(&c);
  struct export_count n = {99, 99};
  assert_int_equal(export_format_row(f, src, t, values, c.out, &n), 0);
  capture_check(&c, expected);
  assert_int_equal(n.lines, lines);
  assert_int_equal(n.values, count);
}

/* The row is refused with err and nothing is written. */
static void check_refused(enum export_format f, const struct export_source *src,
                          time_t t, int err) {
  struct capture c;
  capture_open(&c);
  struct export_count n = {99, 99};
  assert_int_equal(export_format_row(f, src, t, six_values, c.out, &n), err);
  capture_check(&c, "");
  assert_int_equal(n.lines, 99);
}

static const struct export_source vm100 = {.kind = EXPORT_VM,
                                           .name = "100",
                                           .file = "six/100",
                                           .prefix = "pve",
                                           .layout = &six,
                                           .names = EXPORT_NAMES_PVECG};

/* A node's file of the layout `odd`, named the RRD's way. */
static struct export_source odd_node(const char *name, const char *file) {
  return (struct export_source){.kind = EXPORT_NODE,
                                .name = name,
                                .file = file,
                                .prefix = "pve",
                                .layout = &odd,
                                .names = EXPORT_NAMES_PVECG};
}

static void test_graphite(void **state) {
  (void)state;
  check_row(EXPORT_GRAPHITE, &vm100, T, six_values,
            "pve.vm.100.a 4 1700000060\n"
            "pve.vm.100.c 9007199254740994 1700000060\n"
            "pve.vm.100.d 1e+15 1700000060\n"
            "pve.vm.100.e -0.5 1700000060\n"
            "pve.vm.100.f 1e-300 1700000060\n",
            5, 5);
  /* A node name's dots, spaces and newlines would change the path. */
  struct export_source node = vm100;
  node.kind = EXPORT_NODE;
  node.name = "my.node 1\n";
  node.file = "six/x";
  node.prefix = "site.pve";
  double one[6] = {NAN, NAN, NAN, NAN, NAN, 0.1};
  check_row(EXPORT_GRAPHITE, &node, T, one,
            "site.pve.node.my_node_1_.f 0.1 1700000060\n", 1, 1);
  check_row(EXPORT_GRAPHITE, &vm100, T, six_unknown, "", 0, 0);
  struct export_source bad = vm100;
  bad.prefix = "a..b";
  check_refused(EXPORT_GRAPHITE, &bad, T, -EINVAL);
  bad.prefix = "a b";
  check_refused(EXPORT_GRAPHITE, &bad, T, -EINVAL);
}

static void test_influx(void **state) {
  (void)state;
  check_row(EXPORT_INFLUX, &vm100, T, six_values,
            "pve_vm,vmid=100 a=4,c=9007199254740994,d=1e+15,e=-0.5,f=1e-300 "
            "1700000060000000000\n",
            1, 5);
  check_row(EXPORT_INFLUX, &vm100, T, six_unknown, "", 0, 0);
  struct export_source node = odd_node("a,b c=d\\e", "odd/n");
  double v[4] = {1, 2, NAN, 3};
  check_row(EXPORT_INFLUX, &node, -1, v,
            "pve_node,node=a\\,b\\ c\\=d\\e x\\ y=1,k\\=v=2,q\"=3 "
            "-1000000000\n",
            1, 3);
  /* Measurement: commas and spaces escaped, '=' is fine there. */
  node.prefix = "p,q r=s";
  check_row(EXPORT_INFLUX, &node, 0, v,
            "p\\,q\\ r=s_node,node=a\\,b\\ c\\=d\\e x\\ y=1,k\\=v=2,q\"=3 0\n",
            1, 3);
}

static void test_influx_refused(void **state) {
  (void)state;
  struct export_source s = vm100;
  s.name = "10\n0";
  check_refused(EXPORT_INFLUX, &s, T, -EINVAL); /* newline in a tag value */
  s.name = "";
  check_refused(EXPORT_INFLUX, &s, T, -EINVAL);
  s.name = "a\\";
  check_refused(EXPORT_INFLUX, &s, T, -EINVAL); /* would escape the space */
  s = vm100;
  s.prefix = "#pve";
  check_refused(EXPORT_INFLUX, &s, T, -EINVAL); /* a comment line */
  /* 9223372037 s is beyond int64 nanoseconds; 9223372036 is not. */
  check_refused(EXPORT_INFLUX, &vm100, (time_t)9223372037LL, -ERANGE);
  double one[6] = {1, NAN, NAN, NAN, NAN, NAN};
  check_row(EXPORT_INFLUX, &vm100, (time_t)9223372036LL, one,
            "pve_vm,vmid=100 a=1 9223372036000000000\n", 1, 1);
}

static void test_csv(void **state) {
  (void)state;
  struct capture c;
  capture_open(&c);
  assert_int_equal(export_format_header(EXPORT_CSV, &vm100, c.out), 0);
  capture_check(&c, "file,time,a,b,c,d,e,f\n");
  check_row(EXPORT_CSV, &vm100, T, six_values,
            "six/100,1700000060,4,,9007199254740994,1e+15,-0.5,1e-300\n", 1, 5);
  check_row(EXPORT_CSV, &vm100, T, six_unknown, "", 0, 0);
  struct export_source s = odd_node("n", "odd/a,\"b\"");
  capture_open(&c);
  assert_int_equal(export_format_header(EXPORT_CSV, &s, c.out), 0);
  capture_check(&c, "file,time,x y,k=v,\"c,d\",\"q\"\"\"\n");
  double v[4] = {NAN, NAN, NAN, 7};
  check_row(EXPORT_CSV, &s, T, v, "\"odd/a,\"\"b\"\"\",1700000060,,,,7\n", 1,
            1);
  /* The other formats have no header. */
  capture_open(&c);
  assert_int_equal(export_format_header(EXPORT_JSON, &vm100, c.out), 0);
  assert_int_equal(export_format_header(EXPORT_GRAPHITE, &vm100, c.out), 0);
  assert_int_equal(export_format_header(EXPORT_INFLUX, &vm100, c.out), 0);
  capture_check(&c, "");
}

static void test_json(void **state) {
  (void)state;
  check_row(EXPORT_JSON, &vm100, T, six_values,
            "{\"file\":\"six/100\",\"vmid\":100,\"time\":1700000060,\"a\":4,"
            "\"c\":9007199254740994,\"d\":1e+15,\"e\":-0.5,\"f\":1e-300}\n",
            1, 5);
  check_row(EXPORT_JSON, &vm100, T, six_unknown, "", 0, 0);
  struct export_source node = odd_node("n\"1", "odd/n\"1");
  double v[4] = {0, NAN, NAN, NAN};
  check_row(EXPORT_JSON, &node, T, v,
            "{\"file\":\"odd/n\\\"1\",\"node\":\"n\\\"1\",\"time\":1700000060,"
            "\"x y\":0}\n",
            1, 1);
  struct export_source s = vm100;
  s.name = "0100"; /* not a VMID */
  check_refused(EXPORT_JSON, &s, T, -EINVAL);
}

static void test_cluster(void **state) {
  (void)state;
  double one[6] = {1, NAN, NAN, NAN, NAN, NAN};
  struct export_source s = vm100;
  s.cluster = "prod.eu";
  check_row(EXPORT_GRAPHITE, &s, T, one, "pve.prod_eu.vm.100.a 1 1700000060\n",
            1, 1);
  check_row(EXPORT_INFLUX, &s, T, one,
            "pve_vm,vmid=100,cluster=prod.eu a=1 1700000060000000000\n", 1, 1);
  s.cluster = "a b,c";
  check_row(EXPORT_INFLUX, &s, T, one,
            "pve_vm,vmid=100,cluster=a\\ b\\,c a=1 1700000060000000000\n", 1,
            1);
  check_row(EXPORT_CSV, &s, T, one, "\"a b,c\",six/100,1700000060,1,,,,,\n", 1,
            1);
  check_row(EXPORT_JSON, &s, T, one,
            "{\"file\":\"six/100\",\"cluster\":\"a b,c\",\"vmid\":100,"
            "\"time\":1700000060,\"a\":1}\n",
            1, 1);
  struct capture c;
  capture_open(&c);
  assert_int_equal(export_format_header(EXPORT_CSV, &s, c.out), 0);
  capture_check(&c, "cluster,file,time,a,b,c,d,e,f\n");
  /* The data directory's own file beside named clusters: CSV and JSON say
   * "", the points carry no cluster. */
  s.cluster = "";
  check_row(EXPORT_CSV, &s, T, one, ",six/100,1700000060,1,,,,,\n", 1, 1);
  check_row(EXPORT_JSON, &s, T, one,
            "{\"file\":\"six/100\",\"cluster\":\"\",\"vmid\":100,"
            "\"time\":1700000060,\"a\":1}\n",
            1, 1);
  check_row(EXPORT_GRAPHITE, &s, T, one, "pve.vm.100.a 1 1700000060\n", 1, 1);
  check_row(EXPORT_INFLUX, &s, T, one,
            "pve_vm,vmid=100 a=1 1700000060000000000\n", 1, 1);
  s.cluster = "x\\";
  check_refused(EXPORT_INFLUX, &s, T, -EINVAL);
}

/* The real layout: names in file order, a node without pressurecpufull. */
static void test_pve_layout(void **state) {
  (void)state;
  double v[19];
  for (size_t i = 0; i < 19; i++)
    v[i] = NAN;
  v[16] = 0.25;         /* pve-node-9.0 column 16: pressureiofull... */
  v[10] = 123456789012; /* ...and netin */
  struct export_source s = odd_node("pve1", "pve-node-9.0/pve1");
  s.layout = &layout_pve_node_9_0;
  check_row(EXPORT_GRAPHITE, &s, T, v,
            "pve.node.pve1.netin 123456789012 1700000060\n"
            "pve.node.pve1.pressureiofull 0.25 1700000060\n",
            2, 2);
}

static void test_parse(void **state) {
  (void)state;
  enum export_format f = EXPORT_CSV;
  assert_int_equal(export_format_parse("graphite", &f), 0);
  assert_int_equal(f, EXPORT_GRAPHITE);
  assert_int_equal(export_format_parse("influx", &f), 0);
  assert_int_equal(f, EXPORT_INFLUX);
  assert_int_equal(export_format_parse("json", &f), 0);
  assert_int_equal(f, EXPORT_JSON);
  assert_int_equal(export_format_parse("csv", &f), 0);
  assert_int_equal(f, EXPORT_CSV);
  assert_int_equal(export_format_parse("CSV", &f), -EINVAL);
  assert_int_equal(export_format_parse("", &f), -EINVAL);
  assert_int_equal(export_format_parse(NULL, &f), -EINVAL);
  assert_int_equal(f, EXPORT_CSV);

  assert_null(export_prefix_problem("pve"));
  assert_null(export_prefix_problem("site-1.pve_x"));
  assert_non_null(export_prefix_problem(""));
  assert_non_null(export_prefix_problem(".pve"));
  assert_non_null(export_prefix_problem("pve."));
  assert_non_null(export_prefix_problem("a..b"));
  assert_non_null(export_prefix_problem("a b"));
  assert_non_null(export_prefix_problem("a/b"));
  char long_prefix[66];
  memset(long_prefix, 'p', 65);
  long_prefix[65] = '\0';
  assert_non_null(export_prefix_problem(long_prefix));
  long_prefix[64] = '\0';
  assert_null(export_prefix_problem(long_prefix));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graphite),       cmocka_unit_test(test_influx),
      cmocka_unit_test(test_influx_refused), cmocka_unit_test(test_csv),
      cmocka_unit_test(test_json),           cmocka_unit_test(test_pve_layout),
      cmocka_unit_test(test_parse),          cmocka_unit_test(test_cluster),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/pve_status_cfg.c: Proxmox's own example entries as
 * exact structs, every key and default, skipped section types, comments,
 * CRLF, each kind of malformed entry with its problem text, IDs used
 * twice, file-level problems, NUL bytes, the entry limit and every prefix
 * of a file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "pvecg/pve_status_cfg.h"

static void parse_len(const char *text, size_t len, struct pve_status_cfg *c) {
  char *buf = exact_copy(text, len);
  assert_int_equal(pve_status_cfg_parse(buf, len, c), 0);
  free(buf);
}

static void parse(const char *text, struct pve_status_cfg *c) {
  parse_len(text, strlen(text), c);
}

static struct pve_metric_server influxdb_defaults(const char *id) {
  struct pve_metric_server e = {.kind = PVE_METRIC_INFLUXDB,
                                .mtu = 1500,
                                .timeout = 1,
                                .proto = "udp",
                                .organization = "proxmox",
                                .bucket = "proxmox",
                                .max_body_size = 25000000,
                                .verify_certificate = true};
  snprintf(e.id, sizeof(e.id), "%s", id);
  return e;
}

static struct pve_metric_server graphite_defaults(const char *id) {
  struct pve_metric_server e = {.kind = PVE_METRIC_GRAPHITE,
                                .port = 2003,
                                .mtu = 1500,
                                .timeout = 1,
                                .proto = "udp",
                                .path = "proxmox"};
  snprintf(e.id, sizeof(e.id), "%s", id);
  return e;
}

static void assert_entry(const struct pve_metric_server *got,
                         const struct pve_metric_server *want) {
  assert_non_null(got);
  assert_int_equal(got->kind, want->kind);
  assert_string_equal(got->id, want->id);
  assert_string_equal(got->server, want->server);
  assert_int_equal(got->port, want->port);
  assert_int_equal(got->disable, want->disable);
  assert_int_equal(got->mtu, want->mtu);
  assert_int_equal(got->timeout, want->timeout);
  assert_string_equal(got->proto, want->proto);
  assert_string_equal(got->organization, want->organization);
  assert_string_equal(got->bucket, want->bucket);
  assert_string_equal(got->api_path_prefix, want->api_path_prefix);
  assert_int_equal(got->max_body_size, want->max_body_size);
  assert_int_equal(got->verify_certificate, want->verify_certificate);
  assert_string_equal(got->path, want->path);
  assert_string_equal(got->problem, want->problem);
}

/* The one entry of text, which has no file-level problem. */
static void assert_single(const char *text,
                          const struct pve_metric_server *want) {
  struct pve_status_cfg c;
  parse(text, &c);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.problem, "");
  assert_entry(&c.server[0], want);
  pve_status_cfg_free(&c);
}

/* The problem of text's only entry. */
static void assert_entry_problem(const char *text, const char *problem) {
  struct pve_status_cfg c;
  parse(text, &c);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.problem, "");
  assert_string_equal(c.server[0].problem, problem);
  pve_status_cfg_free(&c);
}

static void test_influxdb_udp(void **state) {
  (void)state;
  struct pve_metric_server want = influxdb_defaults("influx");
  strcpy(want.server, "192.168.1.10");
  want.port = 8089;
  assert_single("influxdb: influx\n\tserver 192.168.1.10\n\tport 8089\n",
                &want);
}

/* Booleans in every form PVE's schema takes (the GUI writes 0 and 1). */
static void test_booleans(void **state) {
  (void)state;
  struct pve_metric_server want = influxdb_defaults("b1");
  strcpy(want.server, "x");
  want.port = 1;
  want.disable = true;
  want.verify_certificate = false;
  assert_single("influxdb: b1\n\tserver x\n\tport 1\n\tdisable yes\n"
                "\tverify-certificate OFF\n",
                &want);
  assert_single("influxdb: b1\n\tserver x\n\tport 1\n\tdisable True\n"
                "\tverify-certificate no\n",
                &want);
  want.disable = false;
  want.verify_certificate = true;
  assert_single("influxdb: b1\n\tserver x\n\tport 1\n\tdisable false\n"
                "\tverify-certificate on\n",
                &want);
}

static void test_influxdb_http_v2(void **state) {
  (void)state;
  struct pve_metric_server want = influxdb_defaults("influx2");
  strcpy(want.server, "influx.example.com");
  want.port = 8086;
  strcpy(want.proto, "https");
  strcpy(want.organization, "my org");
  strcpy(want.bucket, "pve-metrics");
  strcpy(want.api_path_prefix, "/influx/v2");
  want.max_body_size = 10000000;
  want.verify_certificate = false;
  want.timeout = 5;
  want.mtu = 9000;
  want.disable = true;
  assert_single("influxdb: influx2\n"
                "\tserver influx.example.com\n"
                "\tport 8086\n"
                "\tinfluxdbproto https\n"
                "\torganization my org\n"
                "\tbucket pve-metrics\n"
                "\tapi-path-prefix /influx/v2\n"
                "\tmax-body-size 10000000\n"
                "\tverify-certificate 0\n"
                "\ttimeout 5\n"
                "\tmtu 9000\n"
                "\tdisable 1\n",
                &want);
}

static void test_graphite(void **state) {
  (void)state;
  struct pve_metric_server want = graphite_defaults("graph");
  strcpy(want.server, "fd00::5");
  want.port = 2004;
  strcpy(want.path, "pve.cluster-1.node_a");
  strcpy(want.proto, "tcp");
  want.disable = true;
  want.timeout = 0;
  want.mtu = 512;
  assert_single("graphite: graph\n"
                "    server fd00::5\n"
                "    port 2004\n"
                "    path pve.cluster-1.node_a\n"
                "    proto tcp\n"
                "    disable 1\n"
                "    timeout 0\n"
                "    mtu 512\n",
                &want);
}

static void test_defaults(void **state) {
  (void)state;
  struct pve_metric_server want = graphite_defaults("g1");
  strcpy(want.server, "graphite");
  assert_single("graphite: g1\n\tserver graphite\n", &want);
  /* explicit values equal to the defaults, and the other booleans */
  want = influxdb_defaults("i1");
  strcpy(want.server, "10.0.0.1");
  want.port = 65535;
  want.mtu = 65536;
  assert_single("influxdb: i1\n\tserver 10.0.0.1\n\tport 65535\n"
                "\tmtu 65536\n\tdisable 0\n\tverify-certificate 1\n"
                "\tinfluxdbproto udp\n\ttimeout 1\n",
                &want);
  want = influxdb_defaults("i2");
  strcpy(want.server, "h");
  want.port = 1;
  strcpy(want.proto, "http");
  want.max_body_size = UINT64_MAX;
  assert_single("influxdb: i2\n\tserver h\n\tport 1\n\tinfluxdbproto http\n"
                "\tmax-body-size 18446744073709551615\n",
                &want);
}

/* PVE's header regex: no space needed after ':', trailing blanks, the
 * type in any case, and the old ID-less form. */
static void test_header_forms(void **state) {
  (void)state;
  struct pve_status_cfg c;
  parse("influxdb:nospace\n\tserver a\n\tport 1\n\n"
        "InfluxDB: upper  \t\n\tserver a\n\tport 1\n\n"
        "graphite:\n\tserver a\n\n"
        "graphite:   spaced\n\tserver a\n",
        &c);
  assert_int_equal(c.count, 4);
  assert_string_equal(c.problem, "");
  const char *ids[] = {"nospace", "upper", "graphite", "spaced"};
  for (size_t i = 0; i < 4; i++) {
    assert_string_equal(c.server[i].id, ids[i]);
    assert_string_equal(c.server[i].problem, "");
  }
  assert_int_equal(c.server[1].kind, PVE_METRIC_INFLUXDB);
  assert_int_equal(c.server[2].kind, PVE_METRIC_GRAPHITE);
  pve_status_cfg_free(&c);
}

static const char full_file[] =
    "# metric servers\n"
    "influxdb: influx\n"
    "\tserver 192.168.1.10\n"
    "\t# an indented comment does not end the section\n"
    "\tport 8089\n"
    "\n"
    "opentelemetry: otel\n"
    "\tserver otel.example.com\n"
    "\tport 4318\n"
    "\tprotocol http\n"
    "\tgarbage line\n"
    "\n"
    "#graphite: commented\n"
    "graphite: graph\n"
    "\tserver graphite.example.com\n"
    "\tpath pve\n"
    "\n"
    "\n"
    "influxdb: last\n"
    "\tserver ::1\n"
    "\tport 8086";

/* Comments, a skipped section and a last line without newline. */
static void test_full_file(void **state) {
  (void)state;
  struct pve_status_cfg c;
  parse(full_file, &c);
  assert_string_equal(c.problem, "");
  assert_int_equal(c.count, 3);
  struct pve_metric_server want = influxdb_defaults("influx");
  strcpy(want.server, "192.168.1.10");
  want.port = 8089;
  assert_entry(pve_status_cfg_find(&c, "influx"), &want);
  want = graphite_defaults("graph");
  strcpy(want.server, "graphite.example.com");
  strcpy(want.path, "pve");
  assert_entry(&c.server[1], &want);
  want = influxdb_defaults("last");
  strcpy(want.server, "::1");
  want.port = 8086;
  assert_entry(&c.server[2], &want);
  assert_null(pve_status_cfg_find(&c, "otel"));
  assert_null(pve_status_cfg_find(&c, "commented"));
  assert_null(pve_status_cfg_find(&c, "Influx"));
  assert_null(pve_status_cfg_find(NULL, "influx"));
  pve_status_cfg_free(&c);
  assert_null(c.server);
  assert_int_equal(c.count, 0);
  pve_status_cfg_free(NULL);
}

static void test_crlf(void **state) {
  (void)state;
  struct pve_metric_server want = influxdb_defaults("win");
  strcpy(want.server, "influx");
  want.port = 8089;
  strcpy(want.organization, "org");
  assert_single("\r\ninfluxdb: win\r\n\tserver influx\r\n\tport 8089 \r\n"
                "\torganization org\r\n\r\n",
                &want);
}

static void test_empty(void **state) {
  (void)state;
  const char *texts[] = {"", "\n", "\n\n  \n", "# only a comment", "\r\n"};
  for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
    struct pve_status_cfg c;
    parse(texts[i], &c);
    assert_int_equal(c.count, 0);
    assert_string_equal(c.problem, "");
    assert_null(pve_status_cfg_find(&c, "x1"));
    pve_status_cfg_free(&c);
  }
}

static const struct {
  const char *text, *problem;
} malformed[] = {
    /* numbers */
    {"influxdb: a1\n\tserver x\n\tport 70000\n",
     "line 3: port 70000 is not 1 to 65535"},
    {"influxdb: a1\n\tserver x\n\tport 0\n",
     "line 3: port 0 is not 1 to 65535"},
    {"influxdb: a1\n\tserver x\n\tport abc\n", "line 3: port is not a number"},
    {"influxdb: a1\n\tserver x\n\tport +80\n", "line 3: port is not a number"},
    {"influxdb: a1\n\tserver x\n\tport 80 81\n",
     "line 3: port is not a number"},
    {"influxdb: a1\n\tserver x\n\tport 0x50\n", "line 3: port is not a number"},
    {"influxdb: a1\n\tserver x\n\tport 18446744073709551616\n",
     "line 3: port is too large"},
    {"graphite: a1\n\tserver x\n\tmtu 511\n",
     "line 3: mtu 511 is not 512 to 65536"},
    {"graphite: a1\n\tserver x\n\tmtu 65537\n",
     "line 3: mtu 65537 is not 512 to 65536"},
    {"graphite: a1\n\tserver x\n\ttimeout -1\n",
     "line 3: timeout is not a number"},
    {"graphite: a1\n\tserver x\n\ttimeout 4294967296\n",
     "line 3: timeout 4294967296 is not 0 to 4294967295"},
    {"influxdb: a1\n\tserver x\n\tport 1\n\tmax-body-size 0\n",
     "line 4: max-body-size 0 is not 1 or more"},
    /* booleans and choices */
    {"graphite: a1\n\tserver x\n\tdisable 2\n",
     "line 3: disable is not 0 or 1 (nor no, yes, off, on)"},
    {"influxdb: a1\n\tserver x\n\tport 1\n\tverify-certificate maybe\n",
     "line 4: verify-certificate is not 0 or 1 (nor no, yes, off, on)"},
    {"influxdb: a1\n\tserver x\n\tport 1\n\tinfluxdbproto tcp\n",
     "line 4: influxdbproto is not udp, http or https"},
    {"influxdb: a1\n\tserver x\n\tport 1\n\tinfluxdbproto UDP\n",
     "line 4: influxdbproto is not udp, http or https"},
    {"graphite: a1\n\tserver x\n\tproto https\n",
     "line 3: proto is not udp or tcp"},
    /* keys */
    {"graphite: a1\n\tserver x\n\tfoo bar\n", "line 3: unknown key 'foo'"},
    {"graphite: a1\n\tserver x\n\tSERVER y\n", "line 3: unknown key 'SERVER'"},
    {"graphite: a1\n\tserver x\n\tf\x01o bar\n", "line 3: unknown key"},
    {"graphite: a1\n\tserver x\n\tbucket b\n",
     "line 3: bucket is not a key of graphite sections"},
    {"influxdb: a1\n\tserver x\n\tport 1\n\tpath a\n",
     "line 4: path is not a key of influxdb sections"},
    {"influxdb: a1\n\tserver x\n\tport 1\n\tproto udp\n",
     "line 4: proto is not a key of influxdb sections"},
    {"influxdb: a1\n\tserver x\n\tport 1\n\tport 1\n",
     "line 4: port given twice"},
    {"graphite: a1\n\tserver x\n\tdisable\n", "line 3: disable has no value"},
    {"graphite: a1\n\tserver x\n\tpath \t \n", "line 3: path has no value"},
    {"graphite: a1\n\tport 2003\n", "line 1: server is missing"},
    {"influxdb: a1\n\tserver x\n", "line 1: port is missing"},
    {"influxdb: a1\n", "line 1: server is missing"},
    /* texts */
    {"influxdb: a1\n\tserver x\n\tport 1\n\tbucket a\x01"
     "b\n",
     "line 4: bucket has a control character"},
    {"influxdb: a1\n\tserver x\n\tport 1\n\torganization a\tb\n",
     "line 4: organization has a control character"},
    {"influxdb: a1\n\tserver bad_host\n\tport 1\n",
     "line 2: server is not a host name or IP address"},
    {"influxdb: a1\n\tserver -x.example\n\tport 1\n",
     "line 2: server is not a host name or IP address"},
    {"influxdb: a1\n\tserver a..b\n\tport 1\n",
     "line 2: server is not a host name or IP address"},
    {"influxdb: a1\n\tserver a.b.\n\tport 1\n",
     "line 2: server is not a host name or IP address"},
    {"influxdb: a1\n\tserver [::1]\n\tport 1\n",
     "line 2: server is not a host name or IP address"},
    {"influxdb: a1\n\tserver fd00:::1\n\tport 1\n",
     "line 2: server is not a host name or IP address"},
    {"influxdb: a1\n\tserver two words\n\tport 1\n",
     "line 2: server is not a host name or IP address"},
    {"graphite: a1\n\tserver x\n\tpath a..b\n",
     "line 3: path is not words of A-Z, a-z, 0-9, '_', '-' joined by single "
     "dots"},
    {"graphite: a1\n\tserver x\n\tpath .a\n",
     "line 3: path is not words of A-Z, a-z, 0-9, '_', '-' joined by single "
     "dots"},
    {"graphite: a1\n\tserver x\n\tpath a/b\n",
     "line 3: path is not words of A-Z, a-z, 0-9, '_', '-' joined by single "
     "dots"},
    /* IDs */
    {"influxdb: 1abc\n\tserver x\n\tport 1\n",
     "line 1: ID is not a letter followed by letters, digits, '-' or '_'"},
    {"influxdb: a\n\tserver x\n\tport 1\n",
     "line 1: ID is not a letter followed by letters, digits, '-' or '_'"},
    {"influxdb: a.b\n\tserver x\n\tport 1\n",
     "line 1: ID is not a letter followed by letters, digits, '-' or '_'"},
    /* stray lines and the first problem kept */
    {"influxdb: a1\n\tserver x\ngarbage\n\tport 1\n",
     "line 3: not a section header"},
    {"influxdb: a1\n\tserver x\ninfluxdb: a b\n\tport 1\n",
     "line 3: not a section header"},
    {"influxdb: a1\n\tserver x\n:\n\tport 1\n", "line 3: not a section header"},
    {"graphite: a1\n\tserver x\n\tport 0\n\tmtu 1\n\tfoo 1\n",
     "line 3: port 0 is not 1 to 65535"},
    {"influxdb: a1\n\tport 0\n", "line 2: port 0 is not 1 to 65535"},
};

static void test_malformed_entries(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof(malformed) / sizeof(*malformed); i++) {
    print_message("%zu: %s\n", i, malformed[i].problem);
    assert_entry_problem(malformed[i].text, malformed[i].problem);
  }
}

/* The longest texts fit; one byte more is a problem, not a truncation. */
static void test_lengths(void **state) {
  (void)state;
  char text[1024], value[300];
  struct pve_status_cfg c;

  memset(value, 'o', 255);
  value[255] = '\0';
  snprintf(text, sizeof(text),
           "influxdb: a1\n\tserver x\n\tport 1\n\torganization %s\n", value);
  parse(text, &c);
  assert_string_equal(c.server[0].problem, "");
  assert_string_equal(c.server[0].organization, value);
  pve_status_cfg_free(&c);
  snprintf(text, sizeof(text),
           "influxdb: a1\n\tserver x\n\tport 1\n\torganization %so\n", value);
  assert_entry_problem(text, "line 4: organization is too long");
  snprintf(text, sizeof(text), "graphite: a1\n\tserver x\n\tpath %so\n", value);
  assert_entry_problem(text, "line 3: path is too long");

  memset(value, 'i', 64);
  value[64] = '\0';
  snprintf(text, sizeof(text), "graphite: %s\n\tserver x\n", value);
  parse(text, &c);
  assert_string_equal(c.server[0].id, value);
  assert_string_equal(c.server[0].problem, "");
  pve_status_cfg_free(&c);
  snprintf(text, sizeof(text), "graphite: %si\n\tserver x\n", value);
  parse(text, &c);
  assert_string_equal(c.server[0].id, "");
  assert_string_equal(c.server[0].problem, "line 1: ID is too long");
  pve_status_cfg_free(&c);
}

/* The second use of an ID, of any type, is the malformed one. */
static void test_id_twice(void **state) {
  (void)state;
  struct pve_status_cfg c;
  parse("influxdb: dup\n\tserver a\n\tport 1\n\n"
        "graphite: dup\n\tserver b\n\n"
        "influxdb: dup\n\tserver c\n\tport 2\n",
        &c);
  assert_int_equal(c.count, 3);
  assert_string_equal(c.server[0].problem, "");
  assert_string_equal(c.server[1].problem, "line 5: ID used twice");
  assert_string_equal(c.server[2].problem, "line 8: ID used twice");
  const struct pve_metric_server *e = pve_status_cfg_find(&c, "dup");
  assert_ptr_equal(e, &c.server[0]);
  assert_string_equal(e->server, "a");
  pve_status_cfg_free(&c);
}

/* A bad entry does not spoil its neighbours, and a stray line outside
 * any section is the file's problem (the first one kept). */
static void test_file_problems(void **state) {
  (void)state;
  struct pve_status_cfg c;
  parse("garbage\n"
        "influxdb: good\n\tserver a\n\tport 1\n\n"
        "\tserver outside\n"
        "influxdb: bad\n\tserver a\n\tport 99999\n\n"
        "graphite: fine\n\tserver b\n",
        &c);
  assert_string_equal(c.problem, "line 1: not a section header");
  assert_int_equal(c.count, 3);
  assert_string_equal(pve_status_cfg_find(&c, "good")->problem, "");
  assert_string_equal(pve_status_cfg_find(&c, "bad")->problem,
                      "line 9: port 99999 is not 1 to 65535");
  assert_string_equal(pve_status_cfg_find(&c, "fine")->problem, "");
  pve_status_cfg_free(&c);

  /* a line of blanks ends the section: what follows is outside it */
  parse("influxdb: a1\n\tserver x\n \t\r\n\tport 1\n", &c);
  assert_string_equal(c.problem, "line 4: property outside a section");
  assert_string_equal(c.server[0].problem, "line 1: port is missing");
  pve_status_cfg_free(&c);

  /* lines inside a skipped section are not looked at */
  static const char skipped[] = "opentelemetry: o1\n\tanything goes\n"
                                "garbage\n\0\n";
  parse_len(skipped, sizeof(skipped) - 1, &c);
  assert_int_equal(c.count, 0);
  assert_string_equal(c.problem, "");
  pve_status_cfg_free(&c);
}

static void test_nul(void **state) {
  (void)state;
  static const char in_entry[] = "influxdb: a1\n\tserver x\n\tport 1\0\n";
  static const char outside[] = "\n\0\ngraphite: g1\n\tserver x\n";
  static const char in_header[] = "graphite: g1\0\n\tserver x\n";
  struct pve_status_cfg c;

  parse_len(in_entry, sizeof(in_entry) - 1, &c);
  assert_int_equal(c.count, 1);
  assert_string_equal(c.server[0].problem, "line 3: NUL byte");
  assert_string_equal(c.problem, "");
  pve_status_cfg_free(&c);

  parse_len(outside, sizeof(outside) - 1, &c);
  assert_string_equal(c.problem, "line 2: NUL byte");
  assert_int_equal(c.count, 1);
  assert_string_equal(c.server[0].problem, "");
  pve_status_cfg_free(&c);

  parse_len(in_header, sizeof(in_header) - 1, &c);
  assert_string_equal(c.problem, "line 1: NUL byte");
  assert_int_equal(c.count, 0);
  pve_status_cfg_free(&c);
}

/* 1000 entries are read; the 1001st header stops the parse. */
static void test_entry_limit(void **state) {
  (void)state;
  size_t size = 1002 * 40;
  char *text = malloc(size);
  size_t len = 0;
  assert_non_null(text);
  for (int i = 0; i < 1002; i++)
    len += (size_t)snprintf(text + len, size - len,
                            "graphite: g%d\n\tserver x\n\n", i);
  struct pve_status_cfg c;
  parse_len(text, len, &c);
  free(text);
  assert_int_equal(c.count, 1000);
  assert_string_equal(c.problem, "line 3001: more than 1000 entries");
  assert_string_equal(c.server[999].id, "g999");
  assert_string_equal(c.server[999].problem, "");
  pve_status_cfg_free(&c);
}

/* Every cut of a file parses, with entries never more than the whole; a
 * cut inside a header ("influxd") is the only stray line. */
static void test_every_prefix(void **state) {
  (void)state;
  size_t len = strlen(full_file);
  for (size_t n = 0; n <= len; n++) {
    struct pve_status_cfg c;
    parse_len(full_file, n, &c);
    assert_true(c.count <= 3);
    static const char stray_line[] = ": not a section header";
    const char *stray = strstr(c.problem, stray_line);
    assert_true(c.problem[0] == '\0' ||
                (stray && stray[sizeof(stray_line) - 1] == '\0'));
    if (n == len)
      assert_string_equal(c.problem, "");
    pve_status_cfg_free(&c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_influxdb_udp),
      cmocka_unit_test(test_booleans),
      cmocka_unit_test(test_influxdb_http_v2),
      cmocka_unit_test(test_graphite),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_header_forms),
      cmocka_unit_test(test_full_file),
      cmocka_unit_test(test_crlf),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_malformed_entries),
      cmocka_unit_test(test_lengths),
      cmocka_unit_test(test_id_twice),
      cmocka_unit_test(test_file_problems),
      cmocka_unit_test(test_nul),
      cmocka_unit_test(test_entry_limit),
      cmocka_unit_test(test_every_prefix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

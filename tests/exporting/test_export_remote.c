/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/exporting/export_remote.c: a file's gathered rows as
 * Prometheus remote write requests, each uncompressed with libsnappy and
 * read back by this test's own protobuf reader into one line per series
 * ("labels samples"), compared as exact text.  Covered: the names and
 * values of the OpenMetrics export (a counter as X_total beside its
 * deprecated gauge, pressure as a ratio, an unknown value left out, times
 * in ms), labels sorted by name with the cluster's before id,
 * pve_guest_info first with its empty tags left out, requests cut at
 * the size given with a series going on in the next one in time order and
 * the samples counted per request, a file's rows as a unit of the request
 * encoded alone (its own series only), and a failed post stopping the
 * file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "export_remote.h"

#include <errno.h>
#include <math.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U NAN
#define T 1700000060

/* What the posts gave: the series read back, and samples per request. */
struct posted {
  char text[8192];
  size_t len, requests, samples[64];
  int fail; /* the error the next post returns */
};

struct reader {
  const unsigned char *p, *end;
};

static uint64_t varint(struct reader *r) {
  uint64_t v = 0;
  for (int shift = 0; r->p < r->end; shift += 7) {
    unsigned char b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      return v;
  }
  fail_msg("a varint runs past its message");
  return 0;
}

static struct reader field(struct reader *r, unsigned char tag) {
  assert_true(r->p < r->end);
  assert_int_equal(*r->p++, tag);
  uint64_t len = varint(r);
  assert_true(len <= (uint64_t)(r->end - r->p));
  struct reader f = {r->p, r->p + len};
  r->p += len;
  return f;
}

__attribute__((format(printf, 2, 3))) static void out(struct posted *o,
                                                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  o->len +=
      (size_t)vsnprintf(o->text + o->len, sizeof(o->text) - o->len, fmt, ap);
  va_end(ap);
  assert_true(o->len < sizeof(o->text));
}

static void read_label(struct posted *o, struct reader l, bool first) {
  struct reader name = field(&l, 0x0a), value = field(&l, 0x12);
  out(o, "%s%.*s=%.*s", first ? "" : ",", (int)(name.end - name.p), name.p,
      (int)(value.end - value.p), value.p);
}

static void read_sample(struct posted *o, struct reader s) {
  assert_int_equal(*s.p++, 0x09);
  uint64_t bits = 0;
  for (int i = 0; i < 8; i++)
    bits |= (uint64_t)*s.p++ << (8 * i);
  double v;
  memcpy(&v, &bits, sizeof(v));
  assert_int_equal(*s.p++, 0x10);
  out(o, " %.17g@%lld", v, (long long)varint(&s));
  assert_true(s.p == s.end);
}

/* One line per series: "name=value,... value@ms ...". */
static void read_request(struct posted *o, struct reader r) {
  while (r.p < r.end) {
    struct reader ts = field(&r, 0x0a);
    bool first = true;
    while (ts.p < ts.end && *ts.p == 0x0a) {
      read_label(o, field(&ts, 0x0a), first);
      first = false;
    }
    while (ts.p < ts.end)
      read_sample(o, field(&ts, 0x12));
    out(o, "\n");
  }
}

static void read_body(struct posted *o, const char *body, size_t len) {
  size_t n;
  assert_int_equal(snappy_uncompressed_length(body, len, &n), SNAPPY_OK);
  unsigned char *raw = malloc(n + 1);
  assert_non_null(raw);
  assert_int_equal(snappy_uncompress(body, len, (char *)raw, &n), SNAPPY_OK);
  read_request(o, (struct reader){raw, raw + n});
  free(raw);
}

static int post(void *ctx, struct http_message *m, const char *label, char *err,
                size_t err_size) {
  struct posted *o = ctx;
  if (o->fail != 0) {
    m->free(m->data);
    snprintf(err, err_size, "%s: refused", label);
    return o->fail;
  }
  char *body;
  size_t len, samples;
  assert_int_equal(m->encode(m->data, 0, m->units, &body, &len, &samples), 0);
  o->samples[o->requests++] = samples;
  read_body(o, body, len);
  free(body);
  m->free(m->data);
  return 0;
}

/* Each unit of a request encoded alone (as the sender asks for a part),
 * read after a line "unit N". */
static int post_units(void *ctx, struct http_message *m, const char *label,
                      char *err, size_t err_size) {
  (void)label, (void)err, (void)err_size;
  struct posted *o = ctx;
  for (size_t u = 0; u < m->units; u++) {
    char *body;
    size_t len, samples;
    assert_int_equal(m->encode(m->data, u, u + 1, &body, &len, &samples), 0);
    out(o, "unit %zu\n", u);
    o->samples[o->requests++] = samples;
    read_body(o, body, len);
    free(body);
  }
  m->free(m->data);
  return 0;
}

/* pve-vm-9.0: maxcpu(0) cpu(1) mem(3) netin(6) pressurecpusome(11). */
static void add_vm_rows(struct export_series *s) {
  double row[17];
  for (size_t i = 0; i < 17; i++)
    row[i] = U;
  row[0] = 2;
  row[1] = 0.5;
  row[3] = 1073741824;
  row[6] = 0;
  row[11] = 2.5;
  assert_int_equal(export_series_add(s, T, row, 17), 0);
  row[1] = 0.25;
  row[3] = U;
  row[6] = 1536;
  row[11] = 12.5;
  assert_int_equal(export_series_add(s, T + 60, row, 17), 0);
}

static const struct export_source vm = {.kind = EXPORT_VM,
                                        .name = "100",
                                        .file = "x",
                                        .prefix = "pve",
                                        .layout = &layout_pve_vm_9_0,
                                        .names = EXPORT_NAMES_PVE,
                                        .object = "qemu",
                                        .nodename = "pve1",
                                        .title = ""};

#define ID "id=qemu/100"
#define MS0 "1700000060000"
#define MS1 "1700000120000"
/* The VM's series, its labels after __name__ W. */
#define VM_SERIES(W)                                                           \
  "__name__=pve_cpu_usage_limit," W " 2@" MS0 " 2@" MS1 "\n"                   \
  "__name__=pve_cpu_usage_ratio," W " 0.5@" MS0 " 0.25@" MS1 "\n"              \
  "__name__=pve_memory_usage_bytes," W " 1073741824@" MS0 "\n"                 \
  "__name__=pve_network_receive_bytes_total," W " 0@" MS0 " 1536@" MS1 "\n"    \
  "__name__=pve_network_receive_bytes," W " 0@" MS0 " 1536@" MS1 "\n"          \
  "__name__=pve_pressure_cpu_some_ratio," W " 0.025000000000000001@" MS0       \
  " 0.125@" MS1 "\n"
static const char vm_series[] = VM_SERIES(ID);

static void run(const struct export_source *src,
                const struct export_guest_info *info, size_t max,
                struct posted *o, size_t want_samples) {
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  add_vm_rows(&s);
  struct export_remote *rw = export_remote_new(post, o, max);
  assert_non_null(rw);
  char err[256];
  size_t n = 0;
  assert_int_equal(export_remote_file(rw, &s, src, info, &n, err, sizeof(err)),
                   0);
  assert_int_equal(n, want_samples);
  assert_int_equal(export_remote_flush(rw, err, sizeof(err)), 0);
  export_remote_free(rw);
  export_series_free(&s);
}

static void test_one_request(void **state) {
  (void)state;
  struct posted o = {0};
  run(&vm, NULL, 1 << 20, &o, 11);
  assert_string_equal(o.text, vm_series);
  assert_int_equal(o.requests, 1);
  assert_int_equal(o.samples[0], 11);
}

/* The guest's info first, its labels sorted, empty tags left out; the
 * cluster's label before id. */
static void test_info_and_cluster(void **state) {
  (void)state;
  struct export_source src = vm;
  src.cluster = "prod";
  struct export_guest_info info = {"pve1", "web", "", false};
  struct posted o = {0};
  run(&src, &info, 1 << 20, &o, 13);
  assert_string_equal(o.text, "__name__=pve_guest_info,cluster=prod," ID
                              ",name=web,node=pve1,template=0,type=qemu 1@" MS0
                              " 1@" MS1 "\n" VM_SERIES("cluster=prod," ID));
}

/* Joins the lines of a series cut between requests (the same labels one
 * after the other). */
static void join_cut(const char *text, char *out, size_t size) {
  char last[256] = "";
  out[0] = '\0';
  for (const char *line = text; *line != '\0';) {
    const char *nl = strchr(line, '\n'), *sp = strchr(line, ' ');
    size_t labels = (size_t)(sp - line), len = strlen(out);
    const char *from = line;
    if (strlen(last) == labels && strncmp(line, last, labels) == 0) {
      out[--len] = '\0'; /* the piece before goes on */
      from = sp;
    }
    snprintf(out + len, size - len, "%.*s\n", (int)(nl - from), from);
    snprintf(last, sizeof(last), "%.*s", (int)labels, line);
    line = nl + 1;
  }
}

/* Requests of at most ~160 bytes: the series go on in the next request,
 * in time order; every sample is sent once. */
static void test_cut(void **state) {
  (void)state;
  struct posted o = {0};
  run(&vm, NULL, 160, &o, 11);
  assert_true(o.requests > 2);
  size_t sum = 0;
  for (size_t i = 0; i < o.requests; i++)
    sum += o.samples[i];
  assert_int_equal(sum, 11);
  /* Joined back, a series' pieces are its samples in order. */
  struct posted whole = {0};
  run(&vm, NULL, 1 << 20, &whole, 11);
  char joined[8192];
  join_cut(o.text, joined, sizeof(joined));
  assert_string_equal(joined, whole.text);
}

/* Two files in one request: a unit each, numbered from 0, each encoded
 * alone holds its own series and samples only. */
static void test_units(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  add_vm_rows(&s);
  struct export_source other = vm;
  other.name = "101";
  struct posted o = {0};
  struct export_remote *rw = export_remote_new(post_units, &o, 1 << 20);
  assert_non_null(rw);
  char err[256];
  size_t n;
  assert_int_equal(export_remote_unit(rw), 0);
  assert_int_equal(export_remote_file(rw, &s, &vm, NULL, &n, err, sizeof(err)),
                   0);
  assert_int_equal(export_remote_unit(rw), 1);
  assert_int_equal(
      export_remote_file(rw, &s, &other, NULL, &n, err, sizeof(err)), 0);
  assert_int_equal(export_remote_unit(rw), 2);
  assert_int_equal(export_remote_flush(rw, err, sizeof(err)), 0);
  assert_string_equal(
      o.text, "unit 0\n" VM_SERIES(ID) "unit 1\n" VM_SERIES("id=qemu/101"));
  assert_int_equal(o.requests, 2);
  assert_int_equal(o.samples[0], 11);
  assert_int_equal(o.samples[1], 11);
  export_remote_free(rw);
  export_series_free(&s);
}

static void test_post_fails(void **state) {
  (void)state;
  struct export_series s = {0};
  export_series_begin(&s, &layout_pve_vm_9_0);
  add_vm_rows(&s);
  struct posted o = {.fail = -EPROTO};
  struct export_remote *rw = export_remote_new(post, &o, 100);
  char err[256];
  size_t n;
  assert_int_equal(export_remote_file(rw, &s, &vm, NULL, &n, err, sizeof(err)),
                   -EPROTO);
  /* the first request holds one sample: a second passes 100 bytes */
  assert_string_equal(err, "request 1 (1 samples): refused");
  export_remote_free(rw);
  export_series_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_request),
      cmocka_unit_test(test_info_and_cluster),
      cmocka_unit_test(test_cut),
      cmocka_unit_test(test_units),
      cmocka_unit_test(test_post_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

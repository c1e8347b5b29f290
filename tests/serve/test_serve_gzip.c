/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/serve/serve_gzip.c: which Accept-Encoding values take gzip
 * (the forms Prometheus, VictoriaMetrics, curl and browsers send, q=0
 * refusals, gzip;q=0 beside "*" as RFC 9110 reads it, look-alike names), and
 * that a body comes back byte for byte through zlib's own gzip reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_gzip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void test_accepted(void **state) {
  static const char *const yes[] = {
      "gzip",
      "gzip, deflate, br, zstd", /* Chromium */
      "deflate, gzip",           /* curl --compressed */
      "GZIP",
      "x-gzip",
      "identity;q=1, gzip;q=0.5",
      "gzip;q=1.0",
      "*",
      " br ,  gzip ; q=0.001",
      /* "*" stands for the codings not named; gzip named wins */
      "*;q=0, gzip",
      "gzip;q=0.5, *;q=0",
      "br;q=0, *",
      "*;q=0.1",
  };
  static const char *const no[] = {
      "",
      "identity",
      "deflate, br",
      "gzip;q=0",
      "gzip; q=0.000",
      "*;q=0",
      "gzipx",
      "xgzip",
      "gzip-ish",
      "br;q=1, gzip;Q=0",
      /* RFC 9110: q=0 is "not acceptable", even beside "*" */
      "gzip;q=0, *",
      "*, gzip;q=0",
      "*;q=1, GZIP; q=0.0",
      "x-gzip;q=0, *",
      "br, *;q=0",
      "*;q=0, br",
      "gzip;q=0, x-gzip",
  };
  (void)state;
  for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
    if (!serve_gzip_accepted(yes[i]))
      fail_msg("\"%s\" takes gzip", yes[i]);
  for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
    if (serve_gzip_accepted(no[i]))
      fail_msg("\"%s\" does not take gzip", no[i]);
  assert_false(serve_gzip_accepted(NULL));
}

/* in through serve_gzip() and back through zlib's gzip reader. */
static void round_trip(const char *in, size_t n) {
  char *gz = NULL;
  size_t gz_n = 0;
  assert_int_equal(serve_gzip(in, n, &gz, &gz_n), 0);
  assert_true(gz_n >= 18);
  assert_int_equal((unsigned char)gz[0], 0x1f); /* gzip's magic */
  assert_int_equal((unsigned char)gz[1], 0x8b);
  char *back = malloc(n + 1);
  assert_non_null(back);
  z_stream z = {0};
  assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = (Bytef *)gz;
  z.avail_in = (uInt)gz_n;
  z.next_out = (Bytef *)back;
  z.avail_out = (uInt)(n + 1);
  assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
  assert_int_equal(z.total_out, n);
  assert_int_equal(z.avail_in, 0); /* one member, nothing after it */
  inflateEnd(&z);
  assert_memory_equal(back, in, n);
  free(back);
  free(gz);
}

static void test_round_trip(void **state) {
  (void)state;
  round_trip("", 0);
  round_trip("x", 1);
  /* a scrape's worth of repetitive text, and bytes that do not compress */
  size_t n = 1 << 20;
  char *text = malloc(n);
  assert_non_null(text);
  for (size_t i = 0, k = 0; i < n; k++) {
    char line[96];
    int len = snprintf(line, sizeof(line),
                       "pve_memory_host_bytes{id=\"qemu/%zu\"} %zu "
                       "1796412060000\n",
                       100 + k, k * 4096);
    size_t take = (size_t)len < n - i ? (size_t)len : n - i;
    memcpy(text + i, line, take);
    i += take;
  }
  round_trip(text, n);
  uint32_t x = 2463534242u;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    text[i] = (char)x;
  }
  round_trip(text, n);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_accepted),
      cmocka_unit_test(test_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

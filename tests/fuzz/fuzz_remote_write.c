/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: remote_write_encode, the WriteRequest of Prometheus
 * remote write.  The input is cut into series: per series a byte of label
 * count and one of sample count, then per label two NUL-ended strings, per
 * sample 8 bytes of double and 8 of time.  The encoding must be as long
 * as remote_write_size() said, and this target's own decoder (sharing no
 * code with src/exporting) must read back the same labels and samples,
 * bit for bit; snappy's block must uncompress to the same bytes.
 */
#include "fuzz_check.h"
#include "remote_write.h"

#include <snappy-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SERIES_MAX 8
#define PER_SERIES_MAX 16

struct input {
  const uint8_t *p, *end;
};

static bool take(struct input *in, void *out, size_t n) {
  if ((size_t)(in->end - in->p) < n)
    return false;
  memcpy(out, in->p, n);
  in->p += n;
  return true;
}

static const char *take_string(struct input *in) {
  const uint8_t *nul = memchr(in->p, '\0', (size_t)(in->end - in->p));
  if (nul == NULL)
    return NULL;
  const char *s = (const char *)in->p;
  in->p = nul + 1;
  return s;
}

/* The decoder: varints and fields, failing on anything out of bounds. */
static uint64_t get_varint(struct input *in) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    FUZZ_CHECK(in->p < in->end);
    uint8_t b = *in->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      return v;
  }
  FUZZ_CHECK(false);
  return 0;
}

/* A length-delimited field of this tag: its bytes as an input. */
static struct input get_field(struct input *in, uint8_t tag) {
  FUZZ_CHECK(in->p < in->end && *in->p == tag);
  in->p++;
  uint64_t len = get_varint(in);
  FUZZ_CHECK(len <= (uint64_t)(in->end - in->p));
  struct input f = {in->p, in->p + len};
  in->p += len;
  return f;
}

static void check_string(struct input *in, uint8_t tag, const char *want) {
  struct input f = get_field(in, tag);
  FUZZ_CHECK((size_t)(f.end - f.p) == strlen(want));
  FUZZ_CHECK(memcmp(f.p, want, strlen(want)) == 0);
}

static void check_sample(struct input s, const struct remote_write_sample *w) {
  FUZZ_CHECK(s.end - s.p >= 9 && *s.p++ == 0x09);
  uint64_t bits = 0, want_bits;
  for (int i = 0; i < 8; i++)
    bits |= (uint64_t)*s.p++ << (8 * i);
  memcpy(&want_bits, &w->value, sizeof(want_bits));
  FUZZ_CHECK(bits == want_bits);
  FUZZ_CHECK(s.p < s.end && *s.p++ == 0x10);
  FUZZ_CHECK((int64_t)get_varint(&s) == w->time_ms);
  FUZZ_CHECK(s.p == s.end);
}

static void check_series(struct input ts, const struct remote_write_series *w) {
  for (size_t i = 0; i < w->label_count; i++) {
    struct input l = get_field(&ts, 0x0a);
    check_string(&l, 0x0a, w->labels[i].name);
    check_string(&l, 0x12, w->labels[i].value);
    FUZZ_CHECK(l.p == l.end);
  }
  for (size_t i = 0; i < w->sample_count; i++)
    check_sample(get_field(&ts, 0x12), &w->samples[i]);
  FUZZ_CHECK(ts.p == ts.end);
}

static void check_snappy(const unsigned char *buf, size_t len) {
  char *z;
  size_t zlen;
  FUZZ_CHECK(remote_write_compress(buf, len, &z, &zlen) == 0);
  size_t back_len;
  FUZZ_CHECK(snappy_uncompressed_length(z, zlen, &back_len) == SNAPPY_OK);
  FUZZ_CHECK(back_len == len);
  char *back = malloc(len ? len : 1);
  FUZZ_CHECK(back != NULL);
  FUZZ_CHECK(snappy_uncompress(z, zlen, back, &back_len) == SNAPPY_OK);
  FUZZ_CHECK(back_len == len && memcmp(back, buf, len) == 0);
  free(back);
  free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct remote_write_label labels[SERIES_MAX][PER_SERIES_MAX];
  static struct remote_write_sample samples[SERIES_MAX][PER_SERIES_MAX];
  struct remote_write_series series[SERIES_MAX];
  struct input in = {data, data + size};
  size_t n = 0;
  uint8_t counts[2];
  while (n < SERIES_MAX && take(&in, counts, 2)) {
    struct remote_write_series *ts = &series[n];
    *ts = (struct remote_write_series){labels[n], counts[0] % PER_SERIES_MAX,
                                       samples[n], counts[1] % PER_SERIES_MAX};
    for (size_t i = 0; i < ts->label_count; i++) {
      labels[n][i].name = take_string(&in);
      labels[n][i].value = labels[n][i].name ? take_string(&in) : NULL;
      if (labels[n][i].value == NULL)
        return 0;
    }
    for (size_t i = 0; i < ts->sample_count; i++)
      if (!take(&in, &samples[n][i].value, 8) ||
          !take(&in, &samples[n][i].time_ms, 8))
        return 0;
    n++;
  }
  size_t len = remote_write_size(series, n);
  unsigned char *buf = malloc(len ? len : 1);
  FUZZ_CHECK(buf != NULL);
  FUZZ_CHECK(remote_write_encode(series, n, buf) == len);
  struct input req = {buf, buf + len};
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(remote_write_series_size(&series[i]) <=
               (size_t)(req.end - req.p));
    check_series(get_field(&req, 0x0a), &series[i]);
  }
  FUZZ_CHECK(req.p == req.end);
  check_snappy(buf, len);
  free(buf);
  return 0;
}

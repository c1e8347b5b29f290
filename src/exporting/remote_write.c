/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Prometheus remote write's WriteRequest in protobuf, and its snappy block
 * (see remote_write.h).
 */
#include "remote_write.h"

#include <errno.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

/* Field tags: (number << 3) | wire type (0 varint, 1 64-bit, 2 bytes). */
#define TAG_SERIES 0x0a /* WriteRequest.timeseries */
#define TAG_LABEL 0x0a  /* TimeSeries.labels */
#define TAG_SAMPLE 0x12 /* TimeSeries.samples */
#define TAG_NAME 0x0a   /* Label.name */
#define TAG_VALUE 0x12  /* Label.value */
#define TAG_DOUBLE 0x09 /* Sample.value */
#define TAG_TIME 0x10   /* Sample.timestamp */

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static unsigned char *put_varint(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

/* A length-delimited field's tag and length (its bytes follow). */
static unsigned char *put_head(unsigned char *p, unsigned char tag,
                               size_t len) {
  *p++ = tag;
  return put_varint(p, len);
}

static size_t field_size(size_t len) { return 1 + varint_size(len) + len; }

static size_t label_size(const struct remote_write_label *l) {
  return field_size(strlen(l->name)) + field_size(strlen(l->value));
}

/* An int64 goes as its two's complement (10 bytes when negative). */
static size_t sample_size(const struct remote_write_sample *s) {
  return 1 + 8 + 1 + varint_size((uint64_t)s->time_ms);
}

/* The TimeSeries' own bytes, without its tag and length. */
static size_t series_body(const struct remote_write_series *ts) {
  size_t n = 0;
  for (size_t i = 0; i < ts->label_count; i++)
    n += field_size(label_size(&ts->labels[i]));
  for (size_t i = 0; i < ts->sample_count; i++)
    n += field_size(sample_size(&ts->samples[i]));
  return n;
}

size_t remote_write_series_size(const struct remote_write_series *series) {
  return field_size(series_body(series));
}

size_t remote_write_size(const struct remote_write_series *series, size_t n) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += remote_write_series_size(&series[i]);
  return total;
}

static unsigned char *put_string(unsigned char *p, unsigned char tag,
                                 const char *s) {
  size_t len = strlen(s);
  p = put_head(p, tag, len);
  memcpy(p, s, len);
  return p + len;
}

/* A double goes as its 8 bytes, little-endian. */
static unsigned char *put_double(unsigned char *p, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  *p++ = TAG_DOUBLE;
  for (int i = 0; i < 8; i++)
    *p++ = (unsigned char)(bits >> (8 * i));
  return p;
}

static unsigned char *put_series(unsigned char *p,
                                 const struct remote_write_series *ts) {
  p = put_head(p, TAG_SERIES, series_body(ts));
  for (size_t i = 0; i < ts->label_count; i++) {
    const struct remote_write_label *l = &ts->labels[i];
    p = put_head(p, TAG_LABEL, label_size(l));
    p = put_string(p, TAG_NAME, l->name);
    p = put_string(p, TAG_VALUE, l->value);
  }
  for (size_t i = 0; i < ts->sample_count; i++) {
    const struct remote_write_sample *s = &ts->samples[i];
    p = put_head(p, TAG_SAMPLE, sample_size(s));
    p = put_double(p, s->value);
    *p++ = TAG_TIME;
    p = put_varint(p, (uint64_t)s->time_ms);
  }
  return p;
}

size_t remote_write_encode(const struct remote_write_series *series, size_t n,
                           unsigned char *out) {
  unsigned char *p = out;
  for (size_t i = 0; i < n; i++)
    p = put_series(p, &series[i]);
  return (size_t)(p - out);
}

int remote_write_compress(const unsigned char *in, size_t len, char **ret,
                          size_t *ret_len) {
  size_t max = snappy_max_compressed_length(len);
  char *out = malloc(max ? max : 1);
  if (out == NULL)
    return -ENOMEM;
  if (snappy_compress((const char *)in, len, out, &max) != SNAPPY_OK) {
    free(out);
    return -ENOMEM;
  }
  *ret = out;
  *ret_len = max;
  return 0;
}

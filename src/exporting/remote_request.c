/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A gathered remote write request and any run of its units encoded (see
 * remote_request.h).  Samples lie in the order of their series, so a run
 * of units is one range of samples, and each series in it is cut to that
 * range: a file's rows are one range whatever the series.
 */
#include "remote_request.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

struct remote_request *remote_request_new(void) {
  struct remote_request *q = calloc(1, sizeof(*q));
  if (q != NULL && remote_request_unit(q) < 0) {
    remote_request_free(q);
    return NULL;
  }
  return q;
}

void remote_request_clear(struct remote_request *q) {
  q->text_len = q->label_len = q->sample_len = q->series_len = 0;
  q->unit_len = 0;
  remote_request_unit(q); /* the first unit's room is kept: no failure */
}

/* Whether the last unit has no sample yet: the next one is it. */
static bool last_empty(const struct remote_request *q) {
  return q->unit_len > 0 && q->unit[q->unit_len - 1] == q->sample_len;
}

size_t remote_request_next_unit(const struct remote_request *q) {
  return last_empty(q) ? q->unit_len - 1 : q->unit_len;
}

int remote_request_unit(struct remote_request *q) {
  if (last_empty(q))
    return 0;
  if (q->unit_len == q->unit_cap) {
    size_t n = q->unit_cap ? q->unit_cap * 2 : 16;
    size_t *grown = realloc(q->unit, n * sizeof(*grown));
    if (grown == NULL)
      return -ENOMEM;
    q->unit = grown;
    q->unit_cap = n;
  }
  q->unit[q->unit_len++] = q->sample_len;
  return 0;
}

/* The units that hold samples (a last one begun for a file without any
 * is none). */
static size_t units(const struct remote_request *q) {
  size_t n = q->unit_len;
  while (n > 1 && q->unit[n - 1] >= q->sample_len)
    n--;
  return n;
}

struct http_message remote_request_message(struct remote_request *q) {
  return (struct http_message){.data = q,
                               .units = units(q),
                               .encode = remote_request_encode,
                               .free = remote_request_free};
}

/* The series of samples [a, b), each cut to that range; returns how many. */
static size_t cut(const struct remote_request *q,
                  const struct remote_write_label *labels, size_t a, size_t b,
                  struct remote_write_series *out) {
  size_t n = 0;
  for (size_t i = 0; i < q->series_len; i++) {
    const struct remote_request_series *p = &q->series[i];
    size_t from = p->sample_at > a ? p->sample_at : a;
    size_t to = p->sample_at + p->sample_count;
    to = to < b ? to : b;
    if (from < to)
      out[n++] = (struct remote_write_series){
          labels + p->label_at, p->label_count, q->sample + from, to - from};
  }
  return n;
}

static int compress(const struct remote_write_series *series, size_t n,
                    char **body, size_t *len) {
  size_t size = remote_write_size(series, n);
  unsigned char *raw = malloc(size ? size : 1);
  if (raw == NULL)
    return -ENOMEM;
  int r = remote_write_compress(raw, remote_write_encode(series, n, raw), body,
                                len);
  free(raw);
  return r;
}

int remote_request_encode(void *data, size_t from, size_t to, char **body,
                          size_t *len, size_t *samples) {
  const struct remote_request *q = data;
  size_t a = from < q->unit_len ? q->unit[from] : q->sample_len;
  size_t b = to < q->unit_len ? q->unit[to] : q->sample_len;
  size_t nl = q->label_len / 2, ns = q->series_len;
  struct remote_write_label *labels = malloc((nl ? nl : 1) * sizeof(*labels));
  struct remote_write_series *series = malloc((ns ? ns : 1) * sizeof(*series));
  int r = labels != NULL && series != NULL ? 0 : -ENOMEM;
  for (size_t i = 0; r == 0 && i < nl; i++)
    labels[i] = (struct remote_write_label){q->text + q->label[2 * i],
                                            q->text + q->label[2 * i + 1]};
  if (r == 0)
    r = compress(series, cut(q, labels, a, b, series), body, len);
  *samples = b - a;
  free(series);
  free(labels);
  return r;
}

void remote_request_free(void *data) {
  struct remote_request *q = data;
  if (q == NULL)
    return;
  free(q->text);
  free(q->label);
  free(q->sample);
  free(q->series);
  free(q->unit);
  free(q);
}

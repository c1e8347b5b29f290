/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote write requests of files' rows (see export_remote.h).  A request
 * is gathered as offsets into growing arrays (labels' text, samples,
 * series) and only made into remote_write.h's structures when posted, so
 * that growing never leaves a pointer behind.
 */
#include "export_remote.h"

#include "remote_request.h"
#include "pvecg/export_names.h"
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A sample's bytes at most: tag, length, a double's field, a time's. */
#define SAMPLE_BYTES_MAX (2 + 9 + 11)
/* A series' tag and length at most. */
#define SERIES_HEAD_MAX 6
#define LABELS_MAX (3 + EXPORT_GUEST_INFO_LABELS)

struct export_remote {
  export_remote_post post;
  void *ctx;
  size_t max;
  struct remote_request *q; /* the request being gathered */
  size_t size;              /* its bytes, at most */
  size_t requests;
};

/* An array p of len elements with room for `more`: p itself, or grown
 * (NULL: out of memory, p untouched). */
static void *room(void *p, size_t *cap, size_t len, size_t more, size_t elem) {
  if (p != NULL && len + more <= *cap)
    return p;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < len + more)
    n *= 2;
  void *q = realloc(p, n * elem);
  if (q != NULL)
    *cap = n;
  return q;
}

/* Grows array field of request q for `more` elements, or returns -ENOMEM. */
#define GROW(q, field, more)                                                   \
  do {                                                                         \
    void *p_ = room((q)->field, &(q)->field##_cap, (q)->field##_len, (more),   \
                    sizeof(*(q)->field));                                      \
    if (p_ == NULL)                                                            \
      return -ENOMEM;                                                          \
    (q)->field = p_;                                                           \
  } while (0)

struct export_remote *export_remote_new(export_remote_post post, void *ctx,
                                        size_t max) {
  struct export_remote *rw = calloc(1, sizeof(*rw));
  if (rw != NULL) {
    rw->post = post;
    rw->ctx = ctx;
    rw->max = max;
    rw->q = remote_request_new();
  }
  if (rw != NULL && rw->q == NULL) {
    free(rw);
    rw = NULL;
  }
  return rw;
}

static int add_text(struct export_remote *rw, const char *s) {
  struct remote_request *q = rw->q;
  size_t n = strlen(s) + 1;
  GROW(q, text, n);
  GROW(q, label, 1);
  memcpy(q->text + q->text_len, s, n);
  q->label[q->label_len++] = q->text_len;
  q->text_len += n;
  rw->size += n + 4; /* its field's tag and length, the label's */
  return 0;
}

/* A new series of these labels (sorted by name) in the request. */
static int begin_series(struct export_remote *rw,
                        const struct remote_write_label *l, size_t n) {
  struct remote_request *q = rw->q;
  GROW(q, series, 1);
  struct remote_request_series *ps = &q->series[q->series_len++];
  *ps = (struct remote_request_series){.label_at = q->label_len / 2,
                                       .sample_at = q->sample_len};
  rw->size += SERIES_HEAD_MAX;
  for (size_t i = 0; i < n; i++) {
    if (l[i].value[0] == '\0')
      continue;
    if (add_text(rw, l[i].name) < 0 || add_text(rw, l[i].value) < 0)
      return -ENOMEM;
    ps->label_count++;
  }
  return 0;
}

/* The gathered request handed to post, which owns it from then on. */
static int post(struct export_remote *rw, char *err, size_t err_size) {
  struct remote_request *next = remote_request_new();
  if (next == NULL) {
    snprintf(err, err_size, "out of memory");
    export_remote_discard(rw);
    return -ENOMEM;
  }
  char label[96];
  size_t samples = rw->q->sample_len;
  rw->requests++;
  snprintf(label, sizeof(label), "request %zu (%zu samples)", rw->requests,
           samples);
  struct http_message m = remote_request_message(rw->q);
  rw->q = next;
  rw->size = 0;
  return rw->post(rw->ctx, &m, label, err, err_size);
}

size_t export_remote_size(const struct export_remote *rw) { return rw->size; }

size_t export_remote_unit(const struct export_remote *rw) {
  return remote_request_next_unit(rw->q);
}

void export_remote_discard(struct export_remote *rw) {
  remote_request_clear(rw->q);
  rw->size = 0;
}

int export_remote_flush(struct export_remote *rw, char *err, size_t err_size) {
  return rw->q->sample_len > 0 ? post(rw, err, err_size) : 0;
}

static bool full(const struct export_remote *rw) {
  return rw->q->sample_len > 0 && rw->size + SAMPLE_BYTES_MAX > rw->max;
}

/* A series of these labels, in a request with room for a sample: a
 * series is never sent without one. */
static int open_series(struct export_remote *rw,
                       const struct remote_write_label *l, size_t n, char *err,
                       size_t err_size) {
  int r = full(rw) ? post(rw, err, err_size) : 0;
  return r < 0 ? r : begin_series(rw, l, n);
}

/* One sample of the series opened last; when the request is full, and the
 * series has a sample in it, the request is posted first and the series
 * goes on in the next one. */
static int add_sample(struct export_remote *rw,
                      const struct remote_write_label *l, size_t n, double v,
                      time_t t, char *err, size_t err_size) {
  if (full(rw) && rw->q->series[rw->q->series_len - 1].sample_count > 0) {
    int r = open_series(rw, l, n, err, err_size);
    if (r < 0)
      return r;
  }
  struct remote_request *q = rw->q;
  GROW(q, sample, 1);
  q->sample[q->sample_len++] =
      (struct remote_write_sample){v, (int64_t)t * 1000};
  q->series[q->series_len - 1].sample_count++;
  rw->size += SAMPLE_BYTES_MAX;
  return 0;
}

/* "qemu/100", "node/pve1": prometheus-pve-exporter's id. */
static void id_of(const struct export_source *src, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s", src->kind == EXPORT_NODE ? "node" : src->object,
           src->name);
}

static int add_family(struct export_remote *rw, const struct export_series *s,
                      const struct export_family *f,
                      const struct remote_write_label *l, size_t n,
                      size_t *samples, char *err, size_t err_size) {
  bool begun = false;
  for (size_t r = 0; r < s->count; r++) {
    double v = s->value[r * RRD_LAYOUT_DS_MAX + f->column];
    if (!isfinite(v))
      continue;
    int e = begun ? 0 : open_series(rw, l, n, err, err_size);
    begun = true;
    if (e == 0)
      e = add_sample(rw, l, n, export_family_value(f, v), s->time[r], err,
                     err_size);
    if (e < 0)
      return e;
    (*samples)++;
  }
  return 0;
}

static bool row_known(const struct export_series *s, size_t r) {
  for (size_t i = 0; i < s->layout->ds_count; i++)
    if (isfinite(s->value[r * RRD_LAYOUT_DS_MAX + i]))
      return true;
  return false;
}

/* pve_guest_info 1 at each row with a known value, with /metrics' labels
 * sorted by name. */
static int add_info(struct export_remote *rw, const struct export_series *s,
                    const struct remote_write_label *id,
                    const struct export_source *src,
                    const struct export_guest_info *info, size_t *samples,
                    char *err, size_t err_size) {
  const struct remote_write_label l[] = {
      {"__name__", EXPORT_GUEST_INFO},
      id[0],
      id[1],
      {"name", info->name},
      {"node", info->node},
      {"tags", info->tags},
      {"template", info->template ? "1" : "0"},
      {"type", src->object}};
  size_t n = sizeof(l) / sizeof(l[0]);
  bool begun = false;
  for (size_t r = 0; r < s->count; r++) {
    if (!row_known(s, r))
      continue;
    int e = begun ? 0 : open_series(rw, l, n, err, err_size);
    begun = true;
    if (e == 0)
      e = add_sample(rw, l, n, 1, s->time[r], err, err_size);
    if (e < 0)
      return e;
    (*samples)++;
  }
  return 0;
}

int export_remote_file(struct export_remote *rw, const struct export_series *s,
                       const struct export_source *src,
                       const struct export_guest_info *info, size_t *samples,
                       char *err, size_t err_size) {
  char id[2 * RRD_FILE_NAME_MAX + 16];
  id_of(src, id, sizeof(id));
  /* cluster < id: sorted as the spec wants; "" (no cluster) is left out */
  const struct remote_write_label where[2] = {
      {"cluster", EXPORT_SOURCE_CLUSTERED(src) ? src->cluster : ""},
      {"id", id}};
  *samples = 0;
  /* a file's rows are a unit: what a store refuses is skipped by file */
  int r = remote_request_unit(rw->q);
  if (r == 0 && info != NULL)
    r = add_info(rw, s, where, src, info, samples, err, err_size);
  struct export_family f[EXPORT_FAMILIES_MAX];
  size_t nf = export_series_families(s, src, f);
  for (size_t i = 0; r == 0 && i < nf; i++) {
    const struct remote_write_label l[] = {
        {"__name__", f[i].name}, where[0], where[1]};
    r = add_family(rw, s, &f[i], l, 3, samples, err, err_size);
  }
  if (r == -ENOMEM)
    snprintf(err, err_size, "out of memory");
  return r;
}

void export_remote_free(struct export_remote *rw) {
  if (rw == NULL)
    return;
  remote_request_free(rw->q);
  free(rw);
}

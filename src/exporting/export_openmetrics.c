/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OpenMetrics and Prometheus text of a file's rows (see
 * export_openmetrics.h).
 */
#include "export_openmetrics.h"

#include "export_text.h"
#include "pvecg/export_names.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void export_series_begin(struct export_series *s,
                         const struct rrd_layout *layout) {
  s->layout = layout;
  s->count = 0;
}

static int grow(struct export_series *s) {
  size_t cap = s->capacity ? s->capacity * 2 : 1024;
  time_t *t = realloc(s->time, cap * sizeof(*t));
  if (t == NULL)
    return -ENOMEM;
  s->time = t;
  double *v = realloc(s->value, cap * RRD_LAYOUT_DS_MAX * sizeof(*v));
  if (v == NULL)
    return -ENOMEM;
  s->value = v;
  s->capacity = cap;
  return 0;
}

int export_series_add(struct export_series *s, time_t t, const double *values,
                      size_t n) {
  if (s->count == s->capacity && grow(s) < 0)
    return -ENOMEM;
  double *row = s->value + s->count * RRD_LAYOUT_DS_MAX;
  for (size_t i = 0; i < s->layout->ds_count; i++)
    row[i] = i < n ? values[i] : NAN;
  s->time[s->count++] = t;
  return 0;
}

/* A label value escapes '\', '"' and newlines. */
static void write_label_value(const char *v, FILE *out) {
  for (const char *p = v; *p != '\0'; p++) {
    if (*p == '\\' || *p == '"')
      fputc('\\', out);
    if (*p == '\n')
      fputs("\\n", out);
    else
      fputc(*p, out);
  }
}

/* {id="qemu/100"}, with cluster="prod" for a named cluster's file. */
static void write_id(const struct export_source *src, FILE *out) {
  fprintf(out, "{id=\"%s/", src->kind == EXPORT_NODE ? "node" : src->object);
  write_label_value(src->name, out);
  if (EXPORT_SOURCE_CLUSTERED(src)) {
    fputs("\",cluster=\"", out);
    write_label_value(src->cluster, out);
  }
  fputs("\"}", out);
}

/* HELP and TYPE: OpenMetrics names a counter's family (without _total),
 * Prometheus' text format the samples' name (with it). */
static void write_meta(const struct export_metric *m, enum export_format format,
                       FILE *out) {
  const char *suffix =
      m->counter && format == EXPORT_PROMETHEUS ? "_total" : "";
  fprintf(out, "# HELP %s%s %s\n# TYPE %s%s %s\n", m->prom, suffix, m->help,
          m->prom, suffix, m->counter ? "counter" : "gauge");
}

/* Column i's samples, after its HELP and TYPE; none when it has no known
 * value. */
static size_t write_metric(const struct export_series *s, size_t i,
                           const struct export_metric *m,
                           enum export_format format,
                           const struct export_source *src, FILE *out) {
  size_t n = 0;
  for (size_t r = 0; r < s->count; r++) {
    double v = s->value[r * RRD_LAYOUT_DS_MAX + i];
    if (!isfinite(v))
      continue;
    if (n++ == 0)
      write_meta(m, format, out);
    char text[EXPORT_VALUE_SIZE];
    export_value_text(m->percent ? v / 100 : v, text);
    fprintf(out, "%s%s", m->prom, m->counter ? "_total" : "");
    write_id(src, out);
    if (format == EXPORT_OPENMETRICS)
      fprintf(out, " %s %lld\n", text, (long long)s->time[r]);
    else
      fprintf(out, " %s %lld000\n", text, (long long)s->time[r]);
  }
  return n;
}

int export_series_write(struct export_series *s, enum export_format format,
                        const struct export_source *src, FILE *out,
                        struct export_count *ret) {
  struct export_count count = {0};
  bool node = src->kind == EXPORT_NODE;
  for (size_t i = 0; i < s->layout->ds_count; i++) {
    const struct export_metric *m = export_metric_of(s->layout, node, i);
    size_t n = m != NULL ? write_metric(s, i, m, format, src, out) : 0;
    count.lines += n;
    count.values += n;
  }
  s->count = 0;
  *ret = count;
  return 0;
}

void export_series_free(struct export_series *s) {
  free(s->time);
  free(s->value);
  *s = (struct export_series){0};
}

void export_series_end(enum export_format format, FILE *out) {
  if (format == EXPORT_OPENMETRICS)
    fputs("# EOF\n", out);
}

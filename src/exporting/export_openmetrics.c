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

/* id="qemu/100", with cluster="prod" for a named cluster's file (/metrics'
 * labels in /metrics' order), without the braces. */
static void write_id(const struct export_source *src, FILE *out) {
  fprintf(out, "id=\"%s/", src->kind == EXPORT_NODE ? "node" : src->object);
  write_label_value(src->name, out);
  if (EXPORT_SOURCE_CLUSTERED(src)) {
    fputs("\",cluster=\"", out);
    write_label_value(src->cluster, out);
  }
  fputc('"', out);
}

/* A sample's time: seconds in OpenMetrics, milliseconds in Prometheus'
 * text format. */
static void write_time(enum export_format format, time_t t, FILE *out) {
  fprintf(out, " %lld%s\n", (long long)t,
          format == EXPORT_OPENMETRICS ? "" : "000");
}

/* How a column's samples are written: the family's name, HELP and TYPE,
 * and the samples' name. */
struct family_text {
  const char *family, *help, *type, *sample;
};

/* Column i's samples, after the family's HELP and TYPE; nothing when it
 * has no known value.  Counters are in their unit already
 * (export_counter.h). */
static size_t write_family(const struct export_series *s, size_t i,
                           const struct export_metric *m,
                           const struct family_text *t,
                           enum export_format format,
                           const struct export_source *src, FILE *out) {
  size_t n = 0;
  for (size_t r = 0; r < s->count; r++) {
    double v = s->value[r * RRD_LAYOUT_DS_MAX + i];
    if (!isfinite(v))
      continue;
    if (n++ == 0)
      fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", t->family, t->help,
              t->family, t->type);
    char text[EXPORT_VALUE_SIZE];
    export_value_text(m->counter ? v : export_metric_prom_value(m, v), text);
    fprintf(out, "%s{", t->sample);
    write_id(src, out);
    fprintf(out, "} %s", text);
    write_time(format, s->time[r], out);
  }
  return n;
}

/* Column i's families.  A counter is X_total, its family named X in
 * OpenMetrics (Prometheus' text format names it as its samples); one
 * prometheus-pve-exporter had as a gauge first follows as that gauge,
 * which the exporter still serves beside it, deprecated.  The gauge then
 * owns the name X, so in OpenMetrics the counter's family is X_total,
 * `unknown`, as /metrics has it (metrics_text.h). */
static size_t write_metric(const struct export_series *s, size_t i,
                           const struct export_metric *m,
                           enum export_format format,
                           const struct export_source *src, FILE *out) {
  struct family_text t = {m->prom, m->help, "gauge", m->prom};
  if (!m->counter)
    return write_family(s, i, m, &t, format, src, out);
  char total[128], help[512];
  snprintf(total, sizeof(total), "%s_total", m->prom);
  t = (struct family_text){total, m->help, "counter", total};
  if (format == EXPORT_OPENMETRICS && m->older == NULL)
    t.family = m->prom;
  else if (format == EXPORT_OPENMETRICS)
    t.type = "unknown";
  size_t n = write_family(s, i, m, &t, format, src, out);
  if (m->older == NULL)
    return n;
  export_metric_older_help(m, help, sizeof(help));
  t = (struct family_text){m->older, help, "gauge", m->older};
  return n + write_family(s, i, m, &t, format, src, out);
}

int export_series_write(struct export_series *s, enum export_format format,
                        const struct export_source *src, FILE *out,
                        struct export_count *ret) {
  struct export_count count = {0};
  bool node = src->kind == EXPORT_NODE;
  for (size_t i = 0; i < s->layout->ds_count; i++) {
    const struct export_metric *m = export_metric_of(s->layout, node, i);
    if (m == NULL)
      continue;
    size_t n = write_metric(s, i, m, format, src, out);
    count.lines += n;
    count.values += n;
  }
  s->count = 0;
  *ret = count;
  return 0;
}

size_t export_series_families(const struct export_series *s,
                              const struct export_source *src,
                              struct export_family out[EXPORT_FAMILIES_MAX]) {
  size_t n = 0;
  bool node = src->kind == EXPORT_NODE;
  for (size_t i = 0; i < s->layout->ds_count; i++) {
    const struct export_metric *m = export_metric_of(s->layout, node, i);
    if (m == NULL)
      continue;
    struct export_family *f = &out[n++];
    *f = (struct export_family){.column = i, .metric = m};
    snprintf(f->name, sizeof(f->name), "%s%s", m->prom,
             m->counter ? "_total" : "");
    if (m->counter && m->older != NULL) {
      out[n] = *f;
      snprintf(out[n++].name, sizeof(f->name), "%s", m->older);
    }
  }
  return n;
}

double export_family_value(const struct export_family *f, double v) {
  return f->metric->counter ? v : export_metric_prom_value(f->metric, v);
}

static bool row_known(const struct export_series *s, size_t r) {
  for (size_t i = 0; i < s->layout->ds_count; i++)
    if (isfinite(s->value[r * RRD_LAYOUT_DS_MAX + i]))
      return true;
  return false;
}

/* pve_guest_info's labels after id (and cluster), as /metrics has them. */
static void write_info_labels(const struct export_source *src,
                              const struct export_guest_info *info, FILE *out) {
  const char *values[EXPORT_GUEST_INFO_LABELS] = {
      [EXPORT_GUEST_INFO_NODE] = info->node,
      [EXPORT_GUEST_INFO_NAME] = info->name,
      [EXPORT_GUEST_INFO_TYPE] = src->object,
      [EXPORT_GUEST_INFO_TEMPLATE] = info->template ? "1" : "0",
      [EXPORT_GUEST_INFO_TAGS] = info->tags};
  for (size_t k = 0; k < EXPORT_GUEST_INFO_LABELS; k++) {
    fprintf(out, ",%s=\"", export_guest_info_labels[k]);
    write_label_value(values[k], out);
    fputc('"', out);
  }
}

size_t export_series_write_info(const struct export_series *s,
                                enum export_format format,
                                const struct export_source *src,
                                const struct export_guest_info *info,
                                FILE *out) {
  size_t n = 0;
  for (size_t r = 0; r < s->count; r++) {
    if (!row_known(s, r))
      continue;
    if (n++ == 0)
      fputs("# HELP " EXPORT_GUEST_INFO " " EXPORT_GUEST_INFO_HELP "\n"
            "# TYPE " EXPORT_GUEST_INFO " gauge\n",
            out);
    fputs(EXPORT_GUEST_INFO "{", out);
    write_id(src, out);
    write_info_labels(src, info, out);
    fputs("} 1", out);
    write_time(format, s->time[r], out);
  }
  return n;
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

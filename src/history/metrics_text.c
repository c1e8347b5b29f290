/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One scrape's text (see metrics_text.h). */
#include "pvecg/metrics_text.h"

#include "export_text.h"
#include "pvecg/export_names.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define FAMILIES_MAX (2 * RRD_LAYOUT_DS_MAX)

/* A family and, per kind of file, which column feeds it (-1: none). */
struct family {
  const struct export_metric *metric;
  int column[2]; /* [EXPORT_VM], [EXPORT_NODE] */
};

/* A label value: '\', '"' and newlines escaped. */
static void write_label_value(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s != '\0'; s++) {
    if (*s == '\n') {
      fputs("\\n", out);
      continue;
    }
    if (*s == '\\' || *s == '"')
      fputc('\\', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void write_meta(FILE *out, const char *name, const char *help,
                       const char *type) {
  fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ---- the families -------------------------------------------------------- */

static size_t find_family(const struct family *f, size_t n, const char *prom) {
  size_t i = 0;
  while (i < n && strcmp(f[i].metric->prom, prom) != 0)
    i++;
  return i;
}

/* The families of layout's columns for files of kind, added to f. */
static size_t add_families(struct family *f, size_t n,
                           const struct rrd_layout *layout,
                           enum export_kind kind) {
  for (size_t c = 0; c < layout->ds_count; c++) {
    const struct export_metric *m =
        export_metric_of(layout, kind == EXPORT_NODE, c);
    if (m == NULL)
      continue;
    size_t i = find_family(f, n, m->prom);
    if (i == n) {
      if (n == FAMILIES_MAX)
        continue;
      f[n++] = (struct family){m, {-1, -1}};
    }
    f[i].column[kind] = (int)c;
  }
  return n;
}

/* The families of the files' layouts: one per name, in the order of the
 * first layout's columns. */
static size_t families_of(const struct metrics_file *files, size_t count,
                          struct family *f) {
  const struct rrd_layout *seen[2] = {NULL, NULL};
  size_t n = 0;
  for (size_t i = 0; i < count; i++) {
    enum export_kind k = files[i].kind;
    if (seen[k] == files[i].layout)
      continue;
    seen[k] = files[i].layout;
    n = add_families(f, n, files[i].layout, k);
  }
  return n;
}

/* ---- samples ------------------------------------------------------------- */

static bool sample_of(const struct family *f, const struct metrics_file *file,
                      double *ret) {
  int c = f->column[file->kind];
  if (c < 0 || (size_t)c >= file->layout->ds_count)
    return false;
  /* the column's own naming: a guest's and a node's share the family */
  const struct export_metric *m =
      export_metric_of(file->layout, file->kind == EXPORT_NODE, (size_t)c);
  double v = file->values[c];
  if (m == NULL || strcmp(m->prom, f->metric->prom) != 0 || !isfinite(v))
    return false;
  *ret = m->percent ? v / 100 : v;
  return true;
}

static void write_family(FILE *out, enum export_format format,
                         const struct family *f,
                         const struct metrics_file *files, size_t count) {
  const struct export_metric *m = f->metric;
  const char *suffix = m->counter ? "_total" : "";
  bool meta = false;
  for (size_t i = 0; i < count; i++) {
    double v;
    if (!sample_of(f, &files[i], &v))
      continue;
    if (!meta) {
      /* OpenMetrics names a counter's family, Prometheus' text its
       * samples */
      fprintf(out, "# HELP %s%s %s\n# TYPE %s%s %s\n", m->prom,
              format == EXPORT_PROMETHEUS ? suffix : "", m->help, m->prom,
              format == EXPORT_PROMETHEUS ? suffix : "",
              m->counter ? "counter" : "gauge");
      meta = true;
    }
    char text[EXPORT_VALUE_SIZE];
    export_value_text(v, text);
    fprintf(out, "%s%s{id=", m->prom, suffix);
    write_label_value(out, files[i].id);
    fprintf(out, "} %s %lld%s\n", text, (long long)files[i].time,
            format == EXPORT_PROMETHEUS ? "000" : "");
  }
}

void metrics_text_files(FILE *out, enum export_format format,
                        const struct metrics_file *files, size_t count) {
  struct family f[FAMILIES_MAX];
  size_t n = families_of(files, count, f);
  for (size_t i = 0; i < n; i++)
    write_family(out, format, &f[i], files, count);
}

void metrics_text_guests(FILE *out, const struct metrics_guest *guests,
                         size_t count) {
  if (count == 0)
    return;
  write_meta(out, "pve_guest_info", "VM/CT info", "gauge");
  for (size_t i = 0; i < count; i++) {
    const struct metrics_guest *g = &guests[i];
    fputs("pve_guest_info{id=", out);
    write_label_value(out, g->id);
    fputs(",node=", out);
    write_label_value(out, g->node);
    fputs(",name=", out);
    write_label_value(out, g->name);
    fputs(",type=", out);
    write_label_value(out, g->type);
    fputs("} 1\n", out);
  }
}

void metrics_text_gauge(FILE *out, const char *name, const char *help,
                        const char *label, const char *const *keys,
                        const double *values, size_t count) {
  write_meta(out, name, help, "gauge");
  for (size_t i = 0; i < count; i++) {
    char text[EXPORT_VALUE_SIZE];
    export_value_text(values[i], text);
    fprintf(out, "%s{%s=", name, label);
    write_label_value(out, keys[i]);
    fprintf(out, "} %s\n", text);
  }
}

void metrics_text_end(FILE *out, enum export_format format) {
  if (format == EXPORT_OPENMETRICS)
    fputs("# EOF\n", out);
}

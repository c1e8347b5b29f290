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

/* The labels naming a file: id, and cluster for a named cluster's. */
static void write_id(FILE *out, const char *id, const char *cluster) {
  fputs("id=", out);
  write_label_value(out, id);
  if (cluster != NULL && cluster[0] != '\0') {
    fputs(",cluster=", out);
    write_label_value(out, cluster);
  }
}

/* The cluster of item i, or NULL. */
static const char *cluster_of(const char *const *clusters, size_t i) {
  return clusters != NULL ? clusters[i] : NULL;
}

static void write_meta(FILE *out, const char *name, const char *help,
                       const char *type) {
  fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ---- the families -------------------------------------------------------- */

/* Whether a and b name one family's samples (a guest's and a node's
 * column of one name). */
static bool same_series(const struct export_metric *a,
                        const struct export_metric *b) {
  return strcmp(a->prom, b->prom) == 0;
}

static size_t find_family(const struct family *f, size_t n,
                          const struct export_metric *m) {
  size_t i = 0;
  while (i < n && !same_series(f[i].metric, m))
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
    size_t i = find_family(f, n, m);
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
 * first layout's columns.  A few layouts per kind (a guest's pve file and
 * its KSM file): each is added once. */
#define LAYOUTS_SEEN 8
static size_t families_of(const struct metrics_file *files, size_t count,
                          struct family *f) {
  const struct rrd_layout *seen[2][LAYOUTS_SEEN] = {{NULL}};
  size_t n = 0;
  for (size_t i = 0; i < count; i++) {
    enum export_kind k = files[i].kind;
    size_t at = 0;
    while (at < LAYOUTS_SEEN && seen[k][at] != NULL &&
           seen[k][at] != files[i].layout)
      at++;
    if (at < LAYOUTS_SEEN && seen[k][at] == files[i].layout)
      continue;
    if (at < LAYOUTS_SEEN)
      seen[k][at] = files[i].layout;
    n = add_families(f, n, files[i].layout, k);
  }
  return n;
}

/* ---- samples ------------------------------------------------------------- */

/* The column of file's layout that feeds f: the family's own column of
 * that kind when the file's layout has it there, else the one named so
 * (a guest's pve file and its KSM file are of one kind, other layouts). */
static int column_of(const struct family *f, const struct metrics_file *file) {
  int c = f->column[file->kind];
  bool node = file->kind == EXPORT_NODE;
  const struct export_metric *m =
      c >= 0 ? export_metric_of(file->layout, node, (size_t)c) : NULL;
  if (m != NULL && same_series(m, f->metric))
    return c;
  for (size_t i = 0; i < file->layout->ds_count; i++) {
    m = export_metric_of(file->layout, node, i);
    if (m != NULL && same_series(m, f->metric))
      return (int)i;
  }
  return -1;
}

static bool sample_of(const struct family *f, const struct metrics_file *file,
                      double *ret) {
  if (file->stale)
    return false; /* its values end: only pve_up says it is there */
  /* the column's own naming: a guest's and a node's share the family */
  int c = column_of(f, file);
  if (c < 0)
    return false;
  const struct export_metric *m =
      export_metric_of(file->layout, file->kind == EXPORT_NODE, (size_t)c);
  double v = file->values[c];
  if (!isfinite(v))
    return false;
  *ret = export_metric_prom_value(m, v);
  return true;
}

/* How one family's samples are written: its name, HELP and TYPE, and the
 * samples' name. */
struct family_text {
  const char *family, *help, *type, *sample;
};

/* A family's HELP and TYPE and samples; nothing when no file has a
 * value. */
static void write_samples(FILE *out, enum export_format format,
                          const struct family *f, const struct family_text *t,
                          const struct metrics_file *files,
                          const char *const *clusters, size_t count) {
  bool meta = false;
  for (size_t i = 0; i < count; i++) {
    double v;
    if (!sample_of(f, &files[i], &v))
      continue;
    if (!meta)
      write_meta(out, t->family, t->help, t->type);
    meta = true;
    char text[EXPORT_VALUE_SIZE];
    export_value_text(v, text);
    fprintf(out, "%s{", t->sample);
    write_id(out, files[i].id, cluster_of(clusters, i));
    fprintf(out, "} %s %lld%s\n", text, (long long)files[i].time,
            format == EXPORT_PROMETHEUS ? "000" : "");
  }
}

/* A counter prometheus-pve-exporter had as a gauge first is written
 * twice, as the exporter 3.8 serves it: under its _total name and, as a
 * gauge of the same values, under the older name (m->older), its HELP
 * saying DEPRECATED.  In OpenMetrics a counter family named X owns the
 * sample name X, which the older gauge needs, so there the _total family
 * is `unknown`: the stored series are the same, and both formats parse
 * without a clash.  A counter without an older name is a counter in both
 * formats, its OpenMetrics family named without _total. */
static void write_counter(FILE *out, enum export_format format,
                          const struct family *f,
                          const struct metrics_file *files,
                          const char *const *clusters, size_t count) {
  const struct export_metric *m = f->metric;
  bool om = format == EXPORT_OPENMETRICS;
  char total[128], help[512];
  snprintf(total, sizeof(total), "%s_total", m->prom);
  struct family_text t = {total, m->help, "counter", total};
  if (m->older == NULL && om)
    t.family = m->prom;
  else if (m->older != NULL && om)
    t.type = "unknown";
  write_samples(out, format, f, &t, files, clusters, count);
  if (m->older == NULL)
    return;
  export_metric_older_help(m, help, sizeof(help));
  t = (struct family_text){m->older, help, "gauge", m->older};
  write_samples(out, format, f, &t, files, clusters, count);
}

void metrics_text_cluster_files(FILE *out, enum export_format format,
                                const struct metrics_file *files,
                                const char *const *clusters, size_t count) {
  struct family f[FAMILIES_MAX];
  size_t n = families_of(files, count, f);
  for (size_t i = 0; i < n; i++) {
    const struct export_metric *m = f[i].metric;
    if (m->counter) {
      write_counter(out, format, &f[i], files, clusters, count);
      continue;
    }
    struct family_text t = {m->prom, m->help, "gauge", m->prom};
    write_samples(out, format, &f[i], &t, files, clusters, count);
  }
}

void metrics_text_files(FILE *out, enum export_format format,
                        const struct metrics_file *files, size_t count) {
  metrics_text_cluster_files(out, format, files, NULL, count);
}

/* name{id="values[0]"[,cluster=...],labels[1]="values[1]",...} 1 (labels[0]
 * is "id") */
static void write_info(FILE *out, const char *name, const char *const *labels,
                       const char *const *values, size_t n,
                       const char *cluster) {
  fprintf(out, "%s{", name);
  write_id(out, values[0] != NULL ? values[0] : "", cluster);
  for (size_t i = 1; i < n; i++) {
    fprintf(out, ",%s=", labels[i]);
    write_label_value(out, values[i] != NULL ? values[i] : "");
  }
  fputs("} 1\n", out);
}

/* The VMs' balloon minimum, for alerts on a guest the host has ballooned
 * down to it (docs/alerts.md). */
static void write_balloons(FILE *out, const struct metrics_guest *guests,
                           const char *const *clusters, size_t count) {
  bool meta = false;
  for (size_t i = 0; i < count; i++) {
    if (!isfinite(guests[i].balloon_min))
      continue;
    if (!meta)
      write_meta(out, "pve_guest_balloon_min_bytes",
                 "The VM's configured balloon minimum in bytes (balloon; 0: "
                 "ballooning off; without one, its memory)",
                 "gauge");
    meta = true;
    char text[EXPORT_VALUE_SIZE];
    export_value_text(guests[i].balloon_min, text);
    fputs("pve_guest_balloon_min_bytes{", out);
    write_id(out, guests[i].id, cluster_of(clusters, i));
    fprintf(out, "} %s\n", text);
  }
}

void metrics_text_guests(FILE *out, const struct metrics_guest *guests,
                         size_t count) {
  metrics_text_cluster_guests(out, guests, NULL, count);
}

void metrics_text_cluster_guests(FILE *out, const struct metrics_guest *guests,
                                 const char *const *clusters, size_t count) {
  /* id, then the labels the exports write too */
  const char *labels[1 + EXPORT_GUEST_INFO_LABELS] = {"id"};
  for (size_t k = 0; k < EXPORT_GUEST_INFO_LABELS; k++)
    labels[1 + k] = export_guest_info_labels[k];
  if (count == 0)
    return;
  write_meta(out, EXPORT_GUEST_INFO, EXPORT_GUEST_INFO_HELP, "gauge");
  for (size_t i = 0; i < count; i++) {
    const struct metrics_guest *g = &guests[i];
    const char *values[1 + EXPORT_GUEST_INFO_LABELS] = {
        g->id,
        [1 + EXPORT_GUEST_INFO_NODE] = g->node,
        [1 + EXPORT_GUEST_INFO_NAME] = g->name,
        [1 + EXPORT_GUEST_INFO_TYPE] = g->type,
        [1 + EXPORT_GUEST_INFO_TEMPLATE] = g->template ? "1" : "0",
        [1 + EXPORT_GUEST_INFO_TAGS] = g->tags};
    write_info(out, EXPORT_GUEST_INFO, labels, values,
               1 + EXPORT_GUEST_INFO_LABELS, cluster_of(clusters, i));
  }
  write_balloons(out, guests, clusters, count);
}

void metrics_text_up(FILE *out, const struct metrics_file *files,
                     size_t count) {
  metrics_text_cluster_up(out, files, NULL, count);
}

void metrics_text_cluster_up(FILE *out, const struct metrics_file *files,
                             const char *const *clusters, size_t count) {
  if (count == 0)
    return;
  write_meta(out, "pve_up",
             "Whether the guest's or node's RRD file gets fresh rows (1) or "
             "has stopped (0)",
             "gauge");
  for (size_t i = 0; i < count; i++) {
    if (files[i].beside)
      continue;
    fputs("pve_up{", out);
    write_id(out, files[i].id, cluster_of(clusters, i));
    fprintf(out, "} %d\n", files[i].stale ? 0 : 1);
  }
}

void metrics_text_nodes(FILE *out, const struct metrics_file *files,
                        size_t count) {
  metrics_text_cluster_nodes(out, files, NULL, count);
}

void metrics_text_cluster_nodes(FILE *out, const struct metrics_file *files,
                                const char *const *clusters, size_t count) {
  static const char *const labels[] = {"id", "level", "name", "nodeid"};
  bool meta = false;
  for (size_t i = 0; i < count; i++) {
    const char *id = files[i].id;
    if (files[i].kind != EXPORT_NODE || files[i].beside ||
        strncmp(id, "node/", 5) != 0)
      continue;
    if (!meta)
      write_meta(out, "pve_node_info", "Node info", "gauge");
    meta = true;
    /* level (the subscription) and nodeid (corosync's) are in no RRD
     * file: empty, as the exporter gives a missing key */
    const char *values[] = {id, "", id + 5, ""};
    write_info(out, "pve_node_info", labels, values, 4,
               cluster_of(clusters, i));
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

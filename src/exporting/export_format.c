/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Graphite, InfluxDB line protocol, CSV and JSON lines for `pvecg export`
 * (see export_format.h).  Every check that can refuse a source runs before
 * the first byte is written, so a refused row leaves no partial line.
 */
#include "pvecg/export_format.h"

#include "export_pve.h"
#include "export_text.h"
#include "pvecg/json_writer.h"
#include "pvecg/rrd_row.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static const char *const format_names[] = {
    [EXPORT_GRAPHITE] = "graphite",
    [EXPORT_INFLUX] = "influx",
    [EXPORT_CSV] = "csv",
    [EXPORT_JSON] = "json",
    [EXPORT_OPENMETRICS] = "openmetrics",
    [EXPORT_PROMETHEUS] = "prometheus",
    [EXPORT_REMOTE_WRITE] = "remote-write",
};

int export_format_parse(const char *name, enum export_format *ret) {
  for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
    if (name != NULL && strcmp(name, format_names[i]) == 0) {
      *ret = (enum export_format)i;
      return 0;
    }
  return -EINVAL;
}

/* ---- graphite ----------------------------------------------------------- */

static int graphite_row(const struct export_source *src, time_t t,
                        const double *values, FILE *out,
                        struct export_count *ret) {
  if (export_prefix_problem(src->prefix) != NULL || src->name[0] == '\0')
    return -EINVAL;
  struct export_count count = {0};
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    if (!isfinite(values[i]))
      continue;
    char text[EXPORT_VALUE_SIZE];
    export_value_text(values[i], text);
    fprintf(out, "%s.", src->prefix);
    if (EXPORT_SOURCE_CLUSTERED(src)) {
      export_graphite_level(src->cluster, out);
      fputc('.', out);
    }
    fprintf(out, "%s.", src->kind == EXPORT_VM ? "vm" : "node");
    export_graphite_level(src->name, out);
    fputc('.', out);
    export_graphite_level(src->layout->ds[i].name, out);
    fprintf(out, " %s %lld\n", text, (long long)t);
    count.lines++;
    count.values++;
  }
  *ret = count;
  return 0;
}

/* ---- influx ------------------------------------------------------------- */

static int influx_check(const struct export_source *src) {
  if (!export_influx_can_write(src->prefix) || src->prefix[0] == '#' ||
      !export_influx_can_write(src->name) ||
      (EXPORT_SOURCE_CLUSTERED(src) && !export_influx_can_write(src->cluster)))
    return -EINVAL;
  for (size_t i = 0; i < src->layout->ds_count; i++)
    if (!export_influx_can_write(src->layout->ds[i].name))
      return -EINVAL;
  return 0;
}

static int influx_row(const struct export_source *src, time_t t,
                      const double *values, FILE *out,
                      struct export_count *ret) {
  int r = influx_check(src);
  if (r < 0)
    return r;
  int64_t scale = export_time_scale(src);
  if (t > INT64_MAX / scale || t < INT64_MIN / scale)
    return -ERANGE;
  struct export_count count = {0};
  if (export_all_unknown(values, src->layout->ds_count)) {
    *ret = count;
    return 0;
  }
  bool vm = src->kind == EXPORT_VM;
  export_influx_escaped(src->prefix, INFLUX_MEASUREMENT_SPECIALS, out);
  fputs(vm ? "_vm,vmid=" : "_node,node=", out);
  export_influx_escaped(src->name, INFLUX_KEY_SPECIALS, out);
  if (EXPORT_SOURCE_CLUSTERED(src)) {
    fputs(",cluster=", out);
    export_influx_escaped(src->cluster, INFLUX_KEY_SPECIALS, out);
  }
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    if (!isfinite(values[i]))
      continue;
    char text[EXPORT_VALUE_SIZE];
    export_value_text(values[i], text);
    fputc(count.values == 0 ? ' ' : ',', out);
    export_influx_escaped(src->layout->ds[i].name, INFLUX_KEY_SPECIALS, out);
    fprintf(out, "=%s", text);
    count.values++;
  }
  fprintf(out, " %" PRId64 "\n", (int64_t)t * scale);
  count.lines = 1;
  *ret = count;
  return 0;
}

/* ---- csv ---------------------------------------------------------------- */

/* RFC 4180: a field with a comma, quote or line break is quoted, with its
 * quotes doubled. */
static void csv_field(const char *s, FILE *out) {
  if (strpbrk(s, ",\"\r\n") == NULL) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s != '\0'; s++) {
    if (*s == '"')
      fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void csv_header(const struct export_source *src, FILE *out) {
  fputs(src->cluster != NULL ? "cluster,file,time" : "file,time", out);
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    fputc(',', out);
    csv_field(src->layout->ds[i].name, out);
  }
  fputc('\n', out);
}

static int csv_record(const struct export_source *src, time_t t,
                      const double *values, FILE *out,
                      struct export_count *ret) {
  struct export_count count = {0};
  if (export_all_unknown(values, src->layout->ds_count)) {
    *ret = count;
    return 0;
  }
  if (src->cluster != NULL) {
    csv_field(src->cluster, out);
    fputc(',', out);
  }
  csv_field(src->file, out);
  fprintf(out, ",%lld", (long long)t);
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    fputc(',', out);
    if (!isfinite(values[i]))
      continue;
    char text[EXPORT_VALUE_SIZE];
    export_value_text(values[i], text);
    fputs(text, out);
    count.values++;
  }
  fputc('\n', out);
  count.lines = 1;
  *ret = count;
  return 0;
}

/* ---- json --------------------------------------------------------------- */

static int json_row(const struct export_source *src, time_t t,
                    const double *values, FILE *out, struct export_count *ret) {
  uint32_t vmid = 0;
  if (src->kind == EXPORT_VM && vmid_parse_string(src->name, &vmid) < 0)
    return -EINVAL;
  struct export_count count = {0};
  if (export_all_unknown(values, src->layout->ds_count)) {
    *ret = count;
    return 0;
  }
  struct json_writer w;
  json_writer_init(&w, out);
  json_begin_object(&w);
  json_key(&w, "file");
  json_string(&w, src->file);
  if (src->cluster != NULL) {
    json_key(&w, "cluster");
    json_string(&w, src->cluster);
  }
  json_key(&w, src->kind == EXPORT_VM ? "vmid" : "node");
  if (src->kind == EXPORT_VM)
    json_uint(&w, vmid);
  else
    json_string(&w, src->name);
  json_key(&w, "time");
  json_int(&w, (int64_t)t);
  if (src->step > 0) {
    json_key(&w, "step");
    json_uint(&w, src->step);
  }
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    if (!isfinite(values[i]))
      continue;
    char text[EXPORT_VALUE_SIZE];
    export_value_text(values[i], text);
    json_key(&w, src->layout->ds[i].name);
    json_raw(&w, text);
    count.values++;
  }
  json_end_object(&w);
  fputc('\n', out);
  count.lines = 1;
  *ret = count;
  return 0;
}

/* ---- dispatch ----------------------------------------------------------- */

int export_format_header(enum export_format format,
                         const struct export_source *src, FILE *out) {
  if (format == EXPORT_CSV)
    csv_header(src, out);
  return 0;
}

int export_format_row(enum export_format format,
                      const struct export_source *src, time_t t,
                      const double *values, FILE *out,
                      struct export_count *ret) {
  bool pve = src->names == EXPORT_NAMES_PVE;
  switch (format) {
  case EXPORT_GRAPHITE:
    return pve ? export_pve_row(false, src, t, values, out, ret)
               : graphite_row(src, t, values, out, ret);
  case EXPORT_INFLUX:
    return pve ? export_pve_row(true, src, t, values, out, ret)
               : influx_row(src, t, values, out, ret);
  case EXPORT_CSV:
    return csv_record(src, t, values, out, ret);
  case EXPORT_JSON:
    return json_row(src, t, values, out, ret);
  case EXPORT_OPENMETRICS:
  case EXPORT_PROMETHEUS:
  case EXPORT_REMOTE_WRITE:
    break; /* a whole file at a time: export_openmetrics.h */
  }
  return -EINVAL;
}

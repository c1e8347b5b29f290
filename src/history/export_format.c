/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Graphite, InfluxDB line protocol, CSV and JSON lines for `pvecg export`
 * (see export_format.h).  Every check that can refuse a source runs before
 * the first byte is written, so a refused row leaves no partial line.
 */
#include "pvecg/export_format.h"

#include "pvecg/json_writer.h"
#include "pvecg/rrd_row.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define PREFIX_MAX 64
/* rrd_row_format_gauge's longest form ("-1.2345678901234567e-308"). */
#define VALUE_TEXT_SIZE 32
#define NS_PER_S INT64_C(1000000000)

static const char *const format_names[] = {
    [EXPORT_GRAPHITE] = "graphite",
    [EXPORT_INFLUX] = "influx",
    [EXPORT_CSV] = "csv",
    [EXPORT_JSON] = "json",
};

int export_format_parse(const char *name, enum export_format *ret) {
  for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
    if (name != NULL && strcmp(name, format_names[i]) == 0) {
      *ret = (enum export_format)i;
      return 0;
    }
  return -EINVAL;
}

static bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-';
}

const char *export_prefix_problem(const char *prefix) {
  size_t len = prefix ? strlen(prefix) : 0;
  if (len == 0)
    return "it is empty";
  if (len > PREFIX_MAX)
    return "it is longer than 64 bytes";
  for (size_t i = 0; i < len; i++) {
    if (prefix[i] == '.') {
      /* A dot separates path levels: none may be empty. */
      if (i == 0 || i == len - 1 || prefix[i + 1] == '.')
        return "it has an empty part between dots";
    } else if (!is_word_char(prefix[i])) {
      return "only letters, digits, '_', '-' and '.' may be used";
    }
  }
  return NULL;
}

static bool all_unknown(const double *values, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (isfinite(values[i]))
      return false;
  return true;
}

/* A value as rrd_row_format_gauge writes it into a row; known values only. */
static void value_text(double value, char text[VALUE_TEXT_SIZE]) {
  if (rrd_row_format_gauge(value, text, VALUE_TEXT_SIZE) < 0)
    snprintf(text, VALUE_TEXT_SIZE, "%.17g", value); /* cannot happen */
}

/* ---- graphite ----------------------------------------------------------- */

/* One path level: anything but letters, digits, '_' and '-' would change
 * the path's shape (a '.', a space, a newline), so it becomes '_', as
 * collectd's write_graphite does. */
static void graphite_level(const char *s, FILE *out) {
  for (; *s != '\0'; s++)
    fputc(is_word_char(*s) ? *s : '_', out);
}

static int graphite_row(const struct export_source *src, time_t t,
                        const double *values, FILE *out,
                        struct export_count *ret) {
  if (export_prefix_problem(src->prefix) != NULL || src->name[0] == '\0')
    return -EINVAL;
  struct export_count count = {0};
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    if (!isfinite(values[i]))
      continue;
    char text[VALUE_TEXT_SIZE];
    value_text(values[i], text);
    fprintf(out, "%s.%s.", src->prefix, src->kind == EXPORT_VM ? "vm" : "node");
    graphite_level(src->name, out);
    fputc('.', out);
    graphite_level(src->layout->ds[i].name, out);
    fprintf(out, " %s %lld\n", text, (long long)t);
    count.lines++;
    count.values++;
  }
  *ret = count;
  return 0;
}

/* ---- influx ------------------------------------------------------------- */

/* Whether line protocol can carry s as a tag value or key: not empty, no
 * control character (a newline ends the line and cannot be escaped), and
 * no trailing backslash (it would escape the separator after it). */
static bool influx_can_write(const char *s) {
  size_t len = strlen(s);
  if (len == 0 || s[len - 1] == '\\')
    return false;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
      return false;
  return true;
}

/* Writes s with a backslash before every character of specials. */
static void influx_escaped(const char *s, const char *specials, FILE *out) {
  for (; *s != '\0'; s++) {
    if (strchr(specials, *s) != NULL)
      fputc('\\', out);
    fputc(*s, out);
  }
}

#define INFLUX_KEY_SPECIALS ", ="
#define INFLUX_MEASUREMENT_SPECIALS ", "

static int influx_check(const struct export_source *src) {
  if (!influx_can_write(src->prefix) || src->prefix[0] == '#' ||
      !influx_can_write(src->name))
    return -EINVAL;
  for (size_t i = 0; i < src->layout->ds_count; i++)
    if (!influx_can_write(src->layout->ds[i].name))
      return -EINVAL;
  return 0;
}

static int influx_row(const struct export_source *src, time_t t,
                      const double *values, FILE *out,
                      struct export_count *ret) {
  int r = influx_check(src);
  if (r < 0)
    return r;
  if (t > INT64_MAX / NS_PER_S || t < INT64_MIN / NS_PER_S)
    return -ERANGE;
  struct export_count count = {0};
  if (all_unknown(values, src->layout->ds_count)) {
    *ret = count;
    return 0;
  }
  bool vm = src->kind == EXPORT_VM;
  influx_escaped(src->prefix, INFLUX_MEASUREMENT_SPECIALS, out);
  fputs(vm ? "_vm,vmid=" : "_node,node=", out);
  influx_escaped(src->name, INFLUX_KEY_SPECIALS, out);
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    if (!isfinite(values[i]))
      continue;
    char text[VALUE_TEXT_SIZE];
    value_text(values[i], text);
    fputc(count.values == 0 ? ' ' : ',', out);
    influx_escaped(src->layout->ds[i].name, INFLUX_KEY_SPECIALS, out);
    fprintf(out, "=%s", text);
    count.values++;
  }
  fprintf(out, " %" PRId64 "\n", (int64_t)t * NS_PER_S);
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
  fputs("file,time", out);
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    fputc(',', out);
    csv_field(src->layout->ds[i].name, out);
  }
  fputc('\n', out);
}

static int csv_row(const struct export_source *src, time_t t,
                   const double *values, FILE *out, struct export_count *ret) {
  struct export_count count = {0};
  if (all_unknown(values, src->layout->ds_count)) {
    *ret = count;
    return 0;
  }
  csv_field(src->file, out);
  fprintf(out, ",%lld", (long long)t);
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    fputc(',', out);
    if (!isfinite(values[i]))
      continue;
    char text[VALUE_TEXT_SIZE];
    value_text(values[i], text);
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
  if (all_unknown(values, src->layout->ds_count)) {
    *ret = count;
    return 0;
  }
  struct json_writer w;
  json_writer_init(&w, out);
  json_begin_object(&w);
  json_key(&w, "file");
  json_string(&w, src->file);
  json_key(&w, src->kind == EXPORT_VM ? "vmid" : "node");
  if (src->kind == EXPORT_VM)
    json_uint(&w, vmid);
  else
    json_string(&w, src->name);
  json_key(&w, "time");
  json_int(&w, (int64_t)t);
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    if (!isfinite(values[i]))
      continue;
    char text[VALUE_TEXT_SIZE];
    value_text(values[i], text);
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
  switch (format) {
  case EXPORT_GRAPHITE:
    return graphite_row(src, t, values, out, ret);
  case EXPORT_INFLUX:
    return influx_row(src, t, values, out, ret);
  case EXPORT_CSV:
    return csv_row(src, t, values, out, ret);
  case EXPORT_JSON:
    return json_row(src, t, values, out, ret);
  }
  return -EINVAL;
}

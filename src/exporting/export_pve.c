/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rows in Proxmox's InfluxDB and Graphite forms (see export_pve.h).  A
 * row's columns fall into groups (measurement + instance) in the order of
 * the layout; each group with a known value is one InfluxDB line.
 */
#include "export_pve.h"

#include "export_line.h"
#include "export_text.h"
#include "pvecg/export_names.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_node(const struct export_source *src) {
  return src->kind == EXPORT_NODE;
}

/* The source's columns as named for its file, or named now. */
static const struct export_columns *columns_of(const struct export_source *src,
                                               struct export_columns *local) {
  if (src->columns != NULL)
    return src->columns;
  export_columns_of(src->layout, is_node(src), local);
  return local;
}

/* ---- plain decimals ----------------------------------------------------- */

/* "d.ddde[+-]x" -> digits and the decimal point's position in them. */
static int expand(const char *text, char *buf, size_t size) {
  char digits[EXPORT_VALUE_SIZE];
  size_t n = 0, len = 0;
  bool neg = text[0] == '-';
  const char *p = text + neg, *e = strchr(p, 'e');
  for (; p < e; p++)
    if (*p != '.')
      digits[n++] = *p;
  long point = strtol(e + 1, NULL, 10) + 1; /* digits before the point */
  char *out = buf;
#define PUT(c)                                                                 \
  do {                                                                         \
    if (len + 1 >= size)                                                       \
      return -ERANGE;                                                          \
    out[len++] = (c);                                                          \
  } while (0)
  if (neg)
    PUT('-');
  if (point <= 0) {
    PUT('0');
    PUT('.');
    for (long z = point; z < 0; z++)
      PUT('0');
  }
  for (size_t i = 0; i < n; i++) {
    if (point > 0 && (long)i == point)
      PUT('.');
    PUT(digits[i]);
  }
  for (long z = (long)n; z < point; z++)
    PUT('0');
#undef PUT
  out[len] = '\0';
  return (int)len;
}

int export_plain_number(double v, char *buf, size_t size) {
  char text[EXPORT_VALUE_SIZE];
  export_value_text(v, text);
  if (strchr(text, 'e') != NULL)
    return expand(text, buf, size);
  if (strlen(text) >= size)
    return -ERANGE;
  return snprintf(buf, size, "%s", text);
}

/* ---- influx ------------------------------------------------------------- */

static bool influx_can_name(const struct export_source *src) {
  if (!export_influx_can_write(src->name) ||
      (EXPORT_SOURCE_CLUSTERED(src) && !export_influx_can_write(src->cluster)))
    return false;
  return is_node(src) ||
         (export_influx_can_write(src->object) &&
          export_influx_can_write(src->nodename) &&
          (src->title[0] == '\0' || export_influx_can_write(src->title)));
}

static void influx_tag(const char *key, const char *value,
                       struct export_line *l) {
  export_line_putc(l, ',');
  export_line_puts(l, key);
  export_line_putc(l, '=');
  export_line_escaped(l, value, INFLUX_KEY_SPECIALS);
}

/* The measurement and tags of column i's group. */
static void influx_head(const struct export_source *src,
                        const struct export_metric *m, struct export_line *l) {
  export_line_puts(l, m->measurement);
  if (is_node(src)) {
    influx_tag("object", "nodes", l);
    influx_tag("host", src->name, l);
  } else {
    influx_tag("object", src->object, l);
    influx_tag("vmid", src->name, l);
    influx_tag("nodename", src->nodename, l);
    if (src->title[0] != '\0')
      influx_tag("host", src->title, l);
  }
  if (m->instance != NULL)
    influx_tag("instance", m->instance, l);
  if (EXPORT_SOURCE_CLUSTERED(src))
    influx_tag("cluster", src->cluster, l);
}

/* One line: every known value of the group that column first begins. */
static void influx_group(const struct export_source *src,
                         const struct export_columns *cols, size_t first,
                         time_t t, const double *values, FILE *out,
                         struct export_count *count) {
  const struct export_metric *g = cols->metric[first];
  struct export_line line = {.out = out};
  size_t known = 0;
  for (size_t i = first; i < src->layout->ds_count; i++) {
    const struct export_metric *m = cols->metric[i];
    if (m == NULL || cols->group[i] != first || !isfinite(values[i]))
      continue;
    char text[EXPORT_VALUE_SIZE];
    export_value_text(values[i], text);
    if (known++ == 0)
      influx_head(src, g, &line);
    export_line_putc(&line, known == 1 ? ' ' : ',');
    export_line_puts(&line, m->field);
    export_line_putc(&line, '=');
    export_line_puts(&line, text);
  }
  if (known == 0)
    return;
  export_line_putc(&line, ' ');
  export_line_int(&line, (int64_t)t * export_time_scale(src));
  export_line_putc(&line, '\n');
  export_line_flush(&line);
  count->lines++;
  count->values += known;
}

static int influx_row(const struct export_source *src, time_t t,
                      const double *values, FILE *out,
                      struct export_count *ret) {
  if (!influx_can_name(src))
    return -EINVAL;
  int64_t scale = export_time_scale(src);
  if (t > INT64_MAX / scale || t < INT64_MIN / scale)
    return -ERANGE;
  struct export_columns local;
  const struct export_columns *cols = columns_of(src, &local);
  struct export_count count = {0};
  for (size_t i = 0; i < src->layout->ds_count; i++)
    if (cols->metric[i] != NULL && cols->group[i] == i)
      influx_group(src, cols, i, t, values, out, &count);
  *ret = count;
  return 0;
}

/* ---- graphite ----------------------------------------------------------- */

/* <prefix>.<object>.<vmid>.<field>; for nodes <prefix>.nodes.<node>.
 * [<measurement>.][<instance>.]<field>, the measurement left out for
 * `system` (where pvestatd's top-level values go).  A named cluster's
 * files have <prefix>.<cluster>. in front: what a Proxmox cluster's own
 * metric server sends when its path is set to that. */
static void graphite_path(const struct export_source *src,
                          const struct export_metric *m, FILE *out) {
  fprintf(out, "%s.", src->prefix);
  if (EXPORT_SOURCE_CLUSTERED(src)) {
    export_graphite_level(src->cluster, out);
    fputc('.', out);
  }
  fprintf(out, "%s.", is_node(src) ? "nodes" : src->object);
  export_graphite_level(src->name, out);
  if (is_node(src) && strcmp(m->measurement, "system") != 0)
    fprintf(out, ".%s", m->measurement);
  if (m->instance != NULL)
    fprintf(out, ".%s", m->instance);
  fprintf(out, ".%s", m->field);
}

static int graphite_row(const struct export_source *src, time_t t,
                        const double *values, FILE *out,
                        struct export_count *ret) {
  if (export_prefix_problem(src->prefix) != NULL || src->name[0] == '\0' ||
      (!is_node(src) && src->object[0] == '\0'))
    return -EINVAL;
  struct export_columns local;
  const struct export_columns *cols = columns_of(src, &local);
  struct export_count count = {0};
  for (size_t i = 0; i < src->layout->ds_count; i++) {
    const struct export_metric *m = cols->metric[i];
    char text[EXPORT_PLAIN_SIZE];
    if (m == NULL || !isfinite(values[i]) ||
        export_plain_number(values[i], text, sizeof(text)) < 0)
      continue;
    graphite_path(src, m, out);
    fprintf(out, " %s %lld\n", text, (long long)t);
    count.lines++;
    count.values++;
  }
  *ret = count;
  return 0;
}

int export_pve_row(bool influx, const struct export_source *src, time_t t,
                   const double *values, FILE *out, struct export_count *ret) {
  return influx ? influx_row(src, t, values, out, ret)
                : graphite_row(src, t, values, out, ret);
}

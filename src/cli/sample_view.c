/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table and JSON of `pvecg sample` (see sample_view.h).
 */
#include "sample_view.h"

#include "pvecg/grow.h"
#include "pvecg/json_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define BYTES_SIZE 16
#define NUMBER_SIZE 32
#define UNKNOWN "-"

int sample_view_add(struct sample_view *v, const struct guest_sample *s) {
  struct sample_guest *grown =
      grow_array(v->guest, v->count + 1, &v->capacity, sizeof(*grown), 32);
  if (grown == NULL)
    return -ENOMEM;
  v->guest = grown;
  struct sample_guest g = {.vmid = s->vmid,
                           .type = s->type,
                           .memhost_valid = s->memory_valid,
                           .memhost = s->memory_used};
  if (s->name != NULL && s->name[0] != '\0' &&
      (g.name = strdup(s->name)) == NULL)
    return -ENOMEM;
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++) {
    g.some_valid[r] = s->psi_valid[r];
    g.some[r] = s->psi[r].some.avg10;
    g.full_valid[r] = s->psi_valid[r] && s->psi[r].has_full;
    g.full[r] = s->psi[r].full.avg10;
  }
  g.swap_valid = s->memory_detail.valid & (1u << MEMORY_SWAP);
  g.swap = s->memory_detail.bytes[MEMORY_SWAP];
  v->guest[v->count++] = g;
  return 0;
}

static int compare_guests(const void *a, const void *b) {
  const struct sample_guest *x = a, *y = b;
  uint64_t kx = guest_key(x->type, x->vmid), ky = guest_key(y->type, y->vmid);
  return kx < ky ? -1 : kx > ky;
}

void sample_view_sort(struct sample_view *v) {
  if (v->count > 1)
    qsort(v->guest, v->count, sizeof(*v->guest), compare_guests);
}

void sample_view_clear(struct sample_view *v) {
  for (size_t i = 0; i < v->count; i++)
    free(v->guest[i].name);
  v->count = 0;
}

void sample_view_free(struct sample_view *v) {
  sample_view_clear(v);
  free(v->guest);
  *v = (struct sample_view){0};
}

void sample_format_bytes(uint64_t bytes, char *buf, size_t size) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    snprintf(buf, size, "%" PRIu64 " B", bytes);
    return;
  }
  double v = (double)bytes / 1024;
  size_t u = 0;
  /* Step up before "1024.0 KiB" would be printed. */
  while (v >= 1023.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
    v /= 1024;
    u++;
  }
  snprintf(buf, size, "%.1f %s", v, units[u]);
}

/* ---- table -------------------------------------------------------------- */

static void bytes_cell(bool valid, uint64_t bytes, char buf[BYTES_SIZE]) {
  if (valid)
    sample_format_bytes(bytes, buf, BYTES_SIZE);
  else
    snprintf(buf, BYTES_SIZE, UNKNOWN);
}

static void pressure_cell(bool valid, double avg10, char buf[NUMBER_SIZE]) {
  if (valid)
    snprintf(buf, NUMBER_SIZE, "%.2f", avg10);
  else
    snprintf(buf, NUMBER_SIZE, UNKNOWN);
}

static int name_width(const struct sample_view *v) {
  size_t w = strlen("NAME");
  for (size_t i = 0; i < v->count; i++)
    if (v->guest[i].name != NULL && strlen(v->guest[i].name) > w)
      w = strlen(v->guest[i].name);
  return w > 40 ? 40 : (int)w;
}

static void table_row(const struct sample_guest *g, int nw, FILE *out) {
  char mem[BYTES_SIZE], swap[BYTES_SIZE];
  bytes_cell(g->memhost_valid, g->memhost, mem);
  bytes_cell(g->swap_valid, g->swap, swap);
  fprintf(out, "%9" PRIu32 " %-4s %-*.*s %10s", g->vmid,
          guest_type_name(g->type), nw, nw, g->name ? g->name : UNKNOWN, mem);
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++) {
    char some[NUMBER_SIZE], full[NUMBER_SIZE];
    pressure_cell(g->some_valid[r], g->some[r], some);
    pressure_cell(g->full_valid[r], g->full[r], full);
    fprintf(out, " %8s %8s", some, full);
  }
  fprintf(out, " %10s\n", swap);
}

void sample_view_table(const struct sample_view *v, FILE *out) {
  int nw = name_width(v);
  fprintf(out, "%9s %-4s %-*s %10s %8s %8s %8s %8s %8s %8s %10s\n", "VMID",
          "TYPE", nw, "NAME", "MEMHOST", "CPU-SOME", "CPU-FULL", "IO-SOME",
          "IO-FULL", "MEM-SOME", "MEM-FULL", "SWAP");
  for (size_t i = 0; i < v->count; i++)
    table_row(&v->guest[i], nw, out);
  fprintf(out, "%zu guest%s sampled in %" PRIu64 " us\n", v->count,
          v->count == 1 ? "" : "s", v->took_us);
}

/* ---- json --------------------------------------------------------------- */

static void json_bytes(struct json_writer *w, const char *key, bool valid,
                       uint64_t bytes) {
  json_key(w, key);
  if (valid)
    json_uint(w, bytes);
  else
    json_null(w);
}

static void json_pressure(struct json_writer *w, const char *res,
                          const char *line, bool valid, double avg10) {
  char key[NUMBER_SIZE];
  snprintf(key, sizeof(key), "pressure%s%s", res, line);
  json_key(w, key);
  if (valid)
    json_number(w, avg10);
  else
    json_null(w);
}

static void json_guest(struct json_writer *w, const struct sample_guest *g) {
  json_begin_object(w);
  json_key(w, "vmid");
  json_uint(w, g->vmid);
  json_key(w, "type");
  json_string(w, guest_type_name(g->type));
  json_key(w, "name");
  if (g->name != NULL)
    json_string(w, g->name);
  else
    json_null(w);
  json_bytes(w, "memhost", g->memhost_valid, g->memhost);
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++) {
    const char *res = psi_resource_name((enum psi_resource)r);
    json_pressure(w, res, "some", g->some_valid[r], g->some[r]);
    json_pressure(w, res, "full", g->full_valid[r], g->full[r]);
  }
  json_bytes(w, "swap", g->swap_valid, g->swap);
  json_end_object(w);
}

void sample_view_json(const struct sample_view *v, FILE *out) {
  struct json_writer w;
  json_writer_init(&w, out);
  json_begin_object(&w);
  json_key(&w, "time");
  json_int(&w, (int64_t)v->time);
  json_key(&w, "took_us");
  json_uint(&w, v->took_us);
  json_key(&w, "guests");
  json_begin_array(&w);
  for (size_t i = 0; i < v->count; i++)
    json_guest(&w, &v->guest[i]);
  json_end_array(&w);
  json_end_object(&w);
  fputc('\n', out);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collisions pve_rrd remembers, read for /metrics and the overview
 * (see serve_collisions.h).
 */
#include "serve_collisions.h"

#include "pvecg/grow.h"
#include "pvecg/json_writer.h"
#include "pvecg/rrd_owner_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int serve_collisions_read(const char *dir, struct serve_collision **ret,
                          size_t *count) {
  struct rrd_owner_records f = {0};
  struct serve_collision *c = NULL;
  size_t n = 0, size = 0;
  const char *owner = "";
  if (dir != NULL)
    rrd_owner_file_read(dir, &f);
  for (size_t i = 0; i < f.count; i++) {
    const struct rrd_owner_record *r = &f.r[i];
    if (i == 0 || !rrd_owner_same_file(r, &f.r[i - 1]))
      owner = ""; /* the records come by file, its owner first */
    if (r->kind == RRD_OWNER_RECORD_OWNER) {
      owner = r->host;
      continue;
    }
    struct serve_collision *grown = grow_array(c, n + 1, &size, sizeof(*c), 8);
    if (grown == NULL) {
      free(c);
      free(f.r);
      return -ENOMEM;
    }
    c = grown;
    memcpy(c[n].cluster, r->cluster, sizeof(c[n].cluster));
    memcpy(c[n].vmid, r->name, sizeof(c[n].vmid));
    snprintf(c[n].owner, sizeof(c[n].owner), "%s", owner);
    memcpy(c[n].other, r->host, sizeof(c[n].other));
    c[n++].since = r->since;
  }
  free(f.r);
  *ret = c;
  *count = n;
  return 0;
}

/* A label value: '\', '"' and newlines escaped, as Prometheus wants. */
static void label_value(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '\\' || *s == '"')
      fputc('\\', out);
    if (*s == '\n')
      fputs("\\n", out);
    else
      fputc(*s, out);
  }
}

static void labels(FILE *out, const struct serve_collision *c) {
  fputs("{vmid=\"", out);
  label_value(out, c->vmid);
  fputs("\",owner=\"", out);
  label_value(out, c->owner);
  fputs("\",other=\"", out);
  label_value(out, c->other);
  if (c->cluster[0] != '\0') {
    fputs("\",cluster=\"", out);
    label_value(out, c->cluster);
  }
  fputs("\"}", out);
}

void serve_collisions_metrics(FILE *out, const struct serve_collision *c,
                              size_t count) {
  fputs("# HELP pvecg_guest_collisions A host seen reporting a VMID whose "
        "file another host owns, at the same time: its rows are refused "
        "(pvecg check --owners)\n"
        "# TYPE pvecg_guest_collisions gauge\n",
        out);
  for (size_t i = 0; i < count; i++) {
    fputs("pvecg_guest_collisions", out);
    labels(out, &c[i]);
    fputs(" 1\n", out);
  }
  fputs("# HELP pvecg_guest_collision_since_seconds When the host was first "
        "seen colliding, in seconds since the epoch\n"
        "# TYPE pvecg_guest_collision_since_seconds gauge\n",
        out);
  for (size_t i = 0; i < count; i++) {
    fputs("pvecg_guest_collision_since_seconds", out);
    labels(out, &c[i]);
    fprintf(out, " %lld\n", c[i].since);
  }
}

static bool of_guest(const struct serve_collision *c, const char *cluster,
                     const char *vmid) {
  return strcmp(c->cluster, cluster) == 0 && strcmp(c->vmid, vmid) == 0;
}

void serve_collisions_json(struct json_writer *w,
                           const struct serve_collision *c, size_t count,
                           const char *cluster, const char *vmid) {
  bool any = false;
  cluster = cluster != NULL ? cluster : "";
  for (size_t i = 0; i < count; i++) {
    if (!of_guest(&c[i], cluster, vmid))
      continue;
    if (!any) {
      json_key(w, "collisions");
      json_begin_array(w);
      any = true;
    }
    json_begin_object(w);
    json_key(w, "owner");
    json_string(w, c[i].owner);
    json_key(w, "other");
    json_string(w, c[i].other);
    json_key(w, "since");
    json_int(w, c[i].since);
    json_end_object(w);
  }
  if (any)
    json_end_array(w);
}

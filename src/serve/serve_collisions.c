/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collisions pve_rrd remembers, read for /metrics and the overview
 * (see serve_collisions.h).
 */
#include "serve_collisions.h"

#include "pvecg/grow.h"
#include "pvecg/json_writer.h"
#include "pvecg/rrd_owner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct found {
  struct serve_collision *c;
  size_t n, size;
  const char *owner; /* of the file whose records come, "": none */
  const char *name;  /* that file's name in the table */
};

/* The records come by file, its owner first. */
static int take(const struct rrd_owner_record *r, void *ctx) {
  struct found *f = ctx;
  if (r->name != f->name) /* the table's own names: one per file */
    f->owner = "";
  f->name = r->name;
  if (!r->collision) {
    f->owner = r->host;
    return 0;
  }
  struct serve_collision *grown =
      grow_array(f->c, f->n + 1, &f->size, sizeof(*f->c), 8);
  if (grown == NULL)
    return -ENOMEM;
  f->c = grown;
  struct serve_collision *c = &f->c[f->n++];
  snprintf(c->cluster, sizeof(c->cluster), "%s", r->cluster);
  snprintf(c->vmid, sizeof(c->vmid), "%s", r->name);
  snprintf(c->owner, sizeof(c->owner), "%s", f->owner);
  snprintf(c->other, sizeof(c->other), "%s", r->host);
  c->since = r->since;
  return 0;
}

int serve_collisions_read(const char *dir, struct serve_collision **ret,
                          size_t *count) {
  struct found f = {.owner = ""};
  struct rrd_owner *o;
  struct rrd_owner_read read;
  if (rrd_owner_new(NULL, &o) != 0)
    return -ENOMEM;
  if (dir != NULL)
    rrd_owner_file_load(dir, o, 0, &read);
  int r = rrd_owner_each(o, take, &f); /* the table is this reader's own */
  rrd_owner_free(o);
  if (r != 0)
    free(f.c);
  *ret = r == 0 ? f.c : NULL;
  *count = r == 0 ? f.n : 0;
  return r;
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collisions pve_rrd remembers, read for /metrics and the overview
 * (see serve_collisions.h).
 */
#include "serve_collisions.h"

#include "pvecg/grow.h"
#include "pvecg/json_writer.h"
#include "pvecg/rrd_owner_disk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct reading {
  struct serve_collision *c;
  size_t count, size;
  char owner[RRD_OWNER_HOST_SIZE]; /* of the file being read */
  struct rrd_owner_record file;    /* its key */
  int err;
};

static bool same_file(const struct rrd_owner_record *a,
                      const struct rrd_owner_record *b) {
  return a->layout == b->layout && strcmp(a->cluster, b->cluster) == 0 &&
         strcmp(a->name, b->name) == 0;
}

/* The records come by file, its owner first. */
static int take(const struct rrd_owner_record *r, void *ctx) {
  struct reading *d = ctx;
  if (!same_file(r, &d->file)) {
    d->file = *r;
    d->owner[0] = '\0';
  }
  if (r->kind == RRD_OWNER_RECORD_OWNER)
    snprintf(d->owner, sizeof(d->owner), "%s", r->host);
  if (r->kind != RRD_OWNER_RECORD_COLLISION)
    return 0;
  struct serve_collision *grown =
      grow_array(d->c, d->count + 1, &d->size, sizeof(*d->c), 8);
  if (grown == NULL)
    return d->err = -ENOMEM;
  d->c = grown;
  struct serve_collision *c = &d->c[d->count++];
  memcpy(c->cluster, r->cluster, sizeof(c->cluster));
  memcpy(c->vmid, r->name, sizeof(c->vmid));
  memcpy(c->owner, d->owner, sizeof(c->owner));
  memcpy(c->other, r->host, sizeof(c->other));
  c->since = r->since;
  return 0;
}

int serve_collisions_read(const char *dir, struct serve_collision **ret,
                          size_t *count) {
  struct reading d = {0};
  struct rrd_owner_file_problems p;
  if (dir != NULL)
    rrd_owner_disk_read(dir, take, &d, &p);
  if (d.err != 0) {
    free(d.c);
    return d.err;
  }
  *ret = d.c;
  *count = d.count;
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

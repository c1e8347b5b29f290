/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The overview (see serve_overview.h): the listings' files, every
 * cluster's (serve_cluster.h) in the listing's order, each read twice -- its
 * header for the newest values (serve_read_last, the reader /metrics uses) and
 * the hour of its finest archive for the sparkline.
 *
 * Files are read BATCH at a time under the read lock and written out
 * before the next batch: the lock is never held for a whole overview of
 * thousands of files, other requests (the page's own rrddata) get their
 * turn between batches, and what is held besides the body stays small.
 *
 * The sparkline never makes rrdcached FLUSH.  The values come with what
 * the daemon still holds (PENDING), but a FLUSH per file per overview
 * load (the page reloads it every minute) would write every file every
 * minute and undo the daemon's -w; the sparkline's last minutes may then
 * be missing until the daemon writes them.  Over TCP the daemon reads the
 * file itself (FETCH), as for rrddata.
 *
 * A guest that pve_rrd saw two hosts report at once carries its
 * collisions (serve_collisions.h), read once per overview; not under a
 * token's scope, whose holder need not learn other hosts' names.
 */
#include "serve_overview.h"

#include "serve_cluster.h"
#include "serve_collisions.h"
#include "serve_list.h"
#include "serve_read.h"

#include "pvecg/json_writer.h"
#include "pvecg/rrd_fetch.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrddata.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 64
#define STALE_STEPS 5 /* as /metrics tells fresh from stale (pve_up) */
#define SPARK_MAX 128 /* an hour is 60 rows; a coarser file has fewer */
#define COLUMNS_MAX 8

/* What one kind of file shows: its columns, and the sparkline's. */
struct columns {
  const char *names[COLUMNS_MAX];
  size_t count;
  const char *spark;
};

static const struct columns guest_columns = {
    {"memhost", "mem", "maxmem", "cpu", "maxcpu", "pressurecpusome",
     "pressureiosome", "pressurememorysome"},
    8,
    "memhost"};

static const struct columns node_columns = {
    {"memused", "memtotal", "cpu", "maxcpu", "pressurecpusome",
     "pressureiosome", "pressurememorysome"},
    7,
    "memused"};

/* One file as read. */
struct file_read {
  bool readable; /* the header was read and has every column */
  time_t time;
  double values[COLUMNS_MAX];
  unsigned long step;
  double ksmsaved; /* of the guest's fresh KSM file; NAN: none, U */
  bool has_spark;
  time_t spark_time;
  unsigned long spark_step;
  size_t spark_count;
  double spark[SPARK_MAX];
};

struct overview {
  const struct serve_config *config;
  const struct serve_scope *scope; /* what may be shown, NULL: all */
  struct rrddata_window hour;
  const char *cluster;             /* of the files being read and written */
  struct guest_directory *configs; /* the cluster's, for its guests */
  struct dir_names ksm;      /* the cluster's nodes or guests with a KSM file */
  struct dir_names pressure; /* ... with a stall-time file */
  bool guests;               /* the files being read are guests' */
  time_t now;
  struct serve_collision *collisions; /* pve_rrd's, NULL: none */
  size_t collision_count;
  int failure; /* -ENOTCONN: the daemon cannot be reached; or -ENOMEM */
  char err[256];
  struct file_read batch[BATCH];
};

/* ---- reading ------------------------------------------------------------- */

/* The header's values; false when the file lacks one of the columns. */
static bool take_values(const struct columns *cols,
                        const struct rrd_last_row *row, struct file_read *f) {
  for (size_t i = 0; i < cols->count; i++) {
    int found = 0;
    for (size_t k = 0; k < row->ds_count; k++)
      found |= strcmp(row->ds_names[k], cols->names[i]) == 0;
    if (!found)
      return false;
    f->values[i] = rrd_last_value(row, cols->names[i]);
  }
  return true;
}

/* The sparkline: the rows rrddata's hour reads.  Only the files of a
 * daemon over TCP are read through it (see the top of this file). */
static int read_spark(struct overview *o, const char *path,
                      const struct columns *cols, struct file_read *f) {
  const struct serve_config *c = o->config;
  struct rrd_fetch_request req = {
      .path = path,
      .daemon = c->data_dir == NULL ? c->daemon : NULL,
      .cf = RRD_CF_AVERAGE,
      .resolution = o->hour.resolution,
      .start = o->hour.start,
      .end = o->hour.end,
  };
  struct rrd_series series;
  int r = rrd_fetch_series(&req, &series, o->err, sizeof(o->err));
  if (r != 0)
    return r == -ENOTCONN ? r : 0;
  int column = rrd_series_ds_index(&series, cols->spark);
  if (column >= 0 && series.row_count > 0) {
    f->has_spark = true;
    f->spark_time = rrd_series_time(&series, 0);
    f->spark_step = series.step;
    f->spark_count =
        series.row_count < SPARK_MAX ? series.row_count : SPARK_MAX;
    for (size_t i = 0; i < f->spark_count; i++)
      f->spark[i] = rrd_series_row(&series, i)[column];
  }
  rrd_series_free(&series);
  return 0;
}

/* VMIDs are canonical digits: shorter is smaller (the listing's order). */
static int by_vmid(const void *a, const void *b) {
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  size_t lx = strlen(x), ly = strlen(y);
  return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* Whether a listing (of a cluster's KSM or stall-time files) has name. */
static bool listed(const struct dir_names *d, const char *name) {
  return d->count > 0 &&
         bsearch(&name, d->name, d->count, sizeof(*d->name), by_vmid) != NULL;
}

/* Whether the guest has a KSM file: only those are read, so that a node
 * without KSM costs no failed read per guest. */
static bool has_ksm(const struct overview *o, const char *name) {
  return listed(&o->ksm, name);
}

/* ksmsaved of the guest's KSM file where it has a fresh one (a KSM file
 * left when KSM was turned off says nothing of now); NAN otherwise. */
static int read_ksm(struct overview *o, const char *name, struct file_read *f) {
  char path[PATH_MAX];
  struct rrd_last_row row;
  const struct rrd_layout *layout = &layout_pvecg_ksm_vm_1_0;
  f->ksmsaved = NAN;
  if (!has_ksm(o, name) ||
      rrd_cluster_file_path(o->config->data_dir, o->cluster, layout, name, path,
                            sizeof(path)) != 0)
    return 0;
  int r = serve_read_last(o->config, path, &row, o->err, sizeof(o->err));
  if (r != 0)
    return r == -ENOTCONN ? r : 0;
  if (row.time != 0 &&
      o->now - row.time <= (time_t)(STALE_STEPS * layout->step))
    f->ksmsaved = rrd_last_value(&row, "ksmsaved");
  return 0;
}

/* One file; -ENOTCONN when the daemon cannot be reached, else 0 with
 * whatever could be read. */
static int read_file(struct overview *o, const struct rrd_layout *layout,
                     const struct columns *cols, const char *name,
                     struct file_read *f) {
  char path[PATH_MAX];
  struct rrd_last_row row;
  *f = (struct file_read){.ksmsaved = NAN};
  if (cols == &guest_columns) {
    int k = read_ksm(o, name, f);
    if (k != 0)
      return k;
  }
  if (rrd_cluster_file_path(o->config->data_dir, o->cluster, layout, name, path,
                            sizeof(path)) != 0)
    return 0;
  int r = serve_read_last(o->config, path, &row, o->err, sizeof(o->err));
  if (r != 0)
    return r == -ENOTCONN ? r : 0;
  if (!take_values(cols, &row, f))
    return 0;
  f->readable = true;
  f->time = row.time;
  f->step = layout->step;
  return read_spark(o, path, cols, f);
}

static int read_batch(struct overview *o, const struct rrd_layout *layout,
                      const struct columns *cols, char *const *names,
                      size_t count) {
  int r = 0;
  serve_read_begin();
  for (size_t i = 0; i < count && r == 0; i++)
    r = read_file(o, layout, cols, names[i], &o->batch[i]);
  serve_read_end();
  return r;
}

/* ---- writing ------------------------------------------------------------- */

/* A value as the header holds it: the shortest "%.Ng" that reads back as
 * the same double (json_number's "%.15g" does not always, and a reader
 * comparing with `rrdtool lastupdate` wants the very number). */
static void write_exact(struct json_writer *w, double v) {
  char text[40];
  snprintf(text, sizeof(text), "%.15g", v);
  if (!isfinite(v) || strtod(text, NULL) == v) {
    json_number(w, v);
    return;
  }
  snprintf(text, sizeof(text), "%.16g", v);
  if (strtod(text, NULL) != v)
    snprintf(text, sizeof(text), "%.17g", v);
  json_raw(w, text);
}

static void write_spark(struct json_writer *w, const struct file_read *f) {
  json_key(w, "spark");
  if (!f->has_spark) {
    json_null(w);
    return;
  }
  json_begin_array(w);
  for (size_t i = 0; i < f->spark_count; i++)
    json_number(w, f->spark[i]);
  json_end_array(w);
  json_key(w, "spark_time");
  json_int(w, f->spark_time);
  json_key(w, "spark_step");
  json_uint(w, f->spark_step);
}

static void write_file(struct json_writer *w, const struct overview *o,
                       const struct columns *cols, const char *name,
                       const struct file_read *f) {
  json_begin_object(w);
  if (cols == &node_columns)
    serve_list_node_members(w, name);
  else
    serve_list_guest_members(w, name, o->configs);
  serve_list_cluster_member(w, o->cluster);
  json_key(w, "time");
  bool timed = f->readable && f->time != 0;
  if (timed)
    json_int(w, f->time);
  else
    json_null(w);
  json_key(w, "age");
  if (timed)
    json_int(w, o->now - f->time);
  else
    json_null(w);
  json_key(w, "stale");
  json_bool(w, !timed || o->now - f->time > (time_t)(STALE_STEPS * f->step));
  for (size_t i = 0; i < cols->count; i++) {
    json_key(w, cols->names[i]);
    write_exact(w, f->readable ? f->values[i] : NAN);
  }
  if (cols == &guest_columns) {
    json_key(w, "ksmsaved");
    write_exact(w, f->ksmsaved);
  }
  json_key(w, "ksm");
  json_bool(w, has_ksm(o, name));
  /* the page asks for the stall-time rows only where there are some */
  json_key(w, "pressure");
  json_bool(w, listed(&o->pressure, name));
  if (cols == &guest_columns)
    serve_collisions_json(w, o->collisions, o->collision_count, o->cluster,
                          name);
  write_spark(w, f);
  json_end_object(w);
}

static void write_files(struct json_writer *w, struct overview *o,
                        const struct rrd_layout *layout,
                        const struct columns *cols,
                        const struct dir_names *names) {
  for (size_t at = 0; at < names->count && o->failure == 0; at += BATCH) {
    size_t n = names->count - at < BATCH ? names->count - at : BATCH;
    o->failure = read_batch(o, layout, cols, names->name + at, n);
    for (size_t i = 0; i < n && o->failure == 0; i++)
      write_file(w, o, cols, names->name[at + i], &o->batch[i]);
  }
}

/* One cluster's files of layout; guests named by its configuration. */
static void write_cluster(struct json_writer *w, struct overview *o,
                          const char *cluster,
                          const struct rrd_layout *layout) {
  struct serve_cluster_dirs dirs;
  struct dir_names names;
  if (o->failure != 0 || serve_cluster_dirs(o->config, cluster, &dirs) != 0)
    return;
  bool guests = layout == &layout_pve_vm_9_0;
  o->cluster = cluster;
  o->configs = guests ? guest_directory_load(dirs.config) : NULL;
  if (guests && o->configs == NULL) {
    o->failure = -ENOMEM;
    return;
  }
  serve_list_names(dirs.list, layout, o->scope, cluster, &names);
  o->guests = guests;
  serve_list_names(
      dirs.list, guests ? &layout_pvecg_ksm_vm_1_0 : &layout_pvecg_ksm_node_1_0,
      o->scope, cluster, &o->ksm);
  serve_list_names(dirs.list,
                   guests ? &layout_pvecg_pressure_vm_1_0
                          : &layout_pvecg_pressure_node_1_0,
                   o->scope, cluster, &o->pressure);
  write_files(w, o, layout, guests ? &guest_columns : &node_columns, &names);
  dir_names_free(&names);
  dir_names_free(&o->ksm);
  dir_names_free(&o->pressure);
  guest_directory_free(o->configs);
  o->configs = NULL;
}

/* serve_json_reply's arg is const: the state it fills is pointed to. */
struct fill_arg {
  struct overview *o;
  const struct data_clusters *clusters;
};

/* The nodes of every cluster, then the guests, as the listing has them. */
static void fill_overview(struct json_writer *w, const void *arg) {
  const struct fill_arg *a = arg;
  json_begin_object(w);
  json_key(w, "data");
  json_begin_array(w);
  for (size_t i = 0; i < a->clusters->count; i++)
    write_cluster(w, a->o, a->clusters->cluster[i].name, &layout_pve_node_9_0);
  for (size_t i = 0; i < a->clusters->count; i++)
    write_cluster(w, a->o, a->clusters->cluster[i].name, &layout_pve_vm_9_0);
  json_end_array(w);
  json_end_object(w);
}

void serve_overview_reply(const struct serve_config *config,
                          const struct serve_request *req,
                          const struct serve_scope *scope,
                          struct serve_reply *ret) {
  struct data_clusters clusters;
  struct overview *o = calloc(1, sizeof(*o));
  if (o == NULL || serve_clusters_of(config, req, &clusters) != 0) {
    free(o);
    serve_fail_reply(ret, 500, "out of memory");
    return;
  }
  o->config = config;
  o->scope = scope;
  time_t now = config->now != 0 ? config->now : time(NULL);
  o->now = now;
  rrddata_window(RRDDATA_HOUR, false, now, &o->hour);
  if (scope == NULL && serve_collisions_read(config->list_dir, &o->collisions,
                                             &o->collision_count) != 0) {
    serve_fail_reply(ret, 500, "out of memory");
    data_clusters_free(&clusters);
    free(o);
    return;
  }
  serve_json_reply(ret, 200, fill_overview, &(struct fill_arg){o, &clusters});
  if (o->failure == -ENOMEM) {
    serve_reply_free(ret);
    serve_fail_reply(ret, 500, "out of memory");
  } else if (o->failure != 0) {
    serve_reply_free(ret);
    serve_fail_reply(ret, 503, "the daemon cannot be reached");
    snprintf(ret->message, sizeof(ret->message), "%s", o->err);
  }
  data_clusters_free(&clusters);
  free(o->collisions);
  free(o);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GET /metrics (see serve_metrics.h): the files of both directories, each
 * one's newest row from its header (and what rrdcached still holds for it:
 * serve_read.h), never an archive.  A file whose newest row is older than
 * STALE_STEPS steps has its values left out, as its guest or node is gone
 * or no longer written: a scraper then sees the series end instead of a
 * value repeated for ever, and pve_up 0 for it while the file is listed.
 * How many files were fresh, stale or unreadable is a metric of
 * its own, so that a file left out is not left unnoticed.
 *
 * Every cluster of the data directory is read (serve_cluster.h), its
 * guests named by its own configuration, and each series of a named
 * cluster's file carries its `cluster` label (metrics_text.h).  The
 * listings of all clusters come first, so that the arrays are sized once
 * and what is pointed into them never moves.
 *
 * A guest's or node's KSM file (pvecg-ksm-vm-1.0, pvecg-ksm-node-1.0)
 * and stall file (pvecg-pressure-vm-1.0, pvecg-pressure-node-1.0), where
 * there is one, is read beside its own: its families carry the same `id`
 * (and `cluster`), under the same fresh and stale rule, but its file
 * gives no pve_up or pve_node_info of its own, which the pve file gives.
 * It counts in pvecg_metrics_files as any file read.
 *
 * Files are read BATCH at a time under the read lock, as the overview
 * reads them: a scrape of thousands of files never holds the lock for
 * all of them, and other requests get their turn between batches.  Under
 * a token's scope only the files it sees are listed (serve_list_names),
 * so no other file is read, and pvecg ship's totals are left out, as are
 * the collisions pve_rrd remembers (serve_collisions.h), which otherwise
 * follow the files' families.
 */
#include "serve_metrics.h"

#include "serve_cluster.h"
#include "serve_collisions.h"
#include "serve_list.h"
#include "serve_read.h"

#include "pvecg/ship_status.h"
#include "pvecg/dir_names.h"
#include "pvecg/guest_directory.h"
#include "pvecg/metrics_text.h"
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STALE_STEPS 5
#define BATCH 64
#define ID_SIZE (RRD_FILE_NAME_MAX + 8)

static const char prometheus_type[] = "text/plain; version=0.0.4; "
                                      "charset=utf-8";
static const char openmetrics_type[] = "application/openmetrics-text; "
                                       "version=1.0.0; charset=utf-8";

enum file_state { FILE_FRESH, FILE_STALE, FILE_UNREADABLE, FILE_STATES };

/* The layouts served, in the order their families first appear: each
 * node's and guest's own file, then the files beside it. */
static const struct served {
  const struct rrd_layout *layout;
  enum export_kind kind;
} served[] = {
    {&layout_pve_node_9_0, EXPORT_NODE},
    {&layout_pve_vm_9_0, EXPORT_VM},
    {&layout_pvecg_ksm_node_1_0, EXPORT_NODE},
    {&layout_pvecg_ksm_vm_1_0, EXPORT_VM},
    {&layout_pvecg_pressure_node_1_0, EXPORT_NODE},
    {&layout_pvecg_pressure_vm_1_0, EXPORT_VM},
};
#define SERVED (sizeof(served) / sizeof(served[0]))

/* One cluster's listings, one per served layout. */
struct cluster_files {
  const char *name; /* into the scrape's clusters */
  struct serve_cluster_dirs dirs;
  struct dir_names listed[SERVED];
};

/* Everything one scrape holds: the files' rows and who the guests are. */
struct scrape {
  const struct serve_config *config;
  const struct serve_scope *scope; /* NULL: every file */
  time_t now;
  struct data_clusters clusters;
  struct cluster_files *listed; /* one per cluster */
  struct metrics_file *files;
  const char **file_clusters; /* each file's cluster, for its label */
  char (*ids)[ID_SIZE];
  const char **names; /* each file's, into the directory listings */
  double *values;     /* RRD_LAYOUT_DS_MAX per file */
  struct metrics_guest *guests;
  const char **guest_clusters;
  struct guest_identity *who;
  size_t count, guest_count, capacity;
  size_t state[FILE_STATES];
  struct serve_collision *collisions;
  size_t collision_count;
  char err[256];
};

/* ---- the files ----------------------------------------------------------- */

/* *array to n items of size bytes; it stays as it was when out of
 * memory. */
static int grow(void *array, size_t n, size_t size) {
  void *p = realloc(*(void **)array, n * size);
  if (p == NULL)
    return -ENOMEM;
  *(void **)array = p;
  return 0;
}

static int reserve(struct scrape *s, size_t more) {
  size_t want = s->count + more;
  if (want <= s->capacity)
    return 0;
  if (grow(&s->files, want, sizeof(*s->files)) != 0 ||
      grow(&s->file_clusters, want, sizeof(*s->file_clusters)) != 0 ||
      grow(&s->guest_clusters, want, sizeof(*s->guest_clusters)) != 0 ||
      grow(&s->ids, want, sizeof(*s->ids)) != 0 ||
      grow(&s->names, want, sizeof(*s->names)) != 0 ||
      grow(&s->values, want, RRD_LAYOUT_DS_MAX * sizeof(double)) != 0 ||
      grow(&s->guests, want, sizeof(*s->guests)) != 0 ||
      grow(&s->who, want, sizeof(*s->who)) != 0)
    return -ENOMEM;
  s->capacity = want;
  return 0;
}

/* The row's values in the layout's order; false when the file's columns
 * are not the layout's (a foreign file). */
static bool take_row(const struct rrd_layout *layout,
                     const struct rrd_last_row *row, double *values) {
  if (row->ds_count != layout->ds_count)
    return false;
  for (size_t i = 0; i < layout->ds_count; i++) {
    if (strcmp(row->ds_names[i], layout->ds[i].name) != 0)
      return false;
    values[i] = row->values[i];
  }
  return true;
}

/* Reads one file's newest row into the next slot.  -ENOTCONN when the
 * daemon cannot be reached: the scrape then fails as a whole. */
static int read_file(struct scrape *s, const char *cluster,
                     const struct rrd_layout *layout, const char *name,
                     enum export_kind kind) {
  bool beside = layout != &layout_pve_vm_9_0 && layout != &layout_pve_node_9_0;
  char path[PATH_MAX];
  struct rrd_last_row row;
  const char *dir = s->config->data_dir;
  if (rrd_cluster_file_path(dir, cluster, layout, name, path, sizeof(path)) !=
      0) {
    s->state[FILE_UNREADABLE]++;
    return 0;
  }
  int r = serve_read_last(s->config, path, &row, s->err, sizeof(s->err));
  if (r == -ENOTCONN)
    return r;
  double *values = s->values + s->count * RRD_LAYOUT_DS_MAX;
  if (r != 0 || (row.time != 0 && !take_row(layout, &row, values))) {
    s->state[FILE_UNREADABLE]++;
    return 0;
  }
  /* a stale file keeps its slot, without values, for its pve_up 0 */
  bool stale =
      row.time == 0 || s->now - row.time > (time_t)(STALE_STEPS * layout->step);
  s->state[stale ? FILE_STALE : FILE_FRESH]++;
  /* values are pointed to when the cluster's files are named */
  s->file_clusters[s->count] = cluster;
  s->files[s->count++] = (struct metrics_file){.kind = kind,
                                               .layout = layout,
                                               .time = row.time,
                                               .stale = stale,
                                               .beside = beside};
  return 0;
}

static int read_dir(struct scrape *s, const char *cluster,
                    const struct rrd_layout *layout, enum export_kind kind,
                    const struct dir_names *names) {
  if (reserve(s, names->count) != 0)
    return -ENOMEM;
  int r = 0;
  for (size_t at = 0; at < names->count && r == 0; at += BATCH) {
    size_t end = names->count - at < BATCH ? names->count : at + BATCH;
    serve_read_begin();
    for (size_t i = at; i < end && r == 0; i++) {
      size_t slot = s->count;
      r = read_file(s, cluster, layout, names->name[i], kind);
      if (r == 0 && s->count > slot)
        s->names[slot] = names->name[i];
    }
    serve_read_end();
  }
  return r;
}

/* ---- who the guests are -------------------------------------------------- */

/* Names the files [first, s->count), all of one cluster whose guests'
 * configurations are configs.  The arrays pointed into were sized for
 * every cluster at once (list_clusters) and no longer move. */
static void name_files(struct scrape *s, size_t first,
                       const struct guest_directory *configs) {
  for (size_t i = first; i < s->count; i++) {
    const char *name = s->names[i];
    s->files[i].id = s->ids[i];
    s->files[i].values = s->values + i * RRD_LAYOUT_DS_MAX;
    if (s->files[i].kind == EXPORT_NODE) {
      snprintf(s->ids[i], ID_SIZE, "node/%s", name);
      continue;
    }
    struct guest_identity *who = &s->who[s->guest_count];
    bool known;
    const char *type = serve_list_guest_type(configs, name, who, &known);
    snprintf(s->ids[i], ID_SIZE, "%s/%s", type, name);
    if (!known || s->files[i].beside)
      continue;
    s->guest_clusters[s->guest_count] = s->file_clusters[i];
    /* a configuration value, but one the alerts join with the guest's
     * values: left out with them when the file is stale */
    double balloon = who->has_balloon_min && !s->files[i].stale
                         ? (double)who->balloon_min
                         : NAN;
    s->guests[s->guest_count++] =
        (struct metrics_guest){s->ids[i],     who->node, who->name, type,
                               who->template, who->tags, balloon};
  }
}

/* ---- the scrape ---------------------------------------------------------- */

/* Every cluster's listings, and room for all their files at once. */
static int list_clusters(struct scrape *s) {
  size_t total = 0;
  s->listed = calloc(s->clusters.count + 1, sizeof(*s->listed));
  if (s->listed == NULL)
    return -ENOMEM;
  for (size_t c = 0; c < s->clusters.count; c++) {
    struct cluster_files *l = &s->listed[c];
    l->name = s->clusters.cluster[c].name;
    if (serve_cluster_dirs(s->config, l->name, &l->dirs) != 0)
      continue; /* cannot be: the scan checked the name */
    for (size_t i = 0; i < SERVED; i++) {
      serve_list_names(l->dirs.list, served[i].layout, s->scope, l->name,
                       &l->listed[i]);
      total += l->listed[i].count;
    }
  }
  return reserve(s, total);
}

/* One cluster's files, read and named. */
static int gather_cluster(struct scrape *s, const struct cluster_files *l) {
  size_t first = s->count;
  int r = 0;
  for (size_t i = 0; i < SERVED && r == 0; i++)
    r = read_dir(s, l->name, served[i].layout, served[i].kind, &l->listed[i]);
  struct guest_directory *configs =
      r == 0 ? guest_directory_load(l->dirs.config) : NULL;
  if (r == 0 && configs == NULL)
    r = -ENOMEM;
  if (r == 0)
    name_files(s, first, configs);
  guest_directory_free(configs);
  return r;
}

static int gather(struct scrape *s, const struct serve_request *req) {
  int r = serve_clusters_of(s->config, req, &s->clusters);
  if (r == 0)
    r = list_clusters(s);
  for (size_t c = 0; r == 0 && c < s->clusters.count; c++)
    r = gather_cluster(s, &s->listed[c]);
  if (r == 0 && s->scope == NULL)
    r = serve_collisions_read(s->config->list_dir, &s->collisions,
                              &s->collision_count);
  return r;
}

static void write_scrape(const struct scrape *s, enum export_format format,
                         FILE *out) {
  static const char *const states[FILE_STATES] = {"fresh", "stale",
                                                  "unreadable"};
  double counts[FILE_STATES];
  for (size_t i = 0; i < FILE_STATES; i++)
    counts[i] = (double)s->state[i];
  metrics_text_cluster_files(out, format, s->files, s->file_clusters, s->count);
  metrics_text_cluster_up(out, s->files, s->file_clusters, s->count);
  metrics_text_cluster_nodes(out, s->files, s->file_clusters, s->count);
  metrics_text_cluster_guests(out, s->guests, s->guest_clusters,
                              s->guest_count);
  metrics_text_gauge(out, "pvecg_metrics_files",
                     "RRD files read for this scrape, by what was found",
                     "state", states, counts, FILE_STATES);
  if (s->scope == NULL)
    serve_collisions_metrics(out, s->collisions, s->collision_count);
  if (s->config->ship_state_dir != NULL && s->scope == NULL)
    ship_status_metrics(s->config->ship_state_dir, format == EXPORT_OPENMETRICS,
                        out);
  metrics_text_end(out, format);
}

/* OpenMetrics when the scraper names it (Prometheus asks for it first,
 * with Prometheus' text as the fallback). */
static enum export_format format_of(const char *accept) {
  return accept != NULL && strstr(accept, "application/openmetrics-text")
             ? EXPORT_OPENMETRICS
             : EXPORT_PROMETHEUS;
}

static void scrape_free(struct scrape *s) {
  for (size_t c = 0; s->listed != NULL && c < s->clusters.count; c++)
    for (size_t i = 0; i < SERVED; i++)
      dir_names_free(&s->listed[c].listed[i]);
  free(s->listed);
  data_clusters_free(&s->clusters);
  free(s->file_clusters);
  free(s->guest_clusters);
  free(s->files);
  free(s->ids);
  free(s->names);
  free(s->values);
  free(s->guests);
  free(s->who);
  free(s->collisions);
}

static void text_reply(const struct scrape *s, enum export_format format,
                       struct serve_reply *ret) {
  FILE *out = open_memstream(&ret->body, &ret->size);
  if (out != NULL)
    write_scrape(s, format, out);
  if (out == NULL || fclose(out) != 0) {
    free(ret->body);
    ret->body = NULL;
    serve_fail_reply(ret, 500, "out of memory");
    return;
  }
  ret->status = 200;
  ret->content_type =
      format == EXPORT_OPENMETRICS ? openmetrics_type : prometheus_type;
  ret->cache_control = "no-store";
}

void serve_metrics_reply(const struct serve_config *config,
                         const struct serve_request *req,
                         const struct serve_headers *headers,
                         struct serve_reply *ret) {
  struct scrape s = {.config = config,
                     .scope = headers->scope,
                     .now = config->now != 0 ? config->now : time(NULL)};
  int r = gather(&s, req);
  if (r == 0)
    text_reply(&s, format_of(headers->accept), ret);
  else if (r == -ENOTCONN) {
    serve_fail_reply(ret, 503, "the daemon cannot be reached");
    snprintf(ret->message, sizeof(ret->message), "%s", s.err);
  } else
    serve_fail_reply(ret, 500, "out of memory");
  scrape_free(&s);
}

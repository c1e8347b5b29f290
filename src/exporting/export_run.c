/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One file's export (see export_run.h).  Over the network, formatted text
 * collects in a memory stream and goes out in batches of about batch_max
 * bytes, so a send is not made per row.
 */
#include "pvecg/export_run.h"

#include "pvecg/export_counter.h"
#include "export_openmetrics.h"
#include "export_remote.h"
#include "pvecg/export_range.h"
#include "pvecg/rrd_direct.h"
#include "pvecg/rrd_fetch.h"
#include "pvecg/rrd_file.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/text_copy.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NET_BATCH_BYTES 65536
#define WHY_SIZE 512
/* A file kept open between passes has its whole header checked again this
 * often (s); between, only what an update writes is read. */
/* "[<cluster>/]qemu/<vmid>", "[<cluster>/]node/<name>" */
#define SHOWN_SIZE (2 * RRD_FILE_NAME_MAX + 16)

/* A layout's columns as named for a guest's or a node's file. */
struct named_layout {
  const struct rrd_layout *layout;
  bool node;
  struct export_columns columns;
  double counter_unit[RRD_LAYOUT_DS_MAX];
};

/* Every layout a run meets (a guest's and a node's of each, at most). */
#define NAMED_LAYOUTS 16

struct export_run_state {
  /* Naming a layout's columns searches the names' tables for each: done
   * once per run, not for every file of every pass of the shipper. */
  struct named_layout named[NAMED_LAYOUTS];
  size_t named_count;
  /* What one file's export keeps between its rows. */
  const struct named_layout *file_named; /* its layout's, in named[] */
  struct export_counter counter;
  bool counters;                /* the names want counters */
  struct export_series series;  /* OpenMetrics: the file's rows */
  struct export_remote *remote; /* remote write's requests */
  char object[8], nodename[RRD_FILE_NAME_MAX + 1];
  char title[GUEST_CONFIG_NAME_SIZE];
  /* a guest's configuration, when one was found: its pve_guest_info */
  bool configured, template;
  char tags[GUEST_CONFIG_TAGS_SIZE];
  char shown[SHOWN_SIZE];      /* "qemu/100": how messages name it */
  char batch_from[SHOWN_SIZE]; /* the first file in the batch */
};

/* The forms of Prometheus' names, written a whole file at a time. */
static bool om_format(enum export_format f) {
  return f == EXPORT_OPENMETRICS || f == EXPORT_PROMETHEUS ||
         f == EXPORT_REMOTE_WRITE;
}

/* Whether values take Proxmox's names (and counters): CSV and JSON keep
 * the RRD's. */
static bool pve_named(const struct export_run *run) {
  return om_format(run->format) ||
         (run->names == EXPORT_NAMES_PVE &&
          (run->format == EXPORT_INFLUX || run->format == EXPORT_GRAPHITE));
}

static bool sending(const struct export_run *run) {
  return run->net != NULL || run->http != NULL;
}

/* Remote write's requests go to the HTTP sender whole. */
static int post_whole(void *ctx, struct http_message *m, const char *label,
                      char *err, size_t err_size) {
  return http_sender_post_whole(ctx, m, label, err, err_size);
}

/* Remote write's requests: posted whole to the run's sender as they fill
 * up, or gathered until the caller posts them (remote_post). */
static int begin_remote(struct export_run *run) {
  struct export_run_state *st = run->state;
  if (run->remote_post != NULL)
    st->remote = export_remote_new(run->remote_post, run->remote_ctx, SIZE_MAX);
  else if (run->http != NULL)
    st->remote = export_remote_new(post_whole, run->http, run->batch_max);
  else
    return -EINVAL;
  return st->remote != NULL ? 0 : -ENOMEM;
}

size_t export_run_remote_size(const struct export_run *run) {
  return run->state->remote != NULL ? export_remote_size(run->state->remote)
                                    : 0;
}

int export_run_remote_flush(struct export_run *run, char *err,
                            size_t err_size) {
  return run->state->remote != NULL
             ? export_remote_flush(run->state->remote, err, err_size)
             : 0;
}

size_t export_run_remote_unit(const struct export_run *run) {
  return run->state->remote != NULL ? export_remote_unit(run->state->remote)
                                    : 0;
}

void export_run_remote_discard(struct export_run *run) {
  if (run->state->remote != NULL)
    export_remote_discard(run->state->remote);
}

int export_run_begin(struct export_run *run) {
  int r;
  if (run->daemon != NULL &&
      rrdcached_client_new(run->daemon, &run->client) < 0)
    return -EINVAL;
  if ((run->state = calloc(1, sizeof(*run->state))) == NULL)
    return -ENOMEM;
  if (run->batch_max == 0)
    run->batch_max =
        run->http != NULL ? EXPORT_HTTP_BATCH_BYTES : NET_BATCH_BYTES;
  if (run->format == EXPORT_REMOTE_WRITE && (r = begin_remote(run)) < 0)
    return r;
  if (!sending(run)) {
    if (run->out == NULL)
      run->out = stdout;
    return 0;
  }
  run->out = open_memstream(&run->batch, &run->batch_len);
  return run->out != NULL ? 0 : -ENOMEM;
}

/* The length of the longest run of whole lines from text that fits max
 * (a longer line alone). */
static size_t chunk_length(const char *text, size_t len, size_t max) {
  if (len <= max)
    return len;
  for (size_t i = max; i > 0; i--)
    if (text[i - 1] == '\n')
      return i;
  const char *nl = memchr(text, '\n', len);
  return nl != NULL ? (size_t)(nl - text) + 1 : len;
}

/* One chunk to the sender; over HTTP it goes while the next is made, and
 * a failure (of this chunk or an earlier one) names its batch. */
static int send_chunk(struct export_run *run, const char *text, size_t len,
                      char *err, size_t err_size) {
  run->batches++;
  if (run->net != NULL)
    return net_sender_send(run->net, text, len, err, err_size);
  char label[WHY_SIZE];
  snprintf(label, sizeof(label), "batch %zu (%zu bytes, rows of %s to %s)",
           run->batches, len, run->state->batch_from, run->state->shown);
  return http_sender_post(run->http, text, len, label, err, err_size);
}

/* Starts the batch afresh with what is left of it, the text from `at`. */
static int keep_rest(struct export_run *run, size_t at) {
  size_t rest = run->batch_len - at;
  char *copy = rest > 0 ? malloc(rest) : NULL;
  if (rest > 0 && copy == NULL)
    return -ENOMEM;
  if (rest > 0)
    memcpy(copy, run->batch + at, rest);
  rewind(run->out);
  if (rest > 0)
    fwrite(copy, 1, rest, run->out);
  free(copy);
  return 0;
}

/* Hands the batch to the sender in chunks of at most batch_max bytes cut
 * between lines: every full chunk, or with `all` everything.  What is
 * left stays for the next batch, so that over HTTP a short tail never
 * goes alone and holds up the text being made. */
static int send_batch(struct export_run *run, bool all, char *err,
                      size_t err_size) {
  if (!sending(run))
    return 0;
  if (fflush(run->out) != 0)
    return -ENOMEM;
  size_t at = 0;
  while (at < run->batch_len &&
         (all || run->batch_len - at >= run->batch_max)) {
    size_t n =
        chunk_length(run->batch + at, run->batch_len - at, run->batch_max);
    int r = send_chunk(run, run->batch + at, n, err, err_size);
    if (r < 0) {
      run->net_failed = true;
      return r;
    }
    at += n;
  }
  struct export_run_state *st = run->state;
  if (at < run->batch_len) {
    text_copy(st->batch_from, sizeof(st->batch_from), st->shown);
    return keep_rest(run, at);
  }
  rewind(run->out);
  st->batch_from[0] = '\0';
  return 0;
}

static void counted(struct export_run *run, const struct export_count *c) {
  run->total.lines += c->lines;
  run->total.values += c->values;
}

static bool any_known(const double *values, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (isfinite(values[i]))
      return true;
  return false;
}

static int write_row(struct export_run *run, const struct export_source *src,
                     unsigned long resolution, time_t t, const double *values,
                     char *err, size_t err_size) {
  struct export_run_state *st = run->state;
  double v[RRD_LAYOUT_DS_MAX];
  if (run->resume != NULL) {
    run->resume->last_row = t;
    run->resume->rows++;
    run->resume->known += any_known(values, src->layout->ds_count);
  }
  if (st->counters)
    export_counter_apply(&st->counter, src->layout,
                         st->file_named->counter_unit, resolution, values, v);
  else
    memcpy(v, values, src->layout->ds_count * sizeof(*v));
  if (om_format(run->format))
    return export_series_add(&st->series, t, v, src->layout->ds_count);
  struct export_count c;
  int r = export_format_row(run->format, src, t, v, run->out, &c);
  if (r < 0) {
    snprintf(err, err_size, "cannot be written as %s: %s",
             run->format == EXPORT_INFLUX ? "line protocol" : "this format",
             strerror(-r));
    return r;
  }
  counted(run, &c);
  if (sending(run) && (size_t)ftello(run->out) >= run->batch_max)
    return send_batch(run, false, err, err_size);
  return 0;
}

/* Whether the file's row limit is reached: the rest waits for the next
 * call. */
static bool limit_reached(const struct export_run *run) {
  const struct export_resume *r = run->resume;
  return r != NULL && r->row_limit > 0 && r->rows >= r->row_limit;
}

/* The rows a file may still give before its row limit (SIZE_MAX: all). */
static size_t rows_left(const struct export_run *run) {
  const struct export_resume *r = run->resume;
  if (r == NULL || r->row_limit == 0)
    return SIZE_MAX;
  return r->rows < r->row_limit ? r->row_limit - r->rows : 0;
}

/* The planned rows, read directly when the file was opened so, else
 * through librrd or the daemon. */
static int read_rows(struct export_run *run, const char *path,
                     struct rrd_direct *direct, const struct export_fetch *f,
                     struct rrd_series *s, char *err, size_t err_size) {
  if (direct == NULL) {
    struct rrd_fetch_request req = {.path = path,
                                    .daemon = run->daemon,
                                    .cf = run->cf,
                                    .resolution = f->resolution,
                                    .start = f->start,
                                    .end = f->end};
    return rrd_fetch_series(&req, s, err, err_size);
  }
  int r = rrd_direct_fetch(direct, run->cf, f->resolution, f->start, f->end,
                           rows_left(run), s);
  if (r < 0)
    snprintf(err, err_size, "cannot read its rows: %s",
             r == -EAGAIN ? "it kept changing under the read" : strerror(-r));
  return r;
}

/* One planned read: rows ending in (f->start, f->end] at f->resolution. */
static int export_fetch(struct export_run *run, const struct export_source *src,
                        const char *path, struct rrd_direct *direct,
                        const struct export_fetch *f, char *err,
                        size_t err_size) {
  struct rrd_series s;
  int r = read_rows(run, path, direct, f, &s, err, err_size);
  if (r < 0)
    return r;
  if (s.step != f->resolution || s.ds_count != src->layout->ds_count) {
    snprintf(err, err_size, "rrd gave %lu s rows of %zu columns, not %lu s",
             s.step, s.ds_count, f->resolution);
    r = -EPROTO;
  }
  struct export_source rows = *src;
  rows.step = f->resolution;
  for (size_t i = 0; r == 0 && i < s.row_count && !limit_reached(run); i++) {
    time_t t = rrd_series_time(&s, i); /* the row's end */
    if (t > f->start && t <= f->end)
      r = write_row(run, &rows, f->resolution, t, rrd_series_row(&s, i), err,
                    err_size);
  }
  rrd_series_free(&s);
  return r;
}

/* One RRD file: how it is opened and how the output names it. */
struct part {
  const struct rrd_layout *layout;
  bool legacy;          /* a pve2 file before the 9.0 one */
  char path[PATH_MAX];  /* for librrd or the daemon */
  char shown[PATH_MAX]; /* "<layout>/<file name>" */
  char where[PATH_MAX]; /* how messages name it: "[<cluster>/]<shown>" */
};

static int part_name(const struct export_run *run,
                     const struct export_file *file,
                     const struct rrd_layout *layout, const char *file_name,
                     struct part *ret) {
  ret->layout = layout;
  ret->legacy = false;
  int r = rrd_cluster_file_path(run->data_dir, file->cluster, layout, file_name,
                                ret->path, sizeof(ret->path));
  if (r == 0)
    r = rrd_file_name_path(NULL, layout, file_name, ret->shown,
                           sizeof(ret->shown));
  if (r == 0)
    r = rrd_cluster_file_path(NULL, file->cluster, layout, file_name,
                              ret->where, sizeof(ret->where));
  return r;
}

static bool is_regular_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The pve2 file whose history a 9.0 file continues, as Proxmox's rrddata
 * finds it: <name>, else <name>.old, in the legacy directory.  Only for
 * files on this host (not through a daemon over TCP).  Where a directory
 * scan found none, not looked for again (two failed lookups per file and
 * pass of the shipper, on every host upgraded without legacy files). */
static bool find_legacy(const struct export_run *run,
                        const struct export_file *file, struct part *ret) {
  if ((run->daemon != NULL && !rrdcached_address_is_unix(run->daemon)) ||
      (file->layout != &layout_pve_vm_9_0 &&
       file->layout != &layout_pve_node_9_0) ||
      (file->legacy_known && !file->legacy_found))
    return false; /* pvecg's KSM files have no legacy history */
  const struct rrd_layout *layout =
      file->kind == EXPORT_VM ? &layout_pve2_vm : &layout_pve2_node;
  static const char *const suffixes[] = {"", ".old"};
  for (size_t i = 0; i < 2; i++) {
    char name[RRD_FILE_NAME_MAX + 8];
    text_append(name, sizeof(name), text_copy(name, sizeof(name), file->name),
                suffixes[i]);
    if (part_name(run, file, layout, name, ret) == 0 &&
        is_regular_file(ret->path)) {
      ret->legacy = true;
      return true;
    }
  }
  return false;
}

/* The file's layout must be the expected one, and its last update known.
 * A local file is opened for reading directly (*direct), which checks its
 * whole header each time for the cost of two small reads; one that reader
 * does not take goes the way of librrd or the daemon, which says why. */
/* The resume whose kept file the part is, or NULL. */
static struct export_resume *keeper(const struct export_run *run,
                                    const struct part *part) {
  return part->legacy ? NULL : run->resume;
}

/* The part's file read directly: the one the caller keeps open (and has
 * refreshed), else opened by its path (and kept where the caller may). */
static int open_direct(struct export_run *run, const struct part *part,
                       struct rrd_direct **direct) {
  struct export_resume *res = keeper(run, part);
  if (res != NULL && res->kept != NULL) {
    *direct = res->kept;
    return 0;
  }
  int r = rrd_direct_open(part->path, part->layout, direct);
  if (r == 0 && res != NULL && res->keep_new)
    res->kept = *direct;
  return r;
}

/* Done with the part's direct reading: a kept file stays open, unless
 * reading it failed. */
static void close_direct(struct export_run *run, const struct part *part,
                         struct rrd_direct *direct, bool failed) {
  struct export_resume *res = keeper(run, part);
  if (direct == NULL || (res != NULL && direct == res->kept && !failed))
    return;
  if (res != NULL && direct == res->kept)
    res->kept = NULL;
  rrd_direct_close(direct);
}

static int inspect(struct export_run *run, const struct part *part,
                   struct rrd_direct **direct, time_t *last, char *err,
                   size_t err_size) {
  if (run->daemon == NULL && open_direct(run, part, direct) == 0) {
    *last = rrd_direct_last_update(*direct);
    return 0;
  }
  *direct = NULL;
  const struct rrd_access *access =
      run->client ? rrdcached_client_access(run->client) : &rrd_access_librrd;
  char why[WHY_SIZE] = "";
  /* A caller that saw this very file pass the check need not pay for it
   * again: reading a header's every definition is most of a pass. */
  bool known =
      run->resume != NULL && run->resume->layout_checked && !part->legacy;
  int r = known ? 0
                : access->check(access->ctx, part->layout, part->path, why,
                                sizeof(why));
  if (r == -ENOENT)
    snprintf(err, err_size, "no such file");
  else if (r == -EPROTO)
    snprintf(err, err_size, "not a %s file: %s", part->layout->name, why);
  else if (r < 0)
    snprintf(err, err_size, "%s", why[0] ? why : strerror(-r));
  if (r == 0)
    r = access->last_update(access->ctx, part->path, last, err, err_size);
  return r;
}

/* Puts "[<cluster>/]<layout>/<name>: " in front of the message in err. */
static void name_error(const struct part *part, char *err, size_t err_size) {
  char text[WHY_SIZE];
  snprintf(text, sizeof(text), "%s", err);
  snprintf(err, err_size, "%s: %s", part->where, text);
}

/* The file's cluster as its points say it (export_format.h). */
static const char *shown_cluster(const struct export_run *run,
                                 const struct export_file *file) {
  return run->clusters_named ? file->cluster : NULL;
}

/* The part's rows with times in [since, until]; *last is its last
 * update. */
static int export_part(struct export_run *run, const struct export_file *file,
                       const struct part *part, time_t since, time_t until,
                       time_t *last, char *err, size_t err_size) {
  struct rrd_direct *direct = NULL;
  int r = inspect(run, part, &direct, last, err, err_size);
  struct export_plan plan = {0};
  bool tcp = run->daemon != NULL && !rrdcached_address_is_unix(run->daemon);
  if (r == 0 && since <= until)
    r = export_range_plan(part->layout, run->cf, *last, since, until, tcp,
                          &plan);
  if (r < 0) {
    close_direct(run, part, direct, true);
    name_error(part, err, err_size);
    return r;
  }
  struct export_run_state *st = run->state;
  struct export_source src = {
      .kind = file->kind,
      .name = file->name,
      .file = part->shown,
      .prefix = run->prefix,
      .layout = part->layout,
      /* a legacy file's are its own, named per row */
      .columns = part->layout == file->layout ? &st->file_named->columns : NULL,
      .names = run->names,
      .object = st->object,
      .nodename = st->nodename,
      .title = st->title,
      .cluster = shown_cluster(run, file),
      .time_scale = run->time_scale};
  export_format_header(run->format, &src, run->out);
  for (size_t i = 0; r == 0 && i < plan.count && !limit_reached(run); i++)
    r = export_fetch(run, &src, part->path, direct, &plan.fetch[i], err,
                     err_size);
  close_direct(run, part, direct, r < 0);
  if (r < 0 && !run->net_failed)
    name_error(part, err, err_size);
  return r;
}

/* With a legacy file, its rows come first, up to its last update (when
 * the upgrade to PVE 9 stopped its updates), and the 9.0 file's rows
 * after it: the rule of Proxmox's rrddata, so a moment is never exported
 * from both, even when the 9.0 file holds migrated history. */
/* "prod/" for a file of the cluster prod, "" for the data directory's. */
static void cluster_slash(const struct export_file *file,
                          char buf[RRD_FILE_NAME_MAX + 2]) {
  size_t len = text_copy(buf, RRD_FILE_NAME_MAX + 2, file->cluster);
  text_append(buf, RRD_FILE_NAME_MAX + 2, len, len > 0 ? "/" : "");
}

/* How messages name the file: "<in><what>/<name>", e.g. "qemu/100". */
static void name_shown(struct export_run_state *st, const char *in,
                       const char *what, const char *name) {
  size_t len = text_copy(st->shown, sizeof(st->shown), in);
  len = text_append(st->shown, sizeof(st->shown), len, what);
  len = text_append(st->shown, sizeof(st->shown), len, "/");
  text_append(st->shown, sizeof(st->shown), len, name);
}

/* The guests of the file's cluster (NULL: nobody, or no memory). */
static const struct guest_directory *guests_of(const struct export_run *run,
                                               const struct export_file *f) {
  if (run->guest_dirs != NULL)
    return guest_directories_get(run->guest_dirs, f->cluster);
  return run->guests;
}

/* Who the file is, in Proxmox's names: a guest's type, node and name from
 * its configuration.  -ENOENT for a guest nobody knows, unless an
 * unknown_type is given. */
static int identify(struct export_run *run, const struct export_file *file,
                    char *err, size_t err_size) {
  struct export_run_state *st = run->state;
  struct guest_identity who = {.type = GUEST_QEMU};
  uint32_t vmid = 0;
  bool node = file->kind == EXPORT_NODE;
  char in[RRD_FILE_NAME_MAX + 2];
  cluster_slash(file, in);
  name_shown(st, in, node ? "node" : "guest", file->name);
  st->nodename[0] = st->title[0] = st->tags[0] = '\0';
  st->configured = st->template = false;
  text_copy(st->object, sizeof(st->object), node ? "nodes" : "");
  if (node || !pve_named(run))
    return 0;
  vmid_parse_string(file->name, &vmid);
  if (guest_directory_find(guests_of(run, file), vmid, &who) == 0) {
    text_copy(st->object, sizeof(st->object),
              who.type == GUEST_QEMU ? "qemu" : "lxc");
    text_copy(st->title, sizeof(st->title), who.name);
    text_copy(st->tags, sizeof(st->tags), who.tags);
    st->configured = true;
    st->template = who.template;
  } else if (run->unknown_type != NULL) {
    text_copy(st->object, sizeof(st->object), run->unknown_type);
  } else {
    snprintf(err, err_size,
             "%s%s/%s: no guest configuration says whether %s is a VM or a "
             "container (--unknown-guests qemu|lxc exports it anyway)",
             in, file->layout->name, file->name, file->name);
    return -ENOENT;
  }
  text_copy(st->nodename, sizeof(st->nodename),
            who.node[0] != '\0' ? who.node : run->local_node);
  name_shown(st, in, st->object, file->name);
  return 0;
}

/* The columns of layout as named for a node's (or a guest's) file, named
 * now if the run has not yet.  A table full (never with the layouts there
 * are) names them again in its last place. */
static const struct named_layout *named_layout(struct export_run_state *st,
                                               const struct rrd_layout *layout,
                                               bool node) {
  for (size_t i = 0; i < st->named_count; i++)
    if (st->named[i].layout == layout && st->named[i].node == node)
      return &st->named[i];
  if (st->named_count < NAMED_LAYOUTS)
    st->named_count++;
  struct named_layout *n = &st->named[st->named_count - 1];
  n->layout = layout;
  n->node = node;
  export_columns_of(layout, node, &n->columns);
  for (size_t i = 0; i < RRD_LAYOUT_DS_MAX; i++)
    n->counter_unit[i] = i < layout->ds_count
                             ? export_metric_counter_unit(n->columns.metric[i])
                             : 0;
  return n;
}

/* A new file: its identity, fresh counters, an empty series. */
static int begin_file(struct export_run *run, const struct export_file *file,
                      char *err, size_t err_size) {
  struct export_run_state *st = run->state;
  int r = identify(run, file, err, err_size);
  if (r < 0)
    return r;
  if (st->batch_from[0] == '\0')
    text_copy(st->batch_from, sizeof(st->batch_from), st->shown);
  st->counters = pve_named(run);
  st->file_named = named_layout(st, file->layout, file->kind == EXPORT_NODE);
  if (run->resume != NULL) {
    st->counter = run->resume->counter;
    run->resume->last_row = 0;
    run->resume->last_update = 0;
    run->resume->rows = 0;
    run->resume->known = 0;
  } else {
    export_counter_reset(&st->counter);
  }
  export_series_begin(&st->series, file->layout);
  return 0;
}

/* OpenMetrics: a configured guest's pve_guest_info at the times of its
 * pve file's rows (not again for its pvecg files). */
static bool guest_info(const struct export_run *run,
                       const struct export_file *file,
                       struct export_guest_info *ret) {
  const struct export_run_state *st = run->state;
  if (!st->configured || file->layout != &layout_pve_vm_9_0)
    return false;
  *ret = (struct export_guest_info){.node = st->nodename,
                                    .name = st->title,
                                    .tags = st->tags,
                                    .template = st->template};
  return true;
}

static void write_guest_info(struct export_run *run,
                             const struct export_file *file,
                             const struct export_source *src) {
  struct export_guest_info info;
  if (!guest_info(run, file, &info))
    return;
  size_t n = export_series_write_info(&run->state->series, run->format, src,
                                      &info, run->out);
  counted(run, &(struct export_count){n, n});
}

/* Remote write: the file's gathered rows into requests. */
static int add_remote(struct export_run *run, const struct export_file *file,
                      const struct export_source *src, char *err,
                      size_t err_size) {
  struct export_run_state *st = run->state;
  struct export_guest_info info;
  bool has_info = guest_info(run, file, &info);
  size_t n;
  int r = export_remote_file(st->remote, &st->series, src,
                             has_info ? &info : NULL, &n, err, err_size);
  st->series.count = 0;
  counted(run, &(struct export_count){n, n});
  if (r < 0)
    run->net_failed = true;
  return r;
}

/* OpenMetrics: the file's gathered rows, metric by metric. */
static int end_file(struct export_run *run, const struct export_file *file,
                    char *err, size_t err_size) {
  struct export_run_state *st = run->state;
  if (!om_format(run->format))
    return 0;
  struct export_source src = {.kind = file->kind,
                              .name = file->name,
                              .layout = file->layout,
                              .names = run->names,
                              .object = st->object,
                              .cluster = shown_cluster(run, file)};
  if (run->format == EXPORT_REMOTE_WRITE)
    return add_remote(run, file, &src, err, err_size);
  struct export_count c;
  write_guest_info(run, file, &src);
  export_series_write(&st->series, run->format, &src, run->out, &c);
  counted(run, &c);
  return 0;
}

/* With a legacy file, its rows come first, up to its last update (when
 * the upgrade to PVE 9 stopped its updates), and the 9.0 file's rows
 * after it: the rule of Proxmox's rrddata, so a moment is never exported
 * from both, even when the 9.0 file holds migrated history. */
int export_run_file(struct export_run *run, const struct export_file *file,
                    char *err, size_t err_size) {
  struct part current, legacy;
  int r = part_name(run, file, file->layout, file->name, &current);
  if (r < 0) {
    char in[RRD_FILE_NAME_MAX + 2];
    cluster_slash(file, in);
    snprintf(err, err_size, "%s%s/%s: cannot name the file: %s", in,
             file->layout->name, file->name, strerror(-r));
    return r;
  }
  if ((r = begin_file(run, file, err, err_size)) < 0)
    return r;
  time_t since = run->since, last = 0;
  bool has_legacy = find_legacy(run, file, &legacy);
  if (has_legacy) {
    r = export_part(run, file, &legacy, since, run->until, &last, err,
                    err_size);
    if (r < 0)
      return r;
    since = last >= since ? last + 1 : since;
  }
  if (!has_legacy || is_regular_file(current.path))
    r = export_part(run, file, &current, since, run->until, &last, err,
                    err_size);
  if (r < 0)
    return r;
  if (run->resume != NULL) {
    run->resume->counter = run->state->counter;
    run->resume->last_update = last;
  }
  if ((r = end_file(run, file, err, err_size)) < 0)
    return r;
  /* A line listener gets every file at once; HTTP batches fill up. */
  if (run->net != NULL)
    return send_batch(run, true, err, err_size);
  if (run->http != NULL && (size_t)ftello(run->out) >= run->batch_max)
    return send_batch(run, false, err, err_size);
  return 0;
}

int export_run_resume(struct export_run *run, const struct export_file *file,
                      time_t after, struct export_resume *resume, char *err,
                      size_t err_size) {
  time_t since = run->since;
  struct export_resume *was = run->resume;
  run->since = after + 1;
  run->resume = resume;
  int r = export_run_file(run, file, err, err_size);
  run->since = since;
  run->resume = was;
  return r;
}

int export_run_end(struct export_run *run, char *err, size_t err_size) {
  int r = 0;
  if (run->out != NULL && !run->net_failed)
    export_series_end(run->format, run->out);
  if (sending(run) && !run->net_failed) {
    r = send_batch(run, true, err, err_size);
    if (r == 0 && run->state != NULL && run->state->remote != NULL)
      r = export_remote_flush(run->state->remote, err, err_size);
    if (r == 0 && run->net != NULL)
      r = net_sender_finish(run->net, err, err_size);
    if (r == 0 && run->http != NULL)
      r = http_sender_finish(run->http, err, err_size);
    if (r < 0)
      run->net_failed = true;
  }
  if (sending(run) && run->out != NULL)
    fclose(run->out);
  if (run->state != NULL) {
    export_series_free(&run->state->series);
    export_remote_free(run->state->remote);
  }
  free(run->state);
  run->state = NULL;
  free(run->batch);
  run->batch = NULL;
  run->out = NULL;
  rrdcached_client_free(run->client);
  run->client = NULL;
  return r;
}

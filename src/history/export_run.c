/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One file's export (see export_run.h).  Over the network, formatted text
 * collects in a memory stream and goes out in batches of about
 * BATCH_BYTES, so a send is not made per row.
 */
#include "pvecg/export_run.h"

#include "pvecg/export_range.h"
#include "pvecg/rrd_fetch.h"
#include "pvecg/rrd_file.h"
#include "pvecg/rrd_file_name.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BATCH_BYTES 65536
#define WHY_SIZE 512

int export_run_begin(struct export_run *run) {
  if (run->daemon != NULL &&
      rrdcached_client_new(run->daemon, &run->client) < 0)
    return -EINVAL;
  if (run->net == NULL) {
    run->out = stdout;
    return 0;
  }
  run->out = open_memstream(&run->batch, &run->batch_len);
  return run->out != NULL ? 0 : -ENOMEM;
}

/* Hands the batch to the sender and empties it. */
static int send_batch(struct export_run *run, char *err, size_t err_size) {
  if (run->net == NULL || fflush(run->out) != 0)
    return run->net == NULL ? 0 : -ENOMEM;
  int r = net_sender_send(run->net, run->batch, run->batch_len, err, err_size);
  if (r < 0) {
    run->net_failed = true;
    return r;
  }
  rewind(run->out);
  return 0;
}

static int write_row(struct export_run *run, const struct export_source *src,
                     time_t t, const double *values, char *err,
                     size_t err_size) {
  struct export_count c;
  int r = export_format_row(run->format, src, t, values, run->out, &c);
  if (r < 0) {
    snprintf(err, err_size, "cannot be written as %s: %s",
             run->format == EXPORT_INFLUX ? "line protocol" : "this format",
             strerror(-r));
    return r;
  }
  run->total.lines += c.lines;
  run->total.values += c.values;
  if (run->net != NULL && ftello(run->out) >= BATCH_BYTES)
    return send_batch(run, err, err_size);
  return 0;
}

/* One planned read: rows ending in (f->start, f->end] at f->resolution. */
static int export_fetch(struct export_run *run, const struct export_source *src,
                        const char *path, const struct export_fetch *f,
                        char *err, size_t err_size) {
  struct rrd_fetch_request req = {.path = path,
                                  .daemon = run->daemon,
                                  .cf = run->cf,
                                  .resolution = f->resolution,
                                  .start = f->start,
                                  .end = f->end};
  struct rrd_series s;
  int r = rrd_fetch_series(&req, &s, err, err_size);
  if (r < 0)
    return r;
  if (s.step != f->resolution || s.ds_count != src->layout->ds_count) {
    snprintf(err, err_size, "rrd gave %lu s rows of %zu columns, not %lu s",
             s.step, s.ds_count, f->resolution);
    r = -EPROTO;
  }
  for (size_t i = 0; r == 0 && i < s.row_count; i++) {
    time_t t = rrd_series_time(&s, i); /* the row's end */
    if (t > f->start && t <= f->end)
      r = write_row(run, src, t, rrd_series_row(&s, i), err, err_size);
  }
  rrd_series_free(&s);
  return r;
}

/* One RRD file: how it is opened and how the output names it. */
struct part {
  const struct rrd_layout *layout;
  char path[PATH_MAX];  /* for librrd or the daemon */
  char shown[PATH_MAX]; /* "<layout>/<file name>" */
};

static int part_name(const struct export_run *run,
                     const struct rrd_layout *layout, const char *file_name,
                     struct part *ret) {
  ret->layout = layout;
  int r = rrd_file_name_path(run->data_dir, layout, file_name, ret->path,
                             sizeof(ret->path));
  if (r == 0)
    r = rrd_file_name_path(NULL, layout, file_name, ret->shown,
                           sizeof(ret->shown));
  return r;
}

static bool is_regular_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The pve2 file whose history a 9.0 file continues, as Proxmox's rrddata
 * finds it: <name>, else <name>.old, in the legacy directory.  Only for
 * files on this host (not through a daemon over TCP). */
static bool find_legacy(const struct export_run *run,
                        const struct export_file *file, struct part *ret) {
  if (run->daemon != NULL && !rrdcached_address_is_unix(run->daemon))
    return false;
  const struct rrd_layout *layout =
      file->kind == EXPORT_VM ? &layout_pve2_vm : &layout_pve2_node;
  static const char *const suffixes[] = {"", ".old"};
  for (size_t i = 0; i < 2; i++) {
    char name[RRD_FILE_NAME_MAX + 8];
    snprintf(name, sizeof(name), "%s%s", file->name, suffixes[i]);
    if (part_name(run, layout, name, ret) == 0 && is_regular_file(ret->path))
      return true;
  }
  return false;
}

/* The file's layout must be the expected one, and its last update known. */
static int inspect(struct export_run *run, const struct part *part,
                   time_t *last, char *err, size_t err_size) {
  const struct rrd_access *access =
      run->client ? rrdcached_client_access(run->client) : &rrd_access_librrd;
  char why[WHY_SIZE] = "";
  int r =
      access->check(access->ctx, part->layout, part->path, why, sizeof(why));
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

/* Puts "<layout>/<name>: " in front of the message in err. */
static void name_error(const struct part *part, char *err, size_t err_size) {
  char text[WHY_SIZE];
  snprintf(text, sizeof(text), "%s", err);
  snprintf(err, err_size, "%s: %s", part->shown, text);
}

/* The part's rows with times in [since, until]; *last is its last
 * update. */
static int export_part(struct export_run *run, const struct export_file *file,
                       const struct part *part, time_t since, time_t until,
                       time_t *last, char *err, size_t err_size) {
  int r = inspect(run, part, last, err, err_size);
  struct export_plan plan = {0};
  bool tcp = run->daemon != NULL && !rrdcached_address_is_unix(run->daemon);
  if (r == 0 && since <= until)
    r = export_range_plan(part->layout, run->cf, *last, since, until, tcp,
                          &plan);
  if (r < 0) {
    name_error(part, err, err_size);
    return r;
  }
  struct export_source src = {.kind = file->kind,
                              .name = file->name,
                              .file = part->shown,
                              .prefix = run->prefix,
                              .layout = part->layout};
  export_format_header(run->format, &src, run->out);
  for (size_t i = 0; r == 0 && i < plan.count; i++)
    r = export_fetch(run, &src, part->path, &plan.fetch[i], err, err_size);
  if (r < 0 && !run->net_failed)
    name_error(part, err, err_size);
  return r;
}

/* With a legacy file, its rows come first, up to its last update (when
 * the upgrade to PVE 9 stopped its updates), and the 9.0 file's rows
 * after it: the rule of Proxmox's rrddata, so a moment is never exported
 * from both, even when the 9.0 file holds migrated history. */
int export_run_file(struct export_run *run, const struct export_file *file,
                    char *err, size_t err_size) {
  struct part current, legacy;
  int r = part_name(run, file->layout, file->name, &current);
  if (r < 0) {
    snprintf(err, err_size, "%s/%s: cannot name the file: %s",
             file->layout->name, file->name, strerror(-r));
    return r;
  }
  time_t since = run->since, last;
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
  return r == 0 ? send_batch(run, err, err_size) : r;
}

int export_run_end(struct export_run *run, char *err, size_t err_size) {
  int r = 0;
  if (run->net != NULL && !run->net_failed) {
    r = send_batch(run, err, err_size);
    if (r == 0)
      r = net_sender_finish(run->net, err, err_size);
    if (r < 0)
      run->net_failed = true;
  }
  if (run->net != NULL && run->out != NULL)
    fclose(run->out);
  free(run->batch);
  run->batch = NULL;
  run->out = NULL;
  rrdcached_client_free(run->client);
  run->client = NULL;
  return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Answers (see serve_answer.h).  The rows come from the two halves of
 * rrddata_print(), so the API's bodies are byte for byte what `pvecg
 * rrddata` prints (without its final newline, as Proxmox's API sends
 * them).  Files are read one request at a time (serve_read.h); the JSON,
 * most of an answer's time, is written by all threads at once.
 */
#include "serve_answer.h"

#include "pvecg/json_writer.h"
#include "pvecg/rrddata_print.h"
#include "serve_assets.h"
#include "serve_cluster.h"
#include "serve_list.h"
#include "serve_metrics.h"
#include "serve_overview.h"
#include "serve_read.h"
#include "serve_scope.h"
#include "pvecg/view_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void asset_reply(const struct serve_request *req,
                        struct serve_reply *r) {
  const struct serve_asset *a = serve_asset_find(req->asset);
  if (a == NULL) {
    serve_fail_reply(r, 404, "no such path");
    return;
  }
  r->status = 200;
  r->content_type = a->content_type;
  r->cache_control = "no-cache";
  r->page = true;
  r->data = a->data;
  r->size = a->size;
}

/* ---- listings ------------------------------------------------------------ */

struct list_arg {
  const struct serve_config *config;
  const struct data_clusters *clusters;
  bool guests;
  const struct serve_scope *scope;
};

static void fill_list(struct json_writer *w, const void *arg) {
  const struct list_arg *a = arg;
  serve_list_write(w, a->config, a->clusters, a->guests, a->scope);
}

static void list_reply(const struct serve_config *config,
                       const struct serve_request *req,
                       const struct serve_scope *scope, struct serve_reply *r) {
  struct data_clusters clusters;
  if (serve_clusters_of(config, req, &clusters) != 0) {
    serve_fail_reply(r, 500, "out of memory");
    return;
  }
  struct list_arg a = {config, &clusters, req->route == SERVE_ROUTE_RESOURCES,
                       scope};
  serve_json_reply(r, 200, fill_list, &a);
  data_clusters_free(&clusters);
}

/* ---- rows ---------------------------------------------------------------- */

static void view_args_of(const struct serve_config *c,
                         const struct serve_request *req, const char *cluster,
                         struct view_args *args) {
  view_args_init(args);
  args->has_timeframe = true;
  args->timeframe = req->timeframe;
  args->cf = req->cf;
  if (c->now != 0)
    args->now = c->now;
  args->data_dir = c->data_dir;
  args->daemon = c->daemon;
  args->cluster = cluster;
  args->ksm = req->ksm;
  args->pressure = req->pressure;
  if (req->route == SERVE_ROUTE_GUEST_RRDDATA)
    args->vmid = req->vmid;
  else
    args->node = req->node;
}

/* ---- the cluster of a file ----------------------------------------------- */

/* The layout of the file req reads: the guest's or node's pve file, or
 * its KSM or stall-time file. */
static const struct rrd_layout *layout_of(const struct serve_request *req) {
  bool guest = req->route == SERVE_ROUTE_GUEST_RRDDATA;
  if (req->ksm)
    return guest ? &layout_pvecg_ksm_vm_1_0 : &layout_pvecg_ksm_node_1_0;
  if (req->pressure)
    return guest ? &layout_pvecg_pressure_vm_1_0
                 : &layout_pvecg_pressure_node_1_0;
  return guest ? &layout_pve_vm_9_0 : &layout_pve_node_9_0;
}

#define CLUSTERS_TEXT_MAX 1024

static void fill_message(struct json_writer *w, const void *arg) {
  json_begin_object(w);
  json_key(w, "data");
  json_null(w);
  json_key(w, "message");
  json_string(w, arg);
  json_end_object(w);
}

/*
 * The cluster whose file the request means (see serve_cluster.h) into
 * buf; false with the answer in r when it cannot be told.  A file no
 * cluster has is looked for in "" (the daemon over TCP may still have it,
 * else the answer is the 404 it was before clusters).  Under a scope only
 * the clusters where the scope sees the file count, so that neither the
 * pick nor the 400 tells of a file outside it.
 */
static bool cluster_of(const struct serve_config *c,
                       const struct serve_request *req,
                       const struct serve_scope *scope, char *buf, size_t size,
                       struct serve_reply *r) {
  bool guest = req->route == SERVE_ROUTE_GUEST_RRDDATA;
  char names[CLUSTERS_TEXT_MAX], text[CLUSTERS_TEXT_MAX + 160];
  if (req->has_cluster) {
    snprintf(buf, size, "%s", req->cluster);
    return true;
  }
  int p = serve_cluster_pick(c, layout_of(req), guest ? req->vmid : req->node,
                             scope, names, sizeof(names));
  if (p == 0 || p == -ENOENT) {
    /* one name, at most RRD_FILE_NAME_MAX bytes */
    snprintf(buf, size, "%.*s", (int)size - 1, p == 0 ? names : "");
    return true;
  }
  if (p != -EEXIST) {
    serve_fail_reply(r, 500, "out of memory");
    return false;
  }
  snprintf(text, sizeof(text),
           "%s %s has files in several clusters (%s): name one with the "
           "parameter cluster",
           guest ? "guest" : "node", guest ? req->vmid : req->node, names);
  serve_json_reply(r, 400, fill_message, text);
  snprintf(r->message, sizeof(r->message), "%.*s", (int)sizeof(r->message) - 1,
           text);
  return false;
}

/* The rows into a body; -EIO with err filled when they cannot be read.
 * Only the reading holds the lock: the JSON, most of the time, is written
 * by every thread at once. */
static int read_body(const struct view_args *args,
                     const struct view_source *src, char **body, size_t *size,
                     char *err, size_t err_size) {
  struct rrddata_rows rows;
  serve_read_begin();
  int r = rrddata_read(args, src, &rows, err, err_size);
  serve_read_end();
  if (r != 0)
    return -EIO;
  FILE *out = open_memstream(body, size);
  if (out != NULL)
    rrddata_rows_write(&rows, out);
  rrddata_rows_free(&rows);
  if (out == NULL || fclose(out) != 0) {
    free(*body);
    *body = NULL;
    snprintf(err, err_size, "out of memory");
    return -EIO;
  }
  return 0;
}

/*
 * A file outside the scope is answered as a missing one, after the same
 * work: the clusters' files looked at by the pick, the file itself by
 * stat() -- whether it is there or not, in the scope or not -- so neither
 * the answer nor its time tells one from the other.  Through a daemon over
 * TCP (no stat()) a file outside the scope is never asked for, whether it
 * is there or not.
 */
static void rrddata_reply(const struct serve_config *c,
                          const struct serve_request *req,
                          const struct serve_scope *scope,
                          struct serve_reply *r) {
  struct view_args args;
  struct view_source src;
  struct stat st;
  char err[sizeof(r->message)], cluster[RRD_FILE_NAME_MAX + 1];
  if (!cluster_of(c, req, scope, cluster, sizeof(cluster), r))
    return;
  view_args_of(c, req, cluster, &args);
  /* the names were checked by the request rules: this cannot fail */
  if (view_source_resolve(&args, "pvecg serve", &src) != 0) {
    serve_fail_reply(r, 400, "bad name");
    return;
  }
  bool seen = serve_scope_sees(scope, cluster, layout_of(req),
                               args.vmid != NULL ? args.vmid : args.node);
  if ((!src.remote && stat(src.path, &st) != 0) || !seen) {
    serve_fail_reply(r, 404,
                     args.vmid != NULL ? "no RRD file for this guest"
                                       : "no RRD file for this node");
    return;
  }
  if (read_body(&args, &src, &r->body, &r->size, err, sizeof(err)) != 0) {
    serve_fail_reply(r, 500, "the RRD file could not be read");
    snprintf(r->message, sizeof(r->message), "%s", err);
    return;
  }
  r->status = 200;
  r->content_type = SERVE_JSON_TYPE;
  r->cache_control = "no-store";
}

void serve_answer(const struct serve_config *config, const char *method,
                  const char *path, const struct serve_param *params,
                  size_t count, const struct serve_headers *headers,
                  struct serve_reply *ret) {
  struct serve_request req;
  struct serve_error err;
  *ret = (struct serve_reply){0};
  if (serve_request_parse(method, path, params, count, &req, &err) != 0) {
    serve_error_reply(ret, &err);
    return;
  }
  switch (req.route) {
  case SERVE_ROUTE_ASSET:
    asset_reply(&req, ret);
    return;
  case SERVE_ROUTE_NODES:
  case SERVE_ROUTE_RESOURCES:
    list_reply(config, &req, headers->scope, ret);
    return;
  case SERVE_ROUTE_NODE_RRDDATA:
  case SERVE_ROUTE_GUEST_RRDDATA:
    rrddata_reply(config, &req, headers->scope, ret);
    return;
  case SERVE_ROUTE_METRICS:
    serve_metrics_reply(config, &req, headers, ret);
    return;
  case SERVE_ROUTE_OVERVIEW:
    serve_overview_reply(config, &req, headers->scope, ret);
    return;
  }
}

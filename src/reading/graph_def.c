/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The graphs `pvecg graph` draws (see graph_def.h), as tables: the series
 * and legends follow the Proxmox web UI's graphs of a guest and of the
 * node.  The node has no diskread/diskwrite, so its "disk" graph is the
 * root file system's size and use, which the UI shows as "HD space".
 */
#include "pvecg/graph_def.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const what_names[] = {
    [GRAPH_MEMORY] = "memory", [GRAPH_PRESSURE] = "pressure",
    [GRAPH_CPU] = "cpu",       [GRAPH_NET] = "net",
    [GRAPH_DISK] = "disk",
};

#define WHAT_COUNT (sizeof(what_names) / sizeof(what_names[0]))

int graph_what_parse(const char *name, enum graph_what *ret) {
  for (size_t i = 0; name != NULL && i < WHAT_COUNT; i++)
    if (strcmp(name, what_names[i]) == 0) {
      *ret = (enum graph_what)i;
      return 0;
    }
  return -EINVAL;
}

#define BLUE "#115fa6"
#define GREEN "#94ae0a"
#define RED "#a61120"
#define ORANGE "#ff8809"
#define YELLOW "#ffd13e"
#define PURPLE "#a61187"

static const struct graph_def guest_graphs[] = {
    [GRAPH_MEMORY] = {"Memory usage",
                      "bytes",
                      1024,
                      {{"maxmem", "Total", BLUE, false},
                       {"mem", "RAM usage", GREEN, false},
                       {"memhost", "Host memory usage", ORANGE, false}},
                      3},
    [GRAPH_PRESSURE] = {"Pressure stall",
                        "%",
                        1000,
                        {{"pressurecpusome", "CPU some", BLUE, false},
                         {"pressurecpufull", "CPU full", GREEN, false},
                         {"pressureiosome", "IO some", RED, false},
                         {"pressureiofull", "IO full", ORANGE, false},
                         {"pressurememorysome", "Memory some", YELLOW, false},
                         {"pressurememoryfull", "Memory full", PURPLE, false}},
                        6},
    [GRAPH_CPU] =
        {"CPU usage", "%", 1000, {{"cpu", "CPU usage", BLUE, true}}, 1},
    [GRAPH_NET] = {"Network traffic",
                   "bytes/s",
                   1000,
                   {{"netin", "In", BLUE, false},
                    {"netout", "Out", GREEN, false}},
                   2},
    [GRAPH_DISK] = {"Disk IO",
                    "bytes/s",
                    1000,
                    {{"diskread", "Read", BLUE, false},
                     {"diskwrite", "Write", GREEN, false}},
                    2},
};

static const struct graph_def node_graphs[] = {
    [GRAPH_MEMORY] = {"Memory usage",
                      "bytes",
                      1024,
                      {{"memtotal", "Total", BLUE, false},
                       {"memused", "RAM usage", GREEN, false},
                       {"swapused", "Swap usage", RED, false}},
                      3},
    [GRAPH_PRESSURE] = {"Pressure stall",
                        "%",
                        1000,
                        {{"pressurecpusome", "CPU some", BLUE, false},
                         {"pressureiosome", "IO some", RED, false},
                         {"pressureiofull", "IO full", ORANGE, false},
                         {"pressurememorysome", "Memory some", YELLOW, false},
                         {"pressurememoryfull", "Memory full", PURPLE, false}},
                        5},
    [GRAPH_CPU] = {"CPU usage",
                   "%",
                   1000,
                   {{"cpu", "CPU usage", BLUE, true},
                    {"iowait", "IO delay", RED, true}},
                   2},
    [GRAPH_NET] = {"Network traffic",
                   "bytes/s",
                   1000,
                   {{"netin", "In", BLUE, false},
                    {"netout", "Out", GREEN, false}},
                   2},
    [GRAPH_DISK] = {"Root disk usage",
                    "bytes",
                    1024,
                    {{"roottotal", "Total", BLUE, false},
                     {"rootused", "Used", GREEN, false}},
                    2},
};

const struct graph_def *graph_def_get(enum graph_what what, bool node) {
  if ((size_t)what >= WHAT_COUNT)
    return NULL;
  return node ? &node_graphs[what] : &guest_graphs[what];
}

/* ---- arguments ------------------------------------------------------------
 */

struct arg_list {
  struct graph_args *args;
  size_t capacity;
  int failed;
};

__attribute__((format(printf, 2, 3))) static void add(struct arg_list *l,
                                                      const char *fmt, ...) {
  if (l->failed)
    return;
  if ((size_t)l->args->argc + 2 > l->capacity) {
    size_t cap = l->capacity ? 2 * l->capacity : 32;
    char **argv = realloc(l->args->argv, cap * sizeof(*argv));
    if (argv == NULL) {
      l->failed = -ENOMEM;
      return;
    }
    l->args->argv = argv;
    l->capacity = cap;
  }
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) {
    l->failed = -ENOMEM;
    return;
  }
  l->args->argv[l->args->argc++] = s;
  l->args->argv[l->args->argc] = NULL;
}

/* A file name inside DEF:, where ':' separates fields: as "\:". */
static char *def_path(const char *path) {
  char *out = malloc(2 * strlen(path) + 1), *o = out;
  if (out == NULL)
    return NULL;
  for (const char *p = path; *p != '\0'; p++) {
    if (*p == ':' || *p == '\\')
      *o++ = '\\';
    *o++ = *p;
  }
  *o = '\0';
  return out;
}

static void add_options(struct arg_list *l, const struct graph_def *def,
                        const struct graph_request *req) {
  add(l, "graphv");
  add(l, "%s", req->out);
  add(l, "--imgformat=PNG");
  add(l, "--full-size-mode");
  add(l, "--width=%u", req->width);
  add(l, "--height=%u", req->height);
  add(l, "--start=%lld", (long long)req->start);
  add(l, "--end=%lld", (long long)req->end);
  add(l, "--step=%lu", req->step);
  add(l, "--title=%s - %s (%s, %s)", def->title, req->name, req->timeframe,
      rrd_cf_name(req->cf));
  add(l, "--vertical-label=%s", def->unit);
  add(l, "--base=%u", def->base);
  add(l, "--lower-limit=0");
  if (req->daemon != NULL)
    add(l, "--daemon=%s", req->daemon);
}

/* DEF (and the x100 CDEF) of one line's data source in path; the name of
 * what to draw is "<prefix><k>" or "<prefix><k>p". */
static void add_def(struct arg_list *l, const struct graph_line *line,
                    const char *prefix, size_t k, const char *path,
                    const struct graph_request *req, bool from_last) {
  const char *cf = rrd_cf_name(req->cf);
  /* librrd wants a DEF to start before the graph ends */
  time_t start = req->legacy_last < req->end - (time_t)req->step
                     ? req->legacy_last
                     : req->end - (time_t)req->step;
  if (from_last)
    add(l, "DEF:%s%zu=%s:%s:%s:start=%lld", prefix, k, path, line->ds, cf,
        (long long)start);
  else
    add(l, "DEF:%s%zu=%s:%s:%s", prefix, k, path, line->ds, cf);
  if (line->percent)
    add(l, "CDEF:%s%zup=%s%zu,100,*", prefix, k, prefix, k);
}

static void add_lines(struct arg_list *l, const struct graph_def *def,
                      const struct graph_request *req, const char *path,
                      const char *legacy) {
  for (size_t k = 0; k < def->line_count; k++) {
    const struct graph_line *line = &def->lines[k];
    const char *p = line->percent ? "p" : "";
    bool old = legacy != NULL &&
               rrd_layout_ds_index(req->legacy_layout, line->ds) >= 0;
    add_def(l, line, "v", k, path, req, old);
    add(l, "LINE2:v%zu%s%s:%s", k, p, line->color, line->legend);
    if (old) {
      add_def(l, line, "o", k, legacy, req, false);
      add(l, "LINE2:o%zu%s%s", k, p, line->color);
    }
  }
}

int graph_args_build(const struct graph_def *def,
                     const struct graph_request *req, struct graph_args *ret) {
  struct graph_args args = {0};
  struct arg_list l = {.args = &args};
  char *path = def_path(req->path);
  char *legacy = req->legacy_path != NULL ? def_path(req->legacy_path) : NULL;
  if (path == NULL || (req->legacy_path != NULL && legacy == NULL))
    l.failed = -ENOMEM;
  add_options(&l, def, req);
  add_lines(&l, def, req, path, legacy);
  free(path);
  free(legacy);
  if (l.failed) {
    graph_args_free(&args);
    return l.failed;
  }
  *ret = args;
  return 0;
}

void graph_args_free(struct graph_args *args) {
  for (int i = 0; i < args->argc; i++)
    free(args->argv[i]);
  free(args->argv);
  *args = (struct graph_args){0};
}

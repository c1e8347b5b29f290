/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The request rules of `pvecg serve` (see serve_request.h).  A path is cut
 * into at most eight segments of the characters a node name or VMID can
 * have, so nothing that reaches a file name (".", "..", "/", "%", "\\")
 * gets past this file; the names are then checked by the same functions
 * the command line's are.
 */
#include "serve_request.h"

#include "pvecg/vmid.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PATH_MAX_LENGTH 512
#define SEGMENTS_MAX 8
#define API_PREFIX "/api2/json"

struct segments {
  size_t count;
  const char *text[SEGMENTS_MAX];
  size_t length[SEGMENTS_MAX];
};

static int fail(struct serve_error *err, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct serve_error *err, int status, const char *format, ...) {
  va_list ap;
  *err = (struct serve_error){.status = status};
  va_start(ap, format);
  vsnprintf(err->message, sizeof(err->message), format, ap);
  va_end(ap);
  return -EINVAL;
}

/* Proxmox's answer to a bad parameter: one message, the details by name. */
static int fail_param(struct serve_error *err, const char *param,
                      const char *problem) {
  fail(err, 400, "Parameter verification failed.");
  snprintf(err->param, sizeof(err->param), "%s", param);
  snprintf(err->param_problem, sizeof(err->param_problem), "%s", problem);
  return -EINVAL;
}

static bool segment_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/* Cuts "/a/b/c" into its segments.  Empty segments ("//", a trailing
 * '/'), dot segments and any other character are refused. */
static int split(const char *path, struct segments *ret) {
  struct segments s = {0};
  const char *p = path + 1;
  while (*p != '\0') {
    const char *begin = p;
    while (segment_char(*p))
      p++;
    size_t len = (size_t)(p - begin);
    if (len == 0 || begin[0] == '.' || (*p != '/' && *p != '\0') ||
        s.count == SEGMENTS_MAX)
      return -EINVAL;
    s.text[s.count] = begin;
    s.length[s.count++] = len;
    if (*p == '/' && *++p == '\0')
      return -EINVAL;
  }
  *ret = s;
  return 0;
}

static bool is(const struct segments *s, size_t i, const char *word) {
  return i < s->count && s->length[i] == strlen(word) &&
         memcmp(s->text[i], word, s->length[i]) == 0;
}

static int copy_node(const struct segments *s, size_t i,
                     struct serve_request *ret, struct serve_error *err) {
  if (s->length[i] > RRD_FILE_NAME_MAX)
    return fail_param(err, "node", "value is too long");
  memcpy(ret->node, s->text[i], s->length[i]);
  ret->node[s->length[i]] = '\0';
  if (rrd_file_name_problem(ret->node) != NULL)
    return fail_param(err, "node", "invalid format - not a node name");
  return 0;
}

static int copy_vmid(const struct segments *s, size_t i,
                     struct serve_request *ret, struct serve_error *err) {
  uint32_t vmid;
  if (vmid_parse(s->text[i], s->length[i], &vmid) != 0)
    return fail_param(err, "vmid",
                      "invalid format - not a VMID (100..999999999)");
  memcpy(ret->vmid, s->text[i], s->length[i]);
  ret->vmid[s->length[i]] = '\0';
  return 0;
}

/* The segments of /api2/json/...: s[0] and s[1] are "api2" and "json". */
static int route_api(const struct segments *s, struct serve_request *ret,
                     struct serve_error *err) {
  if (s->count == 4 && is(s, 2, "cluster") && is(s, 3, "resources")) {
    ret->route = SERVE_ROUTE_RESOURCES;
    return 0;
  }
  if (s->count == 4 && is(s, 2, "pvecg") && is(s, 3, "overview")) {
    ret->route = SERVE_ROUTE_OVERVIEW;
    return 0;
  }
  if (!is(s, 2, "nodes"))
    return fail(err, 404, "no such path");
  if (s->count == 3) {
    ret->route = SERVE_ROUTE_NODES;
    return 0;
  }
  if (s->count == 5 && is(s, 4, "rrddata")) {
    ret->route = SERVE_ROUTE_NODE_RRDDATA;
    return copy_node(s, 3, ret, err);
  }
  if (s->count == 7 && is(s, 6, "rrddata") &&
      (is(s, 4, "qemu") || is(s, 4, "lxc"))) {
    ret->route = SERVE_ROUTE_GUEST_RRDDATA;
    ret->guest_type = is(s, 4, "qemu") ? "qemu" : "lxc";
    if (copy_node(s, 3, ret, err) != 0)
      return -EINVAL;
    return copy_vmid(s, 5, ret, err);
  }
  return fail(err, 404, "no such path");
}

static int route(const char *path, struct serve_request *ret,
                 struct serve_error *err) {
  if (strlen(path) > PATH_MAX_LENGTH)
    return fail(err, 414, "the path is too long");
  if (path[0] != '/')
    return fail(err, 404, "no such path");
  if (strcmp(path, "/metrics") == 0) {
    ret->route = SERVE_ROUTE_METRICS;
    return 0;
  }
  if (strncmp(path, API_PREFIX "/", sizeof(API_PREFIX)) != 0) {
    ret->route = SERVE_ROUTE_ASSET;
    ret->asset = path;
    return 0;
  }
  struct segments s;
  if (split(path, &s) != 0)
    return fail(err, 404, "no such path");
  return route_api(&s, ret, err);
}

/* ---- parameters ---------------------------------------------------------- */

static int take_value(const struct serve_param *p, struct serve_request *ret,
                      struct serve_error *err) {
  if (strcmp(p->key, "timeframe") == 0) {
    if (p->value == NULL || rrddata_timeframe_parse(p->value, &ret->timeframe))
      return fail_param(err, "timeframe",
                        "value does not have a value in the enumeration "
                        "'hour, day, week, month, year, decade'");
    return 0;
  }
  if (p->value != NULL && strcmp(p->value, "AVERAGE") == 0)
    ret->cf = RRD_CF_AVERAGE;
  else if (p->value != NULL && strcmp(p->value, "MAX") == 0)
    ret->cf = RRD_CF_MAX;
  else
    return fail_param(err, "cf",
                      "value does not have a value in the enumeration "
                      "'AVERAGE, MAX'");
  return 0;
}

static bool rrddata_route(enum serve_route r) {
  return r == SERVE_ROUTE_NODE_RRDDATA || r == SERVE_ROUTE_GUEST_RRDDATA;
}

/* A cluster's name, as a directory of the data directory would have it;
 * "" (or no value) is the data directory's own files. */
static int take_cluster(const struct serve_param *p, struct serve_request *ret,
                        struct serve_error *err) {
  const char *v = p->value != NULL ? p->value : "";
  if (v[0] != '\0' &&
      (strlen(v) > RRD_FILE_NAME_MAX || rrd_cluster_name_problem(v) != NULL))
    return fail_param(err, "cluster", "invalid format - not a cluster name");
  ret->has_cluster = true;
  snprintf(ret->cluster, sizeof(ret->cluster), "%s", v);
  return 0;
}

/* ksm, pressure: 0 or 1, as Proxmox's API writes a boolean. */
static int take_bool(const struct serve_param *p, bool *ret,
                     struct serve_error *err) {
  const char *v = p->value != NULL ? p->value : "";
  if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
    return fail_param(err, p->key,
                      "type check ('boolean') failed - not 0 or 1");
  *ret = v[0] == '1';
  return 0;
}

/* Which of pvecg's files rrddata reads instead of the pve file: ksm=1 and
 * pressure=1 name two different files, so only one may be asked for. */
static int take_file_flag(const struct serve_param *p, bool *seen,
                          struct serve_request *ret, struct serve_error *err) {
  bool pressure = strcmp(p->key, "pressure") == 0;
  if (*seen)
    return fail_param(err, p->key, "given more than once");
  *seen = true;
  if (take_bool(p, pressure ? &ret->pressure : &ret->ksm, err) != 0)
    return -EINVAL;
  if (ret->ksm && ret->pressure)
    return fail_param(err, p->key,
                      "ksm and pressure name different files; give one");
  return 0;
}

static bool file_flag(const char *key) {
  return strcmp(key, "ksm") == 0 || strcmp(key, "pressure") == 0;
}

/* The API's parameters: each known one at most once, no other one. */
static int take_params(const struct serve_param *params, size_t count,
                       struct serve_request *ret, struct serve_error *err) {
  bool seen_timeframe = false, seen_cf = false, seen_ksm = false,
       seen_pressure = false;
  for (size_t i = 0; i < count; i++) {
    const char *key = params[i].key != NULL ? params[i].key : "";
    bool timeframe = strcmp(key, "timeframe") == 0;
    bool cf = strcmp(key, "cf") == 0;
    if (strcmp(key, "cluster") == 0) {
      if (ret->has_cluster)
        return fail_param(err, key, "given more than once");
      if (take_cluster(&params[i], ret, err) != 0)
        return -EINVAL;
      continue;
    }
    if (rrddata_route(ret->route) && file_flag(key)) {
      bool *seen = strcmp(key, "ksm") == 0 ? &seen_ksm : &seen_pressure;
      if (take_file_flag(&params[i], seen, ret, err) != 0)
        return -EINVAL;
      continue;
    }
    if (!rrddata_route(ret->route) || (!timeframe && !cf))
      return fail_param(err, key,
                        "property is not defined in schema and the schema "
                        "does not allow additional properties");
    if ((timeframe && seen_timeframe) || (cf && seen_cf))
      return fail_param(err, key, "given more than once");
    seen_timeframe |= timeframe;
    seen_cf |= cf;
    if (take_value(&params[i], ret, err) != 0)
      return -EINVAL;
  }
  if (rrddata_route(ret->route) && !seen_timeframe)
    return fail_param(err, "timeframe",
                      "property is missing and it is not optional");
  return 0;
}

int serve_request_parse(const char *method, const char *path,
                        const struct serve_param *params, size_t count,
                        struct serve_request *ret, struct serve_error *err) {
  struct serve_request r = {.cf = RRD_CF_AVERAGE};
  if (method == NULL || path == NULL)
    return fail(err, 400, "no method or path");
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return fail(err, 405, "only GET and HEAD are served");
  if (route(path, &r, err) != 0)
    return -EINVAL;
  if (count > SERVE_PARAMS_MAX)
    return fail(err, 400, "too many query parameters");
  /* the page's files ignore a query (a browser may add one) */
  if (r.route != SERVE_ROUTE_ASSET && take_params(params, count, &r, err) != 0)
    return -EINVAL;
  *ret = r;
  return 0;
}

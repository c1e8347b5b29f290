/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for serve_request_parse (src/serve/serve_request.c), the rules of
 * every HTTP request `pvecg serve` answers.  The input is
 * "METHOD\nPATH\nk=v&k&k=v...": a parameter without '=' has no value, as
 * libmicrohttpd gives it.  Beyond memory safety it checks:
 *   - the answer is 0, or -EINVAL with a 400/404/405/414, a message, and
 *     *ret untouched;
 *   - an accepted request's path is exactly the one its route and names
 *     rebuild, so no other path (dot segments, escapes, doubled slashes)
 *     reaches a file name, and each name passes the command line's checks;
 *   - an API request names only the parameters its route takes, once each,
 *     and rrddata always got its timeframe; a cluster is "" or a name
 *     rrd_cluster_name_problem() accepts; rrddata's ksm and pressure are
 *     "0" or "1", taken as given, never both 1.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/rrd_file_name.h"
#include "serve_request.h"
#include "pvecg/vmid.h"

#define INPUT_MAX 2048

static bool segment_chars(const char *s) {
  return s[0] != '.' &&
         strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789-_.") == strlen(s);
}

/* The path an accepted request must have come from. */
static void rebuild(const struct serve_request *r, char *buf, size_t size) {
  switch (r->route) {
  case SERVE_ROUTE_ASSET:
    snprintf(buf, size, "%s", r->asset);
    return;
  case SERVE_ROUTE_NODES:
    snprintf(buf, size, "/api2/json/nodes");
    return;
  case SERVE_ROUTE_RESOURCES:
    snprintf(buf, size, "/api2/json/cluster/resources");
    return;
  case SERVE_ROUTE_NODE_RRDDATA:
    snprintf(buf, size, "/api2/json/nodes/%s/rrddata", r->node);
    return;
  case SERVE_ROUTE_GUEST_RRDDATA:
    snprintf(buf, size, "/api2/json/nodes/%s/%s/%s/rrddata", r->node,
             r->guest_type, r->vmid);
    return;
  case SERVE_ROUTE_METRICS:
    snprintf(buf, size, "/metrics");
    return;
  case SERVE_ROUTE_OVERVIEW:
    snprintf(buf, size, "/api2/json/pvecg/overview");
    return;
  }
  FUZZ_CHECK(!"a route that does not exist");
}

static void check_names(const struct serve_request *r) {
  uint32_t vmid;
  if (r->route == SERVE_ROUTE_ASSET) {
    FUZZ_CHECK(r->asset[0] == '/' && strncmp(r->asset, "/api2/json/", 11));
    return;
  }
  if (r->route != SERVE_ROUTE_NODE_RRDDATA &&
      r->route != SERVE_ROUTE_GUEST_RRDDATA)
    return;
  FUZZ_CHECK(segment_chars(r->node) && rrd_file_name_problem(r->node) == NULL);
  if (r->route == SERVE_ROUTE_GUEST_RRDDATA) {
    FUZZ_CHECK(vmid_parse_string(r->vmid, &vmid) == 0);
    FUZZ_CHECK(!strcmp(r->guest_type, "qemu") || !strcmp(r->guest_type, "lxc"));
  }
}

static void check_params(const struct serve_request *r,
                         const struct serve_param *p, size_t n) {
  bool rrddata = r->route == SERVE_ROUTE_NODE_RRDDATA ||
                 r->route == SERVE_ROUTE_GUEST_RRDDATA;
  size_t timeframes = 0, cfs = 0, clusters = 0, ksms = 0, pressures = 0;
  bool ksm = false, pressure = false;
  if (r->route == SERVE_ROUTE_ASSET)
    return;
  FUZZ_CHECK(n <= SERVE_PARAMS_MAX);
  for (size_t i = 0; i < n; i++) {
    timeframes += strcmp(p[i].key, "timeframe") == 0;
    cfs += strcmp(p[i].key, "cf") == 0;
    clusters += strcmp(p[i].key, "cluster") == 0;
    bool is_ksm = strcmp(p[i].key, "ksm") == 0;
    bool is_pressure = strcmp(p[i].key, "pressure") == 0;
    if (is_ksm || is_pressure) {
      FUZZ_CHECK(p[i].value != NULL &&
                 (!strcmp(p[i].value, "0") || !strcmp(p[i].value, "1")));
      *(is_ksm ? &ksm : &pressure) = p[i].value[0] == '1';
    }
    ksms += is_ksm;
    pressures += is_pressure;
  }
  FUZZ_CHECK(timeframes + cfs + clusters + ksms + pressures == n && cfs <= 1 &&
             clusters <= 1 && ksms <= 1 && pressures <= 1);
  FUZZ_CHECK(rrddata ? timeframes == 1
                     : timeframes + cfs + ksms + pressures == 0);
  FUZZ_CHECK(r->ksm == ksm && r->pressure == pressure && !(ksm && pressure));
  FUZZ_CHECK(r->cf == RRD_CF_AVERAGE || r->cf == RRD_CF_MAX);
  /* a cluster reaches a path only as a name of a directory of its own */
  FUZZ_CHECK(r->has_cluster == (clusters == 1));
  FUZZ_CHECK(!r->has_cluster || r->cluster[0] == '\0' ||
             rrd_cluster_name_problem(r->cluster) == NULL);
}

/* Cuts the query into parameters (keys and values point into query). */
static size_t split_query(char *query, struct serve_param *p, size_t max) {
  size_t n = 0;
  for (char *part = query; part != NULL && n < max;) {
    char *next = strchr(part, '&');
    if (next != NULL)
      *next++ = '\0';
    char *eq = strchr(part, '=');
    if (eq != NULL)
      *eq++ = '\0';
    p[n++] = (struct serve_param){part, eq};
    part = next;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char input[INPUT_MAX + 1], rebuilt[1024];
  struct serve_param params[SERVE_PARAMS_MAX + 4];
  if (size > INPUT_MAX)
    return 0;
  memcpy(input, data, size);
  input[size] = '\0';
  char *method = input, *path = strchr(input, '\n');
  if (path == NULL)
    return 0;
  *path++ = '\0';
  char *query = strchr(path, '\n');
  if (query != NULL)
    *query++ = '\0';
  size_t n =
      query != NULL ? split_query(query, params, SERVE_PARAMS_MAX + 4) : 0;
  struct serve_request r, before;
  struct serve_error err;
  memset(&r, 0x5a, sizeof(r));
  before = r;
  int rc = serve_request_parse(method, path, params, n, &r, &err);
  if (rc != 0) {
    FUZZ_CHECK(rc == -EINVAL && memcmp(&r, &before, sizeof(r)) == 0);
    FUZZ_CHECK(err.status == 400 || err.status == 404 || err.status == 405 ||
               err.status == 414);
    FUZZ_CHECK(err.message[0] != '\0' &&
               memchr(err.message, '\0', sizeof(err.message)) != NULL);
    return 0;
  }
  FUZZ_CHECK(!strcmp(method, "GET") || !strcmp(method, "HEAD"));
  rebuild(&r, rebuilt, sizeof(rebuilt));
  FUZZ_CHECK(strcmp(rebuilt, path) == 0);
  check_names(&r);
  check_params(&r, params, n);
  return 0;
}

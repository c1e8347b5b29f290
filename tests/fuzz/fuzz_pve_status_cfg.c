/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/pve_status_cfg.c.  Invariants beyond memory
 * safety: the parse never fails on content and is deterministic; at most
 * 1000 entries; every string is NUL-terminated; an entry without problem
 * has a valid, unique ID, a server, a port, an MTU and a proto of its
 * kind, and for Graphite a path of dot-joined words; and find() returns
 * it for its ID.  The ID and path rules are checked by naive oracles of
 * this file's own.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/pve_status_cfg.h"

#define TERMINATED(field) (strnlen((field), sizeof(field)) < sizeof(field))

static bool in_set(char c, const char *set) {
  return c != '\0' && strchr(set, c) != NULL;
}

#define ID_CHARS                                                               \
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"

static bool valid_id(const char *id) {
  size_t n = strlen(id);
  if (n < 2 || n > PVE_METRIC_ID_MAX || !in_set(id[0], ID_CHARS) ||
      in_set(id[0], "0123456789-_"))
    return false;
  for (size_t i = 1; i < n; i++)
    if (!in_set(id[i], ID_CHARS))
      return false;
  return true;
}

/* Dot-joined words of [A-Za-z0-9_-]: no empty word anywhere. */
static bool valid_graphite_path(const char *path) {
  size_t n = strlen(path);
  if (n == 0 || path[0] == '.' || path[n - 1] == '.' || strstr(path, ".."))
    return false;
  for (size_t i = 0; i < n; i++)
    if (path[i] != '.' && !in_set(path[i], ID_CHARS))
      return false;
  return true;
}

static bool valid_proto(const struct pve_metric_server *e) {
  if (strcmp(e->proto, "udp") == 0)
    return true;
  if (e->kind == PVE_METRIC_INFLUXDB)
    return strcmp(e->proto, "http") == 0 || strcmp(e->proto, "https") == 0;
  return strcmp(e->proto, "tcp") == 0;
}

static void check_entry(const struct pve_status_cfg *cfg, size_t i) {
  const struct pve_metric_server *e = &cfg->server[i];

  FUZZ_CHECK(e->kind == PVE_METRIC_INFLUXDB || e->kind == PVE_METRIC_GRAPHITE);
  FUZZ_CHECK(TERMINATED(e->id) && TERMINATED(e->server) &&
             TERMINATED(e->proto) && TERMINATED(e->organization) &&
             TERMINATED(e->bucket) && TERMINATED(e->api_path_prefix) &&
             TERMINATED(e->path) && TERMINATED(e->problem));
  if (e->problem[0] != '\0') {
    FUZZ_CHECK(strncmp(e->problem, "line ", 5) == 0);
    return;
  }
  FUZZ_CHECK(valid_id(e->id));
  FUZZ_CHECK(e->server[0] != '\0');
  FUZZ_CHECK(e->port >= 1 && e->port <= 65535);
  FUZZ_CHECK(e->mtu >= 512 && e->mtu <= 65536);
  FUZZ_CHECK(valid_proto(e));
  if (e->kind == PVE_METRIC_GRAPHITE)
    FUZZ_CHECK(valid_graphite_path(e->path));
  else
    FUZZ_CHECK(e->max_body_size >= 1);
  for (size_t j = 0; j < cfg->count; j++)
    FUZZ_CHECK(j == i || cfg->server[j].problem[0] != '\0' ||
               strcmp(cfg->server[j].id, e->id) != 0);
  FUZZ_CHECK(pve_status_cfg_find(cfg, e->id) == e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct pve_status_cfg a, b;

  FUZZ_CHECK(pve_status_cfg_parse((const char *)data, size, &a) == 0);
  FUZZ_CHECK(pve_status_cfg_parse((const char *)data, size, &b) == 0);
  FUZZ_CHECK(a.count <= 1000);
  FUZZ_CHECK(TERMINATED(a.problem));
  FUZZ_CHECK(a.problem[0] == '\0' || strncmp(a.problem, "line ", 5) == 0);
  FUZZ_CHECK(a.count == b.count && strcmp(a.problem, b.problem) == 0);
  /* entries are built from zeroed memory, so even their padding and the
   * bytes after each string's NUL repeat */
  FUZZ_CHECK(a.count == 0 ||
             memcmp(a.server, b.server, a.count * sizeof(*a.server)) == 0);
  for (size_t i = 0; i < a.count; i++)
    check_entry(&a, i);
  pve_status_cfg_free(&a);
  pve_status_cfg_free(&b);
  return 0;
}

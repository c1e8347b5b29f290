/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Proxmox VE's metric-server configuration, /etc/pve/status.cfg: the
 * InfluxDB and Graphite servers PVE itself sends its status to, so that the
 * pvecg command can send history to the same servers without being told
 * their addresses again.
 *
 * The file is PVE's section config: a header line "TYPE: ID" at column 0,
 * then indented "key value" lines up to a blank line or the next header.
 * Sections of other types (opentelemetry in newer PVE) are skipped whole.
 * A bad entry does not spoil its neighbours: it is kept with `problem` set,
 * so the caller refuses only the server it was asked to use.
 */
#ifndef PVECG_PVE_STATUS_CFG_H
#define PVECG_PVE_STATUS_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PVE_METRIC_ID_MAX 64
#define PVE_METRIC_TEXT_MAX 256

enum pve_metric_kind { PVE_METRIC_INFLUXDB, PVE_METRIC_GRAPHITE };

/* One section.  The fields of the other kind stay zero/"". */
struct pve_metric_server {
  enum pve_metric_kind kind;
  char id[PVE_METRIC_ID_MAX + 1]; /* "" only when the ID did not fit */
  char server[PVE_METRIC_TEXT_MAX];
  /* 0: not given (Graphite's default 2003 is applied: so 0 only for a
   * malformed InfluxDB entry) */
  unsigned port;
  bool disable;
  unsigned mtu;     /* 1500 when not given */
  unsigned timeout; /* seconds, 1 when not given */
  char proto[8];    /* influxdbproto or proto, the default ("udp") applied */
  char organization[PVE_METRIC_TEXT_MAX];    /* InfluxDB, "proxmox" default */
  char bucket[PVE_METRIC_TEXT_MAX];          /* InfluxDB, "proxmox" default */
  char api_path_prefix[PVE_METRIC_TEXT_MAX]; /* InfluxDB, "" when not given */
  uint64_t max_body_size;                    /* InfluxDB, 25000000 default */
  bool verify_certificate;                   /* InfluxDB, true default */
  char path[PVE_METRIC_TEXT_MAX];            /* Graphite, "proxmox" default */
  /* "" when the entry is whole, else the first reason it is not, naming
   * the line: "line 7: port 70000 is not 1 to 65535" */
  char problem[160];
};

struct pve_status_cfg {
  struct pve_metric_server *server; /* malloc'ed, in file order */
  size_t count;                     /* at most 1000 */
  /* the first problem outside any entry (a stray line, too many entries),
   * "" when there is none */
  char problem[160];
};

/*
 * Parses status.cfg's text (len bytes, need not be NUL-terminated; a NUL
 * byte inside is a malformed line).  Returns 0 with *ret filled (free with
 * pve_status_cfg_free), or -ENOMEM (*ret untouched).  Never fails on
 * content: problems are recorded in the entries and in ret->problem.
 *
 * Entries: IDs are PVE's configid (a letter, then at least one letter,
 * digit, '-' or '_'); a header without ID ("influxdb:", older PVE) has
 * its type as ID; types are matched without case, as PVE does.  Values
 * are strict: numbers are plain decimals in PVE's ranges, booleans as
 * PVE's schema takes them (0/1, no/yes, off/on, false/true, any case), texts
 * without control characters and never truncated.  An unknown key, another
 * kind's key, a key given twice, a missing `server` (or InfluxDB `port`), a bad
 * or invalid ID and an ID used before all make the entry malformed.  Lines
 * holding only whitespace are blank; '#' lines, indented or not, are comments.
 * A line that fits nowhere spoils the entry it is in, or is the file's problem
 * outside any entry.  After 1000 entries the rest of the file is ignored (a
 * file problem).
 */
int pve_status_cfg_parse(const char *text, size_t len,
                         struct pve_status_cfg *ret);

/* Frees what pve_status_cfg_parse allocated; cfg may be NULL. */
void pve_status_cfg_free(struct pve_status_cfg *cfg);

/* The first entry of id, whole or not, or NULL. */
const struct pve_metric_server *
pve_status_cfg_find(const struct pve_status_cfg *cfg, const char *id);

#endif

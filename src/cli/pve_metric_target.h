/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pvecg ship --pve-metric-server ID`: the target an entry of Proxmox's
 * Datacenter -> Metric Server (<pve-config-dir>/status.cfg, its InfluxDB
 * token in priv/metricserver/ID.pw) names, read as pve-manager's
 * PVE/Status/InfluxDB.pm and Graphite.pm read it, so that the history
 * lands in the very series Proxmox's live values go to: InfluxDB over
 * HTTP(S) at <proto>://<server>:<port><api-path-prefix>api/v2/write
 * ?org=<organization>&bucket=<bucket> (escaped as Perl's URI escapes
 * pve-manager's URL) with "Token <token>", Graphite over
 * TCP with the entry's path as the prefix.  UDP, Proxmox's default for
 * both, acknowledges nothing: such an entry is shipped over the
 * acknowledging transport the command line names beside it (InfluxDB
 * 1.x's HTTP API, --http-port and --db; carbon's TCP listener,
 * --tcp-port), to the entry's server, under its names and path; without
 * it, it is refused with the exact command line that would work.  So is
 * an entry disabled, unknown or malformed, or whose token cannot be read.
 */
#ifndef PVECG_PVE_METRIC_TARGET_H
#define PVECG_PVE_METRIC_TARGET_H

#include "export_args.h"
#include "pvecg/pve_status_cfg.h"

#define PVE_METRIC_URL_MAX 2048

/* What acknowledges where the entry sends over UDP (0, NULL: not given). */
struct pve_metric_ack {
  unsigned http_port;  /* InfluxDB 1.x's HTTP API beside its UDP listener */
  const char *db;      /* the database its UDP listener writes to */
  unsigned tcp_port;   /* carbon's TCP listener beside its UDP one */
  const char *command; /* the command line as given, for a refusal's fix */
  bool all;            /* for every entry: an option that fits none is no
                          error */
};

struct pve_metric_target {
  char url[PVE_METRIC_URL_MAX]; /* what --to would have said */
  char prefix[256];             /* Graphite: the entry's path */
};

/*
 * Sets a's target, format, token, prefix and batch size from the entry id
 * of a->config_dir's status.cfg (t holds the strings a points to).  An
 * explicit --to, --format, --token-file or --prefix is refused beside it.
 * Returns 0, or -EINVAL having printed why and what fixes it on stderr.
 */
int pve_metric_target(struct export_args *a, const char *id,
                      const struct pve_metric_ack *ack,
                      struct pve_metric_target *t);

#define PVE_METRIC_ALL_MAX 64 /* entries `--pve-metric-server all` feeds */

/* The entries of config_dir's status.cfg that `all` ships to, in file
 * order, into ids: the enabled ones that acknowledge (InfluxDB over
 * HTTP(S), Graphite over TCP, or over UDP with ack's transport); each
 * other one is printed on stderr with why it is left out.  Returns how many (0:
 * none, logged), or -EINVAL having printed why the file cannot be read. */
int pve_metric_all(const char *config_dir, const struct pve_metric_ack *ack,
                   char ids[][PVE_METRIC_ID_MAX + 1], size_t max);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an HTTP request to `pvecg serve` asks for, from its method, path and
 * query parameters alone: no file is looked at here, so every rule (which
 * paths exist, which names and parameters they take, what the 4xx answer
 * says) is a pure function, unit tested and fuzzed.
 *
 * Paths (Proxmox VE's API, /api2/json/...):
 *   /                                            the page (and its assets)
 *   /api2/json/nodes                             the nodes with a file
 *   /api2/json/cluster/resources                 nodes and guests
 *   /api2/json/nodes/{node}/rrddata              a node's rows
 *   /api2/json/nodes/{node}/qemu/{vmid}/rrddata  a guest's rows (also lxc)
 *   /api2/json/pvecg/overview                    every file's newest values
 *                                                (the page's overview)
 *   /metrics                                     the newest values for
 *                                                Prometheus
 * rrddata takes timeframe (required) and cf (AVERAGE, the default, or
 * MAX), as Proxmox's does, and pvecg's ksm (0, the default, or 1): 1 reads
 * the guest's or node's KSM file (pvecg-ksm-vm-1.0, pvecg-ksm-node-1.0)
 * instead of its pve file, as `pvecg rrddata --ksm` does; Proxmox's API
 * has no KSM rows.  pressure (0 or 1) the same for the stall-time file
 * (pvecg-pressure-vm-1.0, pvecg-pressure-node-1.0), as `pvecg rrddata
 * --pressure`; ksm=1 with pressure=1 is a 400, as the two name different
 * files.  Every API path and /metrics also take cluster,
 * the cluster of a data directory that keeps several apart
 * (data_clusters.h; "" the data directory's own files): rrddata reads that
 * cluster's file, the others list only that cluster.  No other parameter
 * is taken.
 */
#ifndef PVECG_SERVE_REQUEST_H
#define PVECG_SERVE_REQUEST_H

#include "pvecg/rrd_fetch.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrddata.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum serve_route {
  SERVE_ROUTE_ASSET,         /* a file of the page; asset says which */
  SERVE_ROUTE_NODES,         /* /api2/json/nodes */
  SERVE_ROUTE_RESOURCES,     /* /api2/json/cluster/resources */
  SERVE_ROUTE_NODE_RRDDATA,  /* node */
  SERVE_ROUTE_GUEST_RRDDATA, /* node (checked, not used), guest_type, vmid */
  SERVE_ROUTE_METRICS,       /* /metrics */
  SERVE_ROUTE_OVERVIEW       /* /api2/json/pvecg/overview */
};

/* A query parameter as the HTTP library decoded it. */
struct serve_param {
  const char *key, *value;
};

struct serve_request {
  enum serve_route route;
  const char *asset; /* the path, for SERVE_ROUTE_ASSET */
  char node[RRD_FILE_NAME_MAX + 1];
  const char *guest_type; /* "qemu" or "lxc" */
  char vmid[16];          /* the VMID as given: canonical digits */
  enum rrddata_timeframe timeframe;
  enum rrd_cf cf;
  bool ksm;         /* rrddata of the KSM file */
  bool pressure;    /* rrddata of the stall-time file */
  bool has_cluster; /* cluster was given: only that cluster */
  char cluster[RRD_FILE_NAME_MAX + 1];
};

/* A 4xx answer: its status, a message, and for a bad parameter its name
 * and what is wrong with it (Proxmox's "errors" object). */
struct serve_error {
  int status;
  char message[128];
  char param[32];
  char param_problem[160];
};

/*
 * Parses a request.  path is the URL's path (without the query);
 * params[0..count) its query parameters.  Returns 0 with *ret filled, or
 * -EINVAL with *err filled (status 400, 404, 405 or 414).
 */
#define SERVE_PARAMS_MAX 16 /* more query parameters are a 400 */

int serve_request_parse(const char *method, const char *path,
                        const struct serve_param *params, size_t count,
                        struct serve_request *ret, struct serve_error *err);

#endif

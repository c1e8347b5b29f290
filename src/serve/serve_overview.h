/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GET /api2/json/pvecg/overview: every file's newest values at once, for
 * the page's overview -- one request instead of one per guest.
 *
 * {"data":[...]}: one object per node file, then per guest file, in the
 * listings' order and with their members (serve_list.h: id, type, vmid,
 * name, node), plus
 *   "time"    the newest update, epoch seconds (null: never updated or
 *             not readable)
 *   "age"     seconds from "time" to now (null with it)
 *   "stale"   true when the newest row is more than five steps old (or
 *             there is none): the rule /metrics' pve_up 0 follows
 *   values    guest: memhost mem maxmem cpu maxcpu pressurecpusome
 *             pressureiosome pressurememorysome; node: memused memtotal
 *             cpu maxcpu and the same three pressures.  As `rrdtool
 *             lastupdate` gives them (serve_read_last(), with what
 *             rrdcached still holds), printed so that a reader gets the
 *             very same double back; unknown (U) as null.
 *   "ksmsaved" a guest's only: ksmsaved of its KSM file
 *             (pvecg-ksm-vm-1.0), as `rrdtool lastupdate` gives it; null
 *             when the guest has no KSM file, its value is U, or the
 *             file is stale (KSM no longer recorded).
 *   "ksm"     true when the node or guest has a KSM file (its rrddata
 *             with ksm=1 has rows): the page asks for them only then.
 *   "spark"   memhost (node: memused) of the last hour from the finest
 *             AVERAGE archive, the rows `pvecg rrddata --timeframe hour`
 *             reads (one a minute), printed as rrddata prints them; null
 *             when the file cannot be read.  "spark_time" is the first
 *             row's time (the end of its minute, as rrddata labels rows)
 *             and "spark_step" the seconds between rows.
 * An entry of a named cluster has its "cluster" after the listing's
 * members, as in the listing (serve_list.h); the parameter cluster keeps
 * the others out.
 * A file that cannot be read, or lacks one of those columns (a foreign
 * file), is listed with null values.  503 when rrdcached cannot be
 * reached.  Under a token's scope (serve_scope.h; NULL: none) only the
 * files it sees are read and listed: its guests, no node.
 */
#ifndef PVECG_SERVE_OVERVIEW_H
#define PVECG_SERVE_OVERVIEW_H

#include "pvecg/serve.h"
#include "serve_reply.h"
#include "serve_request.h"

void serve_overview_reply(const struct serve_config *config,
                          const struct serve_request *req,
                          const struct serve_scope *scope,
                          struct serve_reply *ret);

#endif

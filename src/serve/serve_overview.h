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
 *   values    guest: memhost mem maxmem cpu maxcpu pressurecpusome
 *             pressureiosome pressurememorysome; node: memused memtotal
 *             cpu maxcpu and the same three pressures.  As `rrdtool
 *             lastupdate` gives them (serve_read_last(), with what
 *             rrdcached still holds), printed so that a reader gets the
 *             very same double back; unknown (U) as null.
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

#include "serve_answer.h"

void serve_overview_reply(const struct serve_config *config,
                          const struct serve_request *req,
                          const struct serve_scope *scope,
                          struct serve_reply *ret);

#endif

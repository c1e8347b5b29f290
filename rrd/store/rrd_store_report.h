/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the store tells its caller about a row (rrd_store_report.c): the
 * outcome, the message for the log, and whether to log it now.  It turns
 * an event of rrd_store_entry.c into those, and alone keeps the count of a
 * file's problems and the back-off of their lines (struct entry_trouble).
 */
#ifndef PVECG_RRD_STORE_REPORT_H
#define PVECG_RRD_STORE_REPORT_H

#include "rrd_store_entry.h"

#include "pvecg/rrd_store.h"

/* The row's event as outcome and message; row->e is locked. */
void store_report(const struct store_row *row, const struct store_event *ev,
                  struct rrd_store_result *res);

/* A row refused before it reached any file (what: why).  Returns -EINVAL. */
int store_report_invalid(struct rrd_store_result *res, const char *what);

/* No memory for the file's entry: the row is dropped. */
void store_report_no_memory(struct rrd_store_result *res,
                            const struct rrd_layout *layout,
                            const char *cluster, const char *name);

#endif

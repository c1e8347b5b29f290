/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a shipper's state directory says of each target it fed, for a
 * person (`pvecg ship --status`) or in Prometheus' text format:
 *
 *   pvecg_ship_lag_seconds{target="..."}       rows the files held that
 *                                               the store had not taken,
 *                                               in seconds, at the last pass
 *   pvecg_ship_rows_sent_total{target="..."}   rows the store took
 *   pvecg_ship_rows_failed_total{target="..."} rows of batches it did not
 *   pvecg_ship_batches_failed_total{target="..."}
 *   pvecg_ship_last_success_timestamp_seconds{target="..."}
 *   pvecg_ship_files{target="..."}             files with a cursor
 *   pvecg_ship_batches_refused_total{target="..."}  refused as the
 *                                               target's fault (401, 404..)
 *   pvecg_ship_request_bytes_limit{target="..."}  learned from a 413
 *   pvecg_ship_points_dropped_total{target="...",reason="..."}
 *                                               partial writes, by reason
 *                                               (retention, type_conflict,
 *                                               limit, unparsable, other)
 *   pvecg_ship_points_skipped_total{target="...",reason="..."}
 *                                               too_large, unparsable
 *   pvecg_ship_store_condition{target="...",condition="..."}  1 for the
 *                                               condition (taking, away,
 *                                               refused), 0 for the others
 *   pvecg_ship_last_refusal_timestamp_seconds{target="...",status="..."}
 *
 * The state is read as saved (after every acknowledged batch, and after a
 * pass that changed it), without the shipper's lock.
 */
#ifndef PVECG_SHIP_STATUS_H
#define PVECG_SHIP_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Every "<id>.state" of dir, to out; problems to err.  Returns 0, or 1
 * when the directory or a state could not be read. */
int ship_status_print(const char *dir, bool prometheus, FILE *out, FILE *err);

/* Whether a shipper holds dir's lock, with the pid it noted into pid. */
bool ship_status_running(const char *dir, char *pid, size_t size);

/* The same families for a scrape (`pvecg serve --ship-state-dir`), in
 * Prometheus' text or OpenMetrics (a counter's family without "_total");
 * a state that cannot be read is left out, silently: the scrape goes on. */
void ship_status_metrics(const char *dir, bool openmetrics, FILE *out);

#endif

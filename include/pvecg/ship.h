/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pvecg ship`: keeps one store fed from the RRD files, which are the
 * buffer.  Every pass scans the data directory and, for each file, sends
 * the rows after its cursor (ship_state.h) through the export's own code
 * (export_run.h: the same rows, names, counters and formats), at most
 * row_limit rows per file per round and round after round, so that a
 * backlog goes oldest first across files, in batches of about batch_max
 * bytes, with memory bounded whatever its size.
 *
 * A cursor moves only when the store said yes: over HTTP when it answered
 * 2xx (or InfluxDB's "partial write", whose dropped points are counted),
 * and the state is saved then.  Graphite over TCP says nothing: rows
 * count as sent once the kernel took them, and each file's saved cursor
 * trails by `resend` seconds or more; whenever the connection is made
 * anew (after a failure, or at a start) the rows after that cursor are
 * sent again.  Carbon keeps the last value of a path and time, so a row
 * sent twice is one point, and any row lost in a socket buffer or in a
 * carbon cache that died within that window is sent again.
 *
 * Counters (netin, netout, diskread, diskwrite) continue from the sum kept
 * with the cursor, across passes, restarts and outages.
 */
#ifndef PVECG_SHIP_H
#define PVECG_SHIP_H

#include "pvecg/export_run.h"
#include "pvecg/http_sender.h"
#include "pvecg/net_sender.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

struct ship_options {
  /* The export's settings: format (influx, graphite or prometheus),
   * names, prefix, cf, data_dir, daemon, local_node, unknown_type and
   * batch_max; ship sets the rest. */
  struct export_run run;
  const char *config_dir; /* guests' names and types, read every pass */
  const char *to;         /* how messages name the target */
  bool http;
  struct http_sender_options http_options; /* http */
  struct net_target net_target;            /* otherwise: tcp:// */
  double timeout;                          /* network, seconds */
  const char *state_dir;
  const char *identity; /* what makes the target this one (its id) */
  time_t since;         /* a file without a cursor starts after this */
  unsigned interval;    /* seconds between passes */
  unsigned resend;      /* Graphite: seconds sent again on a new connection */
  size_t row_limit;     /* rows per file per round */
  size_t keep_files;    /* files it may keep open between passes */
  bool batch_given;     /* run.batch_max is --batch-bytes: not a 413's */
  bool once;            /* one pass, then return */
  /* Set by a signal: return within a few seconds whatever the store does
   * (a batch still unanswered 2 s later is given up, its cursors kept). */
  volatile sig_atomic_t *stop;
  FILE *log;
};

/*
 * Takes the state directory's lock, loads the state and ships until *stop
 * (or after one pass with `once`).  Returns 0; 1 when a `once` pass could
 * not deliver everything, or a pass had a file it could not read; -EBUSY
 * when another shipper holds the directory; -EINVAL for a state that
 * cannot be loaded; another negative errno for a directory that cannot be
 * made or written.  Says why on the log.
 */
int ship_main(struct ship_options *options);

#endif

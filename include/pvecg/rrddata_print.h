/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reading half of `pvecg rrddata`: a file (and its legacy pve2 file,
 * when its history is wanted) read by librrd or through rrdcached and
 * written as Proxmox's rrddata JSON to any stream.  The command prints it
 * on stdout; `pvecg serve` sends the same bytes as an HTTP body, so the
 * two can never disagree.
 */
#ifndef PVECG_RRDDATA_PRINT_H
#define PVECG_RRDDATA_PRINT_H

#include "pvecg/rrd_fetch.h"
#include "pvecg/view_source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The rows of a file and of its legacy file, as read. */
struct rrddata_rows {
  struct rrd_series legacy, current;
  bool has_legacy;
  bool node; /* a node's file: memfree is also given as memavailable */
};

/*
 * Reads src's rows over args' timeframe, CF and now.  Returns 0, or -EIO
 * with "<path>: <what librrd or the daemon said>" in err (nothing to free
 * then).
 */
int rrddata_read(const struct view_args *args, const struct view_source *src,
                 struct rrddata_rows *ret, char *err, size_t err_size);

/* Writes {"data":[...]} for rows to out (no newline after it); write
 * errors are left in the stream for the caller to check. */
void rrddata_rows_write(const struct rrddata_rows *rows, FILE *out);

void rrddata_rows_free(struct rrddata_rows *rows);

/* rrddata_read, then rrddata_rows_write: nothing is written on an error. */
int rrddata_print(const struct view_args *args, const struct view_source *src,
                  FILE *out, char *err, size_t err_size);

#endif

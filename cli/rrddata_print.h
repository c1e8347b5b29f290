/*
 * The reading half of `pvecg rrddata`: a file (and its legacy pve2 file,
 * when its history is wanted) read by librrd or through rrdcached and
 * written as Proxmox's rrddata JSON to any stream.  The command prints it
 * on stdout; `pvecg serve` sends the same bytes as an HTTP body, so the
 * two can never disagree.
 */
#ifndef PVECG_RRDDATA_PRINT_H
#define PVECG_RRDDATA_PRINT_H

#include "view_source.h"

#include <stddef.h>
#include <stdio.h>

/*
 * Writes {"data":[...]} for src over args' timeframe, CF and now to out
 * (no newline after it).  Returns 0, or -EIO with "<path>: <what librrd
 * or the daemon said>" in err; nothing is written to out then.  Write
 * errors of out are left in the stream for the caller to check.
 */
int rrddata_print(const struct view_args *args, const struct view_source *src,
                  FILE *out, char *err, size_t err_size);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reference for the write path's hand-off: the smallest client that
 * gives rrdcached a row per file in one BATCH exchange (rrdcached(1)),
 * written straight on a unix socket with nothing of pve_rrd.  What it and
 * the daemon spend per row is the least a batched writer can cost.
 */
#ifndef PVECG_BENCH_BATCH_CLIENT_H
#define PVECG_BENCH_BATCH_CLIENT_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct batch_client_result {
  double client_us; /* CPU per row: formatting, sending, reading answers */
  double daemon_us; /* the daemon's CPU per row over the same exchanges */
  size_t refused;   /* rows the daemon answered with an error */
};

/*
 * Sends `intervals` batches, each with one pve-vm-9.0 row for every file
 * in <data_dir>/pve-vm-9.0, times one second apart after `after`, to the
 * daemon listening on socket (a path) as process daemon_pid.  Returns 0
 * or a negative errno.
 */
int batch_client_run(const char *socket, pid_t daemon_pid, const char *data_dir,
                     unsigned intervals, time_t after,
                     struct batch_client_result *ret);

#endif

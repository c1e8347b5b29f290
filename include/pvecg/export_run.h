/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exporting one guest's or node's history: check the file's layout, find
 * its last update,
 * plan which rows to read (export_range.h), read them through librrd or
 * rrdcached (rrd_fetch.h), format them (export_format.h), and write them
 * to stdout or hand them to the network sender in batches of whole lines.
 */
#ifndef PVECG_EXPORT_RUN_H
#define PVECG_EXPORT_RUN_H

#include "pvecg/export_files.h"
#include "pvecg/export_format.h"
#include "pvecg/net_sender.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrdcached_client.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

struct export_run {
  enum export_format format;
  enum rrd_cf cf;
  time_t since, until;
  /* Files are <data_dir>/<layout>/<name>; NULL with a daemon over TCP:
   * relative to its base directory. */
  const char *data_dir;
  const char *daemon; /* NULL: librrd reads the files */
  const char *prefix;
  /* NULL: text goes to out.  Else it is gathered in a memory stream and
   * sent in batches. */
  struct net_sender *net;
  FILE *out;

  /* Filled in as files are exported. */
  struct export_count total; /* formatted */
  bool net_failed;           /* the sender failed: stop */
  char *batch;               /* the memory stream's buffer */
  size_t batch_len;
  struct rrdcached_client *client; /* with a daemon */
};

/* Prepares run->out: stdout, or a memory stream when run->net is set.
 * Returns 0 or -ENOMEM. */
int export_run_begin(struct export_run *run);

/*
 * Exports one file: the rows of its legacy pve2 file (pve2-vm/<name> or
 * <name>.old, when there is one on this host) up to that file's last
 * update, then the 9.0 file's rows after it.  Returns 0; -ENOENT (no such
 * file), -EPROTO (another layout), -EIO, -ENOTCONN (daemon), -EINVAL (a
 * name the format cannot write) with a message naming the file in err; on
 * a network error sets run->net_failed, with the sender's message in err.
 */
int export_run_file(struct export_run *run, const struct export_file *file,
                    char *err, size_t err_size);

/* Sends what is left (UDP's last datagram) and releases the stream.
 * Returns 0 or a negative errno with a message in err. */
int export_run_end(struct export_run *run, char *err, size_t err_size);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exporting one guest's or node's history: check the file's layout, find
 * its last update, plan which rows to read (export_range.h), read them
 * through librrd or rrdcached (rrd_fetch.h), rebuild counters where the
 * names want them (export_counter.h), format them (export_format.h,
 * export_pve.h, export_openmetrics.h), and write them to stdout or hand
 * them to a sender (net_sender.h, http_sender.h) in batches of whole lines,
 * or as Prometheus remote write requests of at most batch_max bytes before
 * snappy (format EXPORT_REMOTE_WRITE, to http only).
 * Nothing of the RRD files is ever modified.
 */
#ifndef PVECG_EXPORT_RUN_H
#define PVECG_EXPORT_RUN_H

#include "pvecg/export_counter.h"
#include "pvecg/export_files.h"
#include "pvecg/export_format.h"
#include "pvecg/export_names.h"
#include "pvecg/guest_directories.h"
#include "pvecg/guest_directory.h"
#include "pvecg/http_sender.h"
#include "pvecg/net_sender.h"
#include "pvecg/rrd_direct.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrdcached_client.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* The most bytes an HTTP request carries unless --batch-bytes (or the
 * target's max-body-size) says less: pvecg-export(1) documents it. */
#define EXPORT_HTTP_BATCH_BYTES (1024 * 1024)

struct export_run_state;

/* Posts one Prometheus remote write request, a message post owns from
 * then on (http_sender_post_whole()), with a label naming it in a message.
 * Returns 0 or an error with the reason in err. */
typedef int (*export_run_post)(void *ctx, struct http_message *m,
                               const char *label, char *err, size_t err_size);

/* Where one file's export goes on from, and how far it got: what `pvecg
 * ship` keeps between its passes so that counters continue and no row is
 * sent twice over. */
struct export_resume {
  struct export_counter counter; /* in: where counters start; out: end */
  time_t last_row;               /* out: the newest row read (0: none) */
  time_t last_update;            /* out: the file's last update */
  size_t rows;                   /* out: rows read (all-unknown ones too) */
  size_t known;                  /* out: rows with a known value */
  size_t row_limit; /* in: stop after this many rows, oldest first (0: all) */
  /* in: the caller saw this very file (same inode) pass the layout check
   * before: it is not checked again (its legacy file still is). */
  bool layout_checked;
  /* in/out: the file (not its legacy one) read directly and kept open by
   * the caller between calls, or NULL.  One given, refreshed by the caller
   * (rrd_direct_refresh), is read instead of opening the file by its
   * path; one that fails is closed and NULL comes back.  With keep_new, a
   * file opened here comes back in it, open, the caller's to close. */
  struct rrd_direct *kept;
  bool keep_new;
};

struct export_run {
  enum export_format format;
  enum export_names names;
  enum rrd_cf cf;
  time_t since, until;
  /* Files are <data_dir>/<layout>/<name>, or <data_dir>/<cluster>/<layout>/
   * <name> for a file of a named cluster; NULL with a daemon over TCP:
   * relative to its base directory. */
  const char *data_dir;
  const char *daemon; /* NULL: librrd reads the files */
  const char *prefix;
  /* Proxmox's names: who the guests are (NULL: nobody), the node of a guest
   * whose configuration does not say, and the type given to a guest with
   * no configuration at all ("qemu" or "lxc"; NULL: its file is refused,
   * -ENOENT). */
  const struct guest_directory *guests;
  /* When set, each file's guests are its cluster's, asked here instead of
   * guests. */
  struct guest_directories *guest_dirs;
  /* The data directory has named clusters: every point says its file's
   * cluster (export_format.h); false: none does, as before clusters. */
  bool clusters_named;
  const char *local_node;
  const char *unknown_type;
  /* InfluxDB lines: the time's units per second, as the target's
   * precision= asks (export_precision_scale()); 0: nanoseconds. */
  int64_t time_scale;
  /* Set before a file: its counters go on from resume->counter instead of
   * 0, and resume says where the file's rows ended.  NULL: every file
   * starts afresh. */
  struct export_resume *resume;
  /* Both NULL: text goes to out (stdout unless the caller set it).  Else it is
   * gathered in a memory stream and sent in batches of at most batch_max bytes
   * (0: 64 KiB to a line listener, EXPORT_HTTP_BATCH_BYTES over HTTP), cut
   * between lines. */
  struct net_sender *net;
  struct http_sender *http;
  size_t batch_max;
  FILE *out;
  /* Remote write with no sender of the run's: the files' samples gather
   * into one request, posted through remote_post only when the caller
   * says (export_run_remote_flush()), so that the caller decides which
   * rows a request holds (`pvecg ship`: whole file slices, whose cursors
   * move once that request is in). */
  export_run_post remote_post;
  void *remote_ctx;

  /* Filled in as files are exported. */
  struct export_count total; /* formatted */
  size_t batches;            /* batches sent */
  bool net_failed;           /* the sender failed: stop */
  char *batch;               /* the memory stream's buffer */
  size_t batch_len;
  struct rrdcached_client *client; /* with a daemon */
  struct export_run_state *state;  /* a file's counters and rows */
};

/* Prepares run->out: stdout, or a memory stream when a sender is set.
 * Returns 0, -EINVAL (bad daemon address) or -ENOMEM. */
int export_run_begin(struct export_run *run);

/*
 * Exports one file: the rows of its legacy pve2 file (pve2-vm/<name> or
 * <name>.old, when there is one on this host) up to that file's last
 * update, then the 9.0 file's rows after it.  Returns 0; -ENOENT (no such
 * file, or with Proxmox's names no configuration for the guest), -EPROTO
 * (another layout), -EIO, -ENOTCONN (daemon), -EINVAL (a name the format
 * cannot write) with a message naming the file in err; on a network error
 * sets run->net_failed, with the sender's message, naming the batch, in
 * err.
 */
int export_run_file(struct export_run *run, const struct export_file *file,
                    char *err, size_t err_size);

/* One file's rows after `after` (exclusive), going on from where resume
 * says its counters were and saying in it where the rows ended: how
 * `pvecg ship` drives the export, one slice of a file at a time, without
 * writing into run.  Returns as export_run_file(). */
int export_run_resume(struct export_run *run, const struct export_file *file,
                      time_t after, struct export_resume *resume, char *err,
                      size_t err_size);

/* With remote_post: the protobuf bytes gathered for the next request (an
 * upper bound), and posting them (0 when there are none, else as
 * remote_post), or dropping them (a request that will not go). */
size_t export_run_remote_size(const struct export_run *run);
int export_run_remote_flush(struct export_run *run, char *err, size_t err_size);
void export_run_remote_discard(struct export_run *run);
/* The unit (a file's rows, see http_sender_post_whole()) the next file's
 * rows start in the request gathered. */
size_t export_run_remote_unit(const struct export_run *run);

/* Writes what ends the output (OpenMetrics' "# EOF"), sends what is left
 * (UDP's last datagram) and releases the stream.  Returns 0 or a negative
 * errno with a message in err. */
int export_run_end(struct export_run *run, char *err, size_t err_size);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of pve_rrd's owners file, <DataDir>/pvecg-owners: which host
 * owns each guest's file and which hosts were seen reporting the same
 * VMID at the same time (collided), so that both survive a restart of
 * collectd (rrd/rrd_owner.h says why that matters).  The same text, with
 * other record kinds, carries an operator's request from `pvecg check
 * --owners` to the running writer (rrd_owner_disk.h).
 *
 *   pvecg-owners 1
 *   owner pve-vm-9.0 . 196 nodea 10
 *   collision pve-vm-9.0 . 196 nodeb 1764934800
 *   end 2
 *
 * One record a line: kind, layout, cluster ("." for the data directory's
 * own files), file name, host, then the owner's interval in seconds or
 * the time (s since the epoch) the host was first seen colliding.  Names
 * and hosts escape bytes up to space, DEL and '%' as %XX, so that any
 * host name collectd carries fits in one field.  The last line counts the
 * records: a file without it was cut short.  Parsing is pure (buffer in,
 * records out) and strict: a line that is not exactly a record is
 * skipped and counted, and what went wrong first is described once.
 */
#ifndef PVECG_RRD_OWNER_FILE_H
#define PVECG_RRD_OWNER_FILE_H

#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define RRD_OWNER_FILE_NAME "pvecg-owners"
#define RRD_OWNER_FILE_VERSION 1
/* collectd's host names are at most 127 bytes (DATA_MAX_NAME_LEN). */
#define RRD_OWNER_HOST_SIZE 128

enum rrd_owner_record_kind {
  RRD_OWNER_RECORD_OWNER,     /* host owns the file (state) */
  RRD_OWNER_RECORD_COLLISION, /* host was seen colliding since (state) */
  RRD_OWNER_RECORD_GIVE,      /* request: hand the file to host */
  RRD_OWNER_RECORD_FORGET,    /* request: forget the file's collisions */
};

struct rrd_owner_record {
  enum rrd_owner_record_kind kind;
  const struct rrd_layout *layout;      /* one of rrd_layouts[] */
  char cluster[RRD_STORE_NAME_MAX + 1]; /* "": the data directory's own */
  char name[RRD_STORE_NAME_MAX + 1];
  char host[RRD_OWNER_HOST_SIZE]; /* "" for FORGET */
  double interval;                /* OWNER: s between its rows, > 0 */
  long long since;                /* COLLISION: s since the epoch */
};

struct rrd_owner_file_problems {
  bool truncated;   /* no end line, or its count differs */
  size_t bad_lines; /* lines skipped */
  char first[160];  /* the first problem, "" when none */
};

typedef int rrd_owner_record_fn(const struct rrd_owner_record *record,
                                void *ctx);

/*
 * Calls each for every good record of text, in order, and stops at the
 * first call that returns non-zero (returned).  Returns 0, or -EPROTO when
 * the first line is not this version's header (nothing is read: a file of
 * another version is not guessed at).  Lines that are not records are
 * counted in problems, never fatal.
 */
int rrd_owner_file_parse(const char *text, size_t len,
                         rrd_owner_record_fn *each, void *ctx,
                         struct rrd_owner_file_problems *problems);

/* The header line, one line per record, the end line. */
int rrd_owner_file_write(FILE *f, const struct rrd_owner_record *records,
                         size_t count);

/* "cluster/layout/name" or "layout/name", as `pvecg check --owners` names
 * a file; returns 0 or -ENAMETOOLONG. */
int rrd_owner_file_label(const struct rrd_owner_record *record, char *buf,
                         size_t size);

/* The layout, cluster and name of a label (the inverse, also taking an
 * absolute path below data_dir); 0 or -EINVAL. */
int rrd_owner_file_unlabel(const char *data_dir, const char *label,
                           struct rrd_owner_record *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pve_rrd's owners file, <DataDir>/pvecg-owners (rrd/rrd_owner.h says why):
 * "pvecg-owners 1", then one record a line, "owner pve-vm-9.0 . 196 nodea
 * 10" or "collision pve-vm-9.0 . 196 nodeb 1764934800" (kind, layout,
 * cluster or "." for the data directory's own, name, host with bytes up
 * to space, DEL and '%' as %XX, interval s or seen colliding since s),
 * then "end 2" counting them: without it the file was cut short.  Its
 * writers (pve_rrd, `pvecg check --owners`) hold an flock on
 * <DataDir>/pvecg-owners.lock and replace it whole (write, fsync, rename).
 */
#ifndef PVECG_RRD_OWNER_FILE_H
#define PVECG_RRD_OWNER_FILE_H

#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#define RRD_OWNER_FILE_NAME "pvecg-owners"
#define RRD_OWNER_FILE_VERSION 1
#define RRD_OWNER_HOST_SIZE 128 /* collectd's DATA_MAX_NAME_LEN */

enum rrd_owner_record_kind {
  RRD_OWNER_RECORD_OWNER,
  RRD_OWNER_RECORD_COLLISION
};

struct rrd_owner_record {
  enum rrd_owner_record_kind kind;
  const struct rrd_layout *layout;      /* a guest layout of rrd_layouts[] */
  char cluster[RRD_STORE_NAME_MAX + 1]; /* "": the data directory's own */
  char name[RRD_STORE_NAME_MAX + 1];
  char host[RRD_OWNER_HOST_SIZE];
  double interval; /* OWNER: s between its rows, > 0 */
  long long since; /* COLLISION: s since the epoch */
};

struct rrd_owner_records {
  struct rrd_owner_record *r; /* to free */
  size_t count, size;
  size_t bad_lines; /* lines skipped: not a record */
  bool cut;         /* no end line, or one counting other records */
};

/* Appends the good records of text to ret (zeroed by the caller): 0,
 * -EPROTO when the first line is not this version's header, -ENOMEM. */
int rrd_owner_file_parse(const char *text, size_t len,
                         struct rrd_owner_records *ret);
int rrd_owner_file_write(FILE *f, const struct rrd_owner_record *r, size_t n);

/* One record's line, with every name escaped whole, fits in this. */
#define RRD_OWNER_LINE_SIZE                                                    \
  (64 + 3 * (2 * RRD_STORE_NAME_MAX + RRD_OWNER_HOST_SIZE))
/* r's line, ending in '\n', into line; its length. */
size_t rrd_owner_file_line(const struct rrd_owner_record *r,
                           char line[RRD_OWNER_LINE_SIZE]);

bool rrd_owner_same_file(const struct rrd_owner_record *a,
                         const struct rrd_owner_record *b);
/* qsort order: by file, its owner first, then its marks by time, host. */
int rrd_owner_file_order(const void *a, const void *b);

/* Waits for the file's lock: an fd to close, or -errno. */
int rrd_owner_file_lock(const char *data_dir);
/* Whether the file's inode, size or mtime differ from *last (all zero
 * when there is none), which takes the new ones. */
bool rrd_owner_file_changed(const char *data_dir, struct stat *last);
/* Reads the file into ret (zeroed by the caller), sorted: 0, -ENOENT,
 * -EPROTO (another version or not a file of ours) or -errno. */
int rrd_owner_file_read(const char *data_dir, struct rrd_owner_records *ret);
/* Sorts the records and saves them: 0 or -errno. */
int rrd_owner_file_save(const char *data_dir, struct rrd_owner_record *r,
                        size_t n);
/* Puts the next records' lines into buf (size bytes), counting them in
 * *records; returns their length, 0 when there are no more, or -errno. */
typedef long rrd_owner_lines_fn(void *ctx, char *buf, size_t size,
                                size_t *records);
/* Saves the lines next() gives, between the header and the end line, in
 * buf's rounds: 0 or -errno. */
int rrd_owner_file_save_lines(const char *data_dir, rrd_owner_lines_fn *next,
                              void *ctx, char *buf, size_t size);
/* Under the lock, gives the file to host (its mark goes) or, host NULL,
 * forgets its marks: 0, -ENOENT (nothing to forget), -EPROTO, -errno. */
int rrd_owner_file_settle(const char *data_dir,
                          const struct rrd_owner_record *file,
                          const char *host);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The owners file on disk (its text is rrd_owner_file.h's), and how
 * `pvecg check --owners` settles an owner without racing the writer.
 *
 * <DataDir>/pvecg-owners is saved the way the project saves state: a
 * temporary file written and fsynced, renamed over the old one, the
 * directory fsynced; a crash at any moment leaves one whole version.
 *
 * The writer (pve_rrd) keeps the owners in memory and saves them when
 * they change, so an edit of the file behind its back would be lost at
 * its next save.  It therefore holds an flock on <DataDir>/pvecg-owners.lock
 * while it runs (the kernel lets go of it when the process dies, even by
 * kill -9).  The command tries the same lock without waiting: if it gets
 * it, no writer runs, and it edits the file itself under the lock; if not,
 * it leaves its request as <DataDir>/pvecg-owners.request.<pid> (written
 * like the state, so the writer never sees half of one), and the writer,
 * which looks for requests every few seconds, applies it, saves, and
 * removes it.  The one that holds the lock is the only one that ever
 * writes the owners file.
 */
#ifndef PVECG_RRD_OWNER_DISK_H
#define PVECG_RRD_OWNER_DISK_H

#include "pvecg/rrd_owner_file.h"

#include <stddef.h>

#define RRD_OWNER_LOCK_NAME RRD_OWNER_FILE_NAME ".lock"
#define RRD_OWNER_REQUEST_PREFIX RRD_OWNER_FILE_NAME ".request."

/*
 * Reads <data_dir>/pvecg-owners and calls each per good record (see
 * rrd_owner_file_parse).  Returns 0 (problems says what was skipped),
 * -ENOENT when there is none, -EPROTO for another version or not an owners
 * file at all (why says so), or another negative errno when it cannot be
 * read.
 */
int rrd_owner_disk_read(const char *data_dir, rrd_owner_record_fn *each,
                        void *ctx, struct rrd_owner_file_problems *problems);

/* Saves the records as <data_dir>/pvecg-owners, atomically and durably.
 * Returns 0 or a negative errno, with the reason in err. */
int rrd_owner_disk_save(const char *data_dir,
                        const struct rrd_owner_record *records, size_t count,
                        char *err, size_t err_size);

/* Takes the writer's lock without waiting: an fd to close to let go, or
 * -EWOULDBLOCK when another process holds it, or another negative errno. */
int rrd_owner_disk_lock(const char *data_dir);

/* Leaves a request (records of kind GIVE or FORGET) for the writer; its
 * path in path. */
int rrd_owner_disk_request(const char *data_dir,
                           const struct rrd_owner_record *records, size_t count,
                           char *path, size_t path_size);

/*
 * The requests waiting, in the order of their names: each's records are passed
 * to each, then the request is removed (a request that does not parse is
 * removed too, and problems says what was wrong with the first such); at most
 * 64 a call.  Returns how many requests were read.
 */
int rrd_owner_disk_take_requests(const char *data_dir,
                                 rrd_owner_record_fn *each, void *ctx,
                                 struct rrd_owner_file_problems *problems);

/*
 * The operator's request (GIVE or FORGET), the one way for both cases:
 * with no writer running it is applied to the file here, under the lock,
 * by the same rule the writer applies (rrd_owner_settle); with one, it is
 * left as a request and waited for (at most wait seconds) until the writer
 * has applied it and saved.  Returns 0 (applied here), 1 (applied by the
 * writer), -ENOENT (FORGET of a file with no collision), -ETIMEDOUT (the
 * writer did not take it: the request is withdrawn), or another negative
 * errno, with the reason in err.
 */
int rrd_owner_disk_settle(const char *data_dir,
                          const struct rrd_owner_record *request, double wait,
                          char *err, size_t err_size);

#endif

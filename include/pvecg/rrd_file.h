/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RRD files of a layout, through librrd: create, check, update, last
 * update; and the store's access to local files made of them.
 *
 * Creation never overwrites.  The check compares the file with the layout
 * as rrd_words.h does and says what differs, so a file someone else made
 * is never written into.
 * All functions are thread-safe (librrd's *_r calls) and report librrd's
 * error text through err/why buffers.
 */
#ifndef PVECG_RRD_FILE_H
#define PVECG_RRD_FILE_H

#include "pvecg/rrd_access.h"
#include "pvecg/rrd_layout.h"

#include <stddef.h>
#include <time.h>

/* The store's access to local files through librrd (ctx unused). */
extern const struct rrd_access rrd_access_librrd;

/*
 * Makes librrd safe to call from several threads at once.  librrd 1.7
 * computes its NaN and infinity constants lazily, setting the "done" flag
 * before the value: a second thread's first call in that window reads 0.0,
 * which turns a "U" in an update into 0 and the "U" maximum of a data
 * source into "min must be less than max".  Call once while only one thread
 * uses librrd (rrd_store_new() does); later calls cost nothing.
 */
void rrd_file_prepare_librrd(void);

/*
 * Creates path with the layout, its last update time set to start.  Never
 * replaces an existing file: returns -EEXIST then.  The directory must
 * exist.  Returns 0 or -EIO with librrd's message in err.
 * The file is built in a private directory next to path (".<name>.XXXXXX",
 * removed again) and linked into place, so not even a file another writer
 * creates at the same moment is replaced.
 */
int rrd_file_create(const struct rrd_layout *layout, const char *path,
                    time_t start, char *err, size_t err_size);

/*
 * Compares the file at path with the layout.  Returns 0 when it matches,
 * -ENOENT when there is no file, -EPROTO when it is an RRD of another layout
 * (why names the first difference, e.g. "ds[3] is 'mem' (GAUGE), expected
 * 'memhost' (GAUGE)"), -EIO when it cannot be read as an RRD at all (why
 * holds librrd's message), or the negative errno of stat() when the path
 * cannot even be looked up (EACCES, ELOOP, ENAMETOOLONG; why holds it).
 */
int rrd_file_check(const struct rrd_layout *layout, const char *path, char *why,
                   size_t why_size);

/*
 * Applies one formatted row (see rrd_row.h) to path.  Returns 0 or -EIO with
 * librrd's message in err.
 */
int rrd_file_update(const char *path, const char *row, char *err,
                    size_t err_size);

/* The time of the file's last update, through rrd_lastupdate_r.  Returns 0
 * or -EIO. */
int rrd_file_last_update(const char *path, time_t *ret, char *err,
                         size_t err_size);

#endif

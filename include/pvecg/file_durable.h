/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A state file of our own, read whole and written so that a crash at any
 * moment leaves one whole version under its name: written to a temporary
 * file, synced, renamed over the old one, the directory synced.  What
 * `pvecg ship` keeps of its cursors and pve_rrd of the guests' owners.
 */
#ifndef PVECG_FILE_DURABLE_H
#define PVECG_FILE_DURABLE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The whole of a regular file of at most max bytes into a new buffer,
 * NUL-terminated (free() it).  Returns 0; the open's negative errno
 * (-ENOENT: there is none); -EFBIG for something that is not a regular
 * file or is larger than max; -EIO when it was shorter than it said
 * (changed while read); -ENOMEM. */
int file_read_whole(const char *path, size_t max, char **ret, size_t *len);

/* Writes the file's text to out: 0 or a negative errno. */
typedef int file_text_fn(FILE *out, const void *ctx);

/*
 * Writes path durably: text() into tmp (created with mode, synced), then,
 * when keep is not NULL, the version path had is kept under keep (a hard
 * link: at every moment one whole version is under path), tmp is renamed
 * over path and dir (path's directory) synced.  Returns 0 or a negative
 * errno; tmp does not stay behind a failure.
 */
int file_write_durably(const char *dir, const char *path, const char *tmp,
                       const char *keep, mode_t mode, file_text_fn *text,
                       const void *ctx);

#endif

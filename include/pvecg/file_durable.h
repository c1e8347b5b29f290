/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file read whole, never half: a state file of our own (what `pvecg
 * ship` keeps of its cursors, pve_rrd of the guests' owners) or a secret
 * an operator gives (`pvecg serve`'s tokens, its TLS key), with the mode
 * a secret must have.  And our own state files written so that a crash at
 * any moment leaves one whole version under its name: written to a
 * temporary file, synced, renamed over the old one, the directory synced.
 */
#ifndef PVECG_FILE_DURABLE_H
#define PVECG_FILE_DURABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* How a file is read whole. */
struct file_whole {
  size_t max;       /* bytes at most */
  mode_t forbidden; /* mode bits it must not have (a secret's: 077) */
  bool secret;      /* what was read is wiped, not only freed, on failure */
};

/*
 * The whole of a regular file into a new buffer, NUL-terminated (free()
 * it).  Returns 0; the open's or stat's negative errno (-ENOENT: there is
 * none); -EFBIG for something that is not a regular file or is larger
 * than how->max; -EPERM when its mode has a bit of how->forbidden (its
 * mode in *mode, when mode is not NULL); -EIO when it changed while read
 * (shorter or longer than it said); -ENOMEM.
 */
int file_read_whole_as(const char *path, const struct file_whole *how,
                       char **ret, size_t *len, mode_t *mode);

/* file_read_whole_as() of a file of our own of at most max bytes. */
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

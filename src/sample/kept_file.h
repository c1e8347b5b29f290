/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kernel text file opened once and re-read whole from offset 0 on every
 * run.  procfs, sysfs and the SPL kstats regenerate their contents on a
 * read at offset 0, so a kept descriptor saves the path walk and the
 * open/close of each run (the node sampler's files, the NIC counters).
 *
 * Files are read into a read_buffer that grows (doubling, up to
 * READ_BUFFER_MAX) until the whole file fits: /proc/stat on a host with
 * many CPUs and interrupt sources is far larger than on a small one, and a
 * parser must never be handed a silently truncated file.
 */
#ifndef PVECG_KEPT_FILE_H
#define PVECG_KEPT_FILE_H

#include "pvecg/file_read.h"

#include <stddef.h>

#define READ_BUFFER_MAX (4u << 20)

struct kept_file {
  int fd; /* -1 while not open */
};

#define KEPT_FILE_INIT                                                         \
  { .fd = -1 }

/*
 * Opens path (relative to dirfd, or AT_FDCWD) read-only, O_CLOEXEC and
 * O_NOFOLLOW, unless f is open already.  Returns 0 or a negative errno.
 */
int kept_file_open(struct kept_file *f, int dirfd, const char *path);

/*
 * Reads the whole file from offset 0 into buf; *len is its size.  Returns
 * 0, -EBADF when f is not open, -ENOMEM, -EFBIG when the file does not fit
 * READ_BUFFER_MAX, or the read's negative errno.  A failed read closes f,
 * so that the caller's next kept_file_open() opens the file afresh (a
 * device or module that went away and came back is a new file).
 */
int kept_file_read(struct kept_file *f, struct read_buffer *buf, size_t *len);

void kept_file_close(struct kept_file *f);

#endif

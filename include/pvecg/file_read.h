/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a kernel or config file whole from offset 0, so that a parser is
 * never handed a silently truncated file.  Two policies, by what the
 * caller knows of the file's size:
 *
 * - into a fixed buffer (file_pread_all, file_read_regular): a read that
 *   fills it may have missed the rest, so that is -EFBIG.  For files of a
 *   known small size (a guest's cgroup files, configs, pid files, sysfs
 *   attributes), each caller passing its own buffer.
 * - into a read_buffer that grows, doubling, until the file fits
 *   (file_pread_grow), up to a limit the caller passes, above which it is
 *   -EFBIG.  For files whose size depends on the host (/proc/stat with
 *   many CPUs, /proc/net/dev, mountinfo).
 *
 * Interrupted reads are retried.
 */
#ifndef PVECG_FILE_READ_H
#define PVECG_FILE_READ_H

#include <stddef.h>

struct read_buffer {
  char *data;
  size_t size; /* bytes allocated */
};

void read_buffer_free(struct read_buffer *buf);

/* One pread of fd from offset 0 into buf[0..size); *len is the file's
 * length.  Returns 0, -EFBIG when the file fills buf, or the read's
 * negative errno. */
int file_pread_all(int fd, char *buf, size_t size, size_t *len);

/* As file_pread_all into buf, which grows (from 4 KiB, doubling, the last
 * step up to max) and is read again while a read fills it.  Returns 0,
 * -ENOMEM, -EFBIG when the file does not fit max bytes (max or more), or
 * the read's negative errno. */
int file_pread_grow(int fd, struct read_buffer *buf, size_t max, size_t *len);

/*
 * Opens path (relative to dirfd, or AT_FDCWD) with O_NOFOLLOW and
 * O_NONBLOCK (a FIFO must not make open() or read() wait) and reads it as
 * file_pread_all.  Returns 0 or a negative errno; -ESPIPE for something
 * that is not a regular file (a FIFO reads as an empty file, which would
 * pass for a config that sets nothing).
 */
int file_read_regular(int dirfd, const char *path, char *buf, size_t size,
                      size_t *len);

#endif

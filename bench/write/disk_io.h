/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bytes written, as the kernel counts them: by a process (write_bytes of
 * /proc/<pid>/io: every page it dirtied, through write() or a shared
 * mapping, counted once per time it went from clean to dirty) and by the
 * block device holding a directory (sectors written of /proc/diskstats:
 * everything, including the filesystem's own journal and metadata, and
 * anything else writing to that device meanwhile).
 */
#ifndef PVECG_BENCH_DISK_IO_H
#define PVECG_BENCH_DISK_IO_H

#include <stdint.h>
#include <sys/types.h>

/* write_bytes of /proc/<pid>/io (pid 0: this process).  Returns 0 or a
 * negative errno. */
int disk_io_process_bytes(pid_t pid, uint64_t *ret);

/* Bytes written to the device of `dir` since boot.  Returns 0, or -ENOENT
 * when the device has no line in /proc/diskstats (tmpfs, overlay). */
int disk_io_device_bytes(const char *dir, uint64_t *ret);

/* Writes back every dirty page of the filesystem holding `dir`
 * (syncfs(2)), so that the next page dirtied is counted again. */
int disk_io_write_back(const char *dir);

/* Drops the clean pages of the page cache (needs root), so that files
 * come back the way their writer reads them.  Returns 0 or a negative
 * errno. */
int disk_io_drop_cache(void);

#endif

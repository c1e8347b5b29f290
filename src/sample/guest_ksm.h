/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A VM's /proc/<pid>/ksm_stat, kept open from the moment its QEMU pid is
 * verified (src/sample/guest_ksm.c).
 *
 * An open /proc/<pid>/ file holds a reference to the kernel's struct pid,
 * not to the process or its memory: once the process has exited, a read
 * of it fails with ESRCH (or comes back empty), and a pid number reused by
 * a new process cannot redirect it (tests/sample/test_guest_ksm_kernel.c
 * checks both on the running kernel).  So the start-time check that tells
 * a process from a later one with the same pid is made once, when the
 * file is opened, and every later read is a pread like a cgroup file's.
 */
#ifndef PVECG_GUEST_KSM_H
#define PVECG_GUEST_KSM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Opens proc_root/<pid>/ksm_stat and checks afterwards that pid still has
 * the start time it was found with, so the descriptor is that process's.
 * Returns the descriptor, -ESRCH (the process is gone, or the pid is
 * another process's now), -ENOENT (a live process without ksm_stat: Linux
 * before 6.1) or another negative errno.
 */
int guest_ksm_open(const char *proc_root, int pid, uint64_t start);

/* Reads the whole file from offset 0 into buf.  Returns 0, -ESRCH when
 * the process has exited (the kernel's ESRCH, or an empty read), or
 * another negative errno. */
int guest_ksm_read(int fd, char *buf, size_t size, size_t *len);

#endif

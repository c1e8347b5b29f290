/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finds the cgroup hierarchies in /proc/self/mountinfo: the cgroup2 mount
 * (/sys/fs/cgroup on unified hosts, /sys/fs/cgroup/unified on hybrid ones)
 * and the cgroup v1 hierarchy that carries the memory controller.
 */
#ifndef PVECG_MOUNTINFO_H
#define PVECG_MOUNTINFO_H

#include <limits.h>
#include <stddef.h>

struct cgroup_mounts {
  char unified[PATH_MAX];   /* "" when there is no cgroup2 mount */
  char memory_v1[PATH_MAX]; /* "" when no v1 hierarchy has "memory" */
};

/*
 * Parses mountinfo text (see proc(5)); mount points have their octal escapes
 * (\040 for space, ...) decoded.  The first matching mount of each kind wins.
 * Lines that do not have the mountinfo form are skipped, and so are lines
 * whose mount point is not absolute, has an invalid escape or a NUL, or does
 * not fit PATH_MAX with its terminator.  Returns 0; ret is always fully
 * written (every byte, so results compare with memcmp).
 */
int mountinfo_parse(const char *buf, size_t len, struct cgroup_mounts *ret);

#endif

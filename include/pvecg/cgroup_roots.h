/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the cgroup hierarchies are mounted on this host, found from
 * /proc/self/mountinfo when the configuration does not say.
 */
#ifndef PVECG_CGROUP_ROOTS_H
#define PVECG_CGROUP_ROOTS_H

#include "pvecg/mountinfo.h"

/*
 * Reads and parses the mountinfo file at path (normally
 * "/proc/self/mountinfo").  Returns 0 or a negative errno from reading it.
 */
int cgroup_roots_detect(const char *path, struct cgroup_mounts *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a cgroup directory's set of children may have changed since it
 * was last listed, so the sampler can skip listing qemu.slice/ and lxc/
 * when nothing came or went.
 *
 * kernfs does not update a directory's mtime when a child cgroup is made or
 * removed (checked on Linux 6.x, cgroup2 and v1), so mtime cannot tell.  The
 * directory's cgroup.stat does: nr_descendants counts its live descendant
 * cgroups.  A removal plus a creation between two looks keeps the count, but
 * then the removed guest's kept files fail with ENODEV, which makes the
 * sampler list again at once.  Outside cgroupfs (fixture trees without
 * cgroup.stat) the answer is always "list".
 */
#ifndef PVECG_DIR_CHANGE_H
#define PVECG_DIR_CHANGE_H

#include <stdbool.h>
#include <stdint.h>

struct dir_change {
  int fd;         /* kept-open cgroup.stat, or -1 */
  bool known;     /* count holds the value at the last listing */
  uint64_t count; /* nr_descendants at the last listing */
};

void dir_change_init(struct dir_change *dc);
void dir_change_close(struct dir_change *dc);

/*
 * Call before listing dir.  Returns true when it must be listed: the first
 * time, without a readable cgroup.stat, after dir_change_forget, or when the
 * count differs.  *token is to be passed to dir_change_listed once the
 * listing succeeded.
 */
bool dir_change_check(struct dir_change *dc, const char *dir, uint64_t *token);

/* Records that dir was listed completely while the count was token. */
void dir_change_listed(struct dir_change *dc, uint64_t token);

/* Makes the next check say "list" (after a read error or a vanished
 * guest). */
void dir_change_forget(struct dir_change *dc);

#endif

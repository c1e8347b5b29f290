/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guests a benchmark run measures: QEMU guests (qemu.slice/<vmid>.scope,
 * VMIDs from 100 up) made either as REAL cgroups under a private subtree,
 * <cgroup2 mount>/pvecg-bench-<pid>/, with the same directories under the
 * v1 memory hierarchy on hybrid hosts, or as a fixture tree of plain files
 * with the kernel's formats in a temporary directory.  Everything made is
 * removed by guest_tree_remove.
 */
#ifndef PVECG_BENCH_GUEST_TREE_H
#define PVECG_BENCH_GUEST_TREE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum guest_tree_kind {
  GUEST_TREE_CGROUP,
  GUEST_TREE_FIXTURE,
};

struct guest_tree {
  enum guest_tree_kind kind;
  char root[PATH_MAX];        /* the sampler's cgroup_root: holds qemu.slice/ */
  char memory_root[PATH_MAX]; /* v1 memory twin of root, or "" */
  uint32_t *vmids;            /* per slot */
  size_t count;
  uint32_t next_vmid;
};

/* "cgroup" or "fixture" (the CSV's tree column). */
const char *guest_tree_kind_name(enum guest_tree_kind kind);

/*
 * Makes count guests of the given kind.  Returns 0, or a negative errno
 * (-EPERM/-EACCES: no permission to make cgroups; -EINTR: interrupted);
 * on failure whatever was made is removed again.
 */
int guest_tree_create(struct guest_tree *tree, size_t count,
                      enum guest_tree_kind kind);

/* Real cgroups unless fixture is set or they cannot be made here; says on
 * stderr which it made and why. */
int guest_tree_create_best(struct guest_tree *tree, size_t count, bool fixture);

/* Removes every guest and the private roots.  Processes must have left the
 * cgroups (guest_procs_stop). */
void guest_tree_remove(struct guest_tree *tree);

/* The guest's directory below root (where cgroup.procs and the PSI files
 * are). */
int guest_tree_dir(const struct guest_tree *tree, size_t slot, char *buf,
                   size_t size);

/* The guest's directory in the v1 memory twin (hybrid hosts), or the same
 * as guest_tree_dir when there is none. */
int guest_tree_memory_dir(const struct guest_tree *tree, size_t slot, char *buf,
                          size_t size);

/* Puts pid into the guest's cgroups (in a fixture: writes it into the
 * guest's cgroup.procs). */
int guest_tree_attach(const struct guest_tree *tree, size_t slot, pid_t pid);

/* A guest goes and another comes in its slot: a new VMID, or, with
 * same_vmid, the same VMID in a re-created directory (a new inode). */
int guest_tree_replace(struct guest_tree *tree, size_t slot, bool same_vmid);

#endif

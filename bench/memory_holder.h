/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest of the KSM mode: a child process, placed in a guest cgroup
 * before it allocates (so its pages are charged there), that holds a given
 * amount of anonymous memory with the same content in every page, so that
 * KSM can merge them all once the child marks them MADV_MERGEABLE.
 */
#ifndef PVECG_BENCH_MEMORY_HOLDER_H
#define PVECG_BENCH_MEMORY_HOLDER_H

#include "guest_tree.h"

#include <stddef.h>
#include <sys/types.h>

struct memory_holder {
  pid_t pid;
  int to_child, from_child; /* command and acknowledgement pipes */
};

/* Starts the child in guest slot of tree and returns once it has touched
 * every page of bytes.  Returns 0 or a negative errno. */
int memory_holder_start(struct memory_holder *holder,
                        const struct guest_tree *tree, size_t slot,
                        size_t bytes);

/* Makes the child madvise(MADV_MERGEABLE) its memory.  Returns 0 or a
 * negative errno. */
int memory_holder_mergeable(struct memory_holder *holder);

/* Kills and reaps the child (its memory is freed). */
void memory_holder_stop(struct memory_holder *holder);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Proxmox's own read path as a measured peer: bench/peers/pve_read.pl, the
 * memory and pressure reads pvestatd makes per guest through pve-common,
 * run by Debian's perl once a second over the benchmark's guests (or over
 * none: the idle interpreter the figures are taken against).
 */
#ifndef PVECG_BENCH_PERL_PATH_H
#define PVECG_BENCH_PERL_PATH_H

#include "guest_tree.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct perl_path {
  const char *perl;   /* /usr/bin/perl */
  const char *script; /* pve_read.pl */
  const struct guest_tree *tree;
  char vmids[PATH_MAX];    /* the guests' VMIDs, one a line */
  char no_vmids[PATH_MAX]; /* an empty list, for the idle run */
};

/* Writes the VMID lists into dir.  Returns 0 or a negative errno. */
int perl_path_init(struct perl_path *p, const char *perl, const char *script,
                   const struct guest_tree *tree, const char *dir);

/* The loop, over the guests or (idle) none.  Returns the pid or a negative
 * errno. */
pid_t perl_path_start(const struct perl_path *p, bool idle, const char *output);

/* One pass with --check: how many guests gave a memory figure and how many
 * all six pressure values.  Returns 0 or a negative errno (-EBADMSG: the
 * script's answer could not be read). */
int perl_path_check(const struct perl_path *p, size_t *memory,
                    size_t *pressure);

#endif

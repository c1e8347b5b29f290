/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What KSM does on the node: /sys/kernel/mm/ksm/ (src/sample/ksm_node.c).
 *
 * Each value is one sysfs file of one number, opened once and re-read with
 * pread (sysfs regenerates it on a read at offset 0).  ksm_zero_pages
 * (Linux 6.10) and general_profit (6.4) are missing on older kernels, and
 * the directory is missing on a kernel without KSM: those values are
 * unknown, never 0.  A file that cannot be read or parsed leaves its value
 * unknown and says so in error[]; the rest of the sample stands.
 */
#ifndef PVECG_KSM_NODE_H
#define PVECG_KSM_NODE_H

#include <stdbool.h>
#include <stdint.h>

enum ksm_node_value {
  KSM_NODE_RUN,            /* run: 0 stopped, 1 running, 2 unmerging */
  KSM_NODE_PAGES_SHARED,   /* pages_shared: KSM pages in use */
  KSM_NODE_PAGES_SHARING,  /* pages_sharing: further sites sharing them */
  KSM_NODE_ZERO_PAGES,     /* ksm_zero_pages */
  KSM_NODE_GENERAL_PROFIT, /* general_profit, bytes (may be negative) */
  KSM_NODE_VALUE_COUNT,
};

struct ksm_node_sample {
  double value[KSM_NODE_VALUE_COUNT];
  uint32_t valid; /* bit per ksm_node_value */
  /* Per value: 0, -ENOENT (not on this kernel), or why it could not be
   * read; callers log changes. */
  int error[KSM_NODE_VALUE_COUNT];
};

static inline bool ksm_node_has(const struct ksm_node_sample *s,
                                enum ksm_node_value v) {
  return (s->valid >> v) & 1u;
}

/* The file name of a value below <sys>/kernel/mm/ksm/. */
const char *ksm_node_file(enum ksm_node_value v);

struct ksm_node_reader;

/* sys_root: the sysfs mount point ("/sys").  Returns 0, -EINVAL (a path
 * too long) or -ENOMEM. */
int ksm_node_reader_new(const char *sys_root, struct ksm_node_reader **ret);
void ksm_node_reader_free(struct ksm_node_reader *reader);

/* Reads every value into *ret (always written). */
void ksm_node_read(struct ksm_node_reader *reader, struct ksm_node_sample *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/<pid>/ksm_stat (Linux 6.1+): what KSM page merging does for one
 * process, here the QEMU process of a VM.
 *
 *   ksm_rmap_items 1234
 *   ksm_zero_pages 0
 *   ksm_merging_pages 1000
 *   ksm_process_profit 4063232
 *   ksm_merge_any: no
 *   ksm_mergeable: yes
 *
 * The profit is merged bytes minus KSM's own bookkeeping, so it can be
 * negative.
 */
#ifndef PVECG_KSM_STAT_H
#define PVECG_KSM_STAT_H

#include <stddef.h>
#include <stdint.h>

struct ksm_stat {
  uint64_t merging_pages;
  int64_t profit; /* bytes */
};

/* Both keys are required, once each; other lines are ignored.  Returns 0,
 * -EBADMSG or -ERANGE. */
int ksm_stat_parse(const char *buf, size_t len, struct ksm_stat *ret);

/* A pid file: a positive decimal pid and an optional newline.  Returns 0
 * or -EBADMSG. */
int pid_file_parse(const char *buf, size_t len, int *ret);

#endif

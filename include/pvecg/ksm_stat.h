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
 * negative.  Linux 6.1 to 6.3 have ksm_merging_pages but no profit, and
 * ksm_zero_pages (empty pages merged with the zero page, use_zero_pages)
 * came with 6.10: both are optional.
 *
 * Also the other files KSM statistics read: /proc/<pid>/stat's start time,
 * which tells a process from a later one with the same pid, and the
 * signed single numbers of /sys/kernel/mm/ksm/ (general_profit).
 */
#ifndef PVECG_KSM_STAT_H
#define PVECG_KSM_STAT_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

struct ksm_stat {
  uint64_t merging_pages;
  uint64_t zero_pages; /* when has_zero_pages */
  int64_t profit;      /* bytes, when has_profit */
  bool has_zero_pages, has_profit;
};

/* ksm_merging_pages is required; every key counts once at most; other
 * lines are ignored.  Returns 0, -EBADMSG or -ERANGE (*ret untouched). */
int ksm_stat_parse(const char *buf, size_t len, struct ksm_stat *ret);

/* The start time (clock ticks after boot, field 22) of a /proc/<pid>/stat,
 * whose command name may hold spaces and parentheses.  Returns 0 or
 * -EBADMSG. */
int pid_stat_start_parse(const char *buf, size_t len, uint64_t *ret);

/* A file of one signed decimal and an optional newline (general_profit).
 * Returns 0, -EBADMSG or -ERANGE. */
int signed_file_parse(const char *buf, size_t len, int64_t *ret);

/* A pid file: a positive decimal pid and an optional newline.  Returns 0
 * or -EBADMSG. */
int pid_file_parse(const char *buf, size_t len, int *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How many descriptors the sampler may keep open in the collectd process.
 *
 * Kept-open files are what makes sampling cheap (~5 per guest), but the
 * descriptors belong to collectd, whose other plugins need some too.  At
 * init the soft RLIMIT_NOFILE is raised to the hard limit (the default soft
 * limit of 1024 is far below what 10,000 guests need) and the budget is the
 * soft limit minus a reserve for everything else.
 */
#ifndef PVECG_FD_BUDGET_H
#define PVECG_FD_BUDGET_H

#include <stddef.h>

/* Descriptors left to the rest of the process: 256 plus an eighth of the
 * limit. */
size_t fd_budget_for_limit(unsigned long long soft_limit);

struct fd_budget {
  unsigned long long old_soft; /* soft limit before */
  unsigned long long soft;     /* soft limit now */
  size_t budget;               /* for the sampler */
};

/* Raises the soft limit toward the hard one and computes the budget.
 * Returns 0, or a negative errno from getrlimit (setrlimit failing is not
 * an error: the old limit is used). */
int fd_budget_prepare(struct fd_budget *ret);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sampler's descriptor budget (see fd_budget.h). */
#include "pvecg/fd_budget.h"

#include <errno.h>
#include <sys/resource.h>

#define RESERVE_FIXED 256
/* Even with an unlimited hard limit, do not ask for more than this:
 * nr_open caps it anyway and 1M descriptors cover 200k guests. */
#define SOFT_LIMIT_CAP (1ull << 20)

size_t fd_budget_for_limit(unsigned long long soft_limit) {
  unsigned long long reserve = RESERVE_FIXED + soft_limit / 8;
  return soft_limit > reserve ? (size_t)(soft_limit - reserve) : 0;
}

int fd_budget_prepare(struct fd_budget *ret) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
    return -errno;
  unsigned long long old_soft = rl.rlim_cur;
  unsigned long long want = rl.rlim_max;
  if (want == RLIM_INFINITY || want > SOFT_LIMIT_CAP)
    want = SOFT_LIMIT_CAP;
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
      rl.rlim_cur = old_soft; /* keep working within the old limit */
  }
  unsigned long long soft =
      rl.rlim_cur == RLIM_INFINITY ? SOFT_LIMIT_CAP : rl.rlim_cur;
  ret->old_soft = old_soft;
  ret->soft = soft;
  ret->budget = fd_budget_for_limit(soft);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/loadavg: the run-queue averages, the source of the node's loadavg
 * column (the 1-minute figure).
 *
 *   0.88 0.63 0.66 2/101 9147
 *
 * avg1 avg5 avg15 (two decimals), running/total scheduling entities, and
 * the last PID handed out.
 */
#ifndef PVECG_LOADAVG_H
#define PVECG_LOADAVG_H

#include <stddef.h>
#include <stdint.h>

struct loadavg {
  double avg1, avg5, avg15;
  uint64_t running, threads;
  uint64_t last_pid;
};

/*
 * Parses the whole line: three fixed-point numbers, "running/threads" and
 * the last PID, separated by single spaces, then an optional '\n' and
 * nothing else.  Returns 0, -EBADMSG for any other form, -ERANGE for a
 * number that does not fit 64 bits; *ret is written only on success.
 */
int loadavg_parse(const char *buf, size_t len, struct loadavg *ret);

#endif

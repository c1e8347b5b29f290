/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pressure stall information: the kernel's cpu.pressure, io.pressure and
 * memory.pressure files (per cgroup and in /proc/pressure/).
 *
 *   some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *
 * avg values are percent (0..100) over 10/60/300 s; total is the cumulative
 * stall time in microseconds.  The "full" line is absent from cgroup
 * cpu.pressure before Linux 5.13.
 */
#ifndef PVECG_PSI_H
#define PVECG_PSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct psi_line {
  double avg10;
  double avg60;
  double avg300;
  uint64_t total; /* microseconds */
};

struct psi_stats {
  struct psi_line some;
  struct psi_line full; /* zero when !has_full */
  bool has_full;
};

/*
 * Parses a pressure file.  The "some" line is required, "full" optional;
 * each may appear once and must carry avg10, avg60, avg300 and total exactly
 * once (unknown keys and unknown lines are ignored for forward
 * compatibility).  Averages must lie in 0..100.  Returns 0, or -EBADMSG for
 * malformed input, -ERANGE for an out-of-range number; *ret is written only
 * on success.
 */
int psi_parse(const char *buf, size_t len, struct psi_stats *ret);

#endif

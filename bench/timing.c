/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Medians for the benchmark (see timing.h).
 */
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void summarize(double *values, size_t count, struct summary *ret) {
  ret->count = count;
  if (count == 0) {
    ret->median = ret->min = ret->max = NAN;
    return;
  }
  qsort(values, count, sizeof(*values), compare_double);
  ret->min = values[0];
  ret->max = values[count - 1];
  ret->median = count % 2 ? values[count / 2]
                          : (values[count / 2 - 1] + values[count / 2]) / 2;
}

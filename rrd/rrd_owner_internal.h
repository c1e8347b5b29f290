/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What rrd_owner.c (the rule, row by row) and rrd_owner_state.c (the
 * owners to and from records: the file, the operator's requests) share:
 * the table and its lock.
 */
#ifndef PVECG_RRD_OWNER_INTERNAL_H
#define PVECG_RRD_OWNER_INTERNAL_H

#include "rrd_owner.h"

#include <pthread.h>
#include <time.h>

struct rrd_owner {
  pthread_mutex_t lock;
  struct owner_table table;
  double next_sweep;
  unsigned long long refused;
  /* Counts changes worth saving: an owner claimed, passed on or given, a
   * host marked as seen colliding or forgiven, an entry dropped. */
  unsigned long long changes;
  time_t (*wall)(void);
};

/* The window of a claim's interval, s. */
double rrd_owner_window(double interval);

#endif

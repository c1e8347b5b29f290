/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SIGINT, SIGTERM and SIGHUP become a flag that every long loop of the
 * benchmark polls, so that a mode interrupted half-way still removes its
 * cgroups, stops its processes and restores the KSM settings it changed.
 */
#ifndef PVECG_BENCH_INTERRUPT_H
#define PVECG_BENCH_INTERRUPT_H

#include <stdbool.h>

/* Installs the handlers (without SA_RESTART, so sleeps and waits return). */
void interrupt_install(void);

/* Puts the default dispositions back; for forked children. */
void interrupt_reset_in_child(void);

bool interrupted(void);

/* Sleeps for seconds.  Returns false when interrupted. */
bool interruptible_sleep(double seconds);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A real rrdcached for the tests of rrd/: started in a test's own
 * directory (socket, base directory -B, pid file, journal), on a unix
 * socket or on a free TCP port of 127.0.0.1, and stopped by its pid.  The
 * journal is what the daemon accepted, row by row: once the daemon has
 * been stopped, rrdcached_journal_times() reads it back.
 */
#ifndef PVECG_TEST_RRDCACHED_FIXTURE_H
#define PVECG_TEST_RRDCACHED_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct rrdcached {
  char dir[256];
  char db[300];      /* the daemon's base directory */
  char address[320]; /* "unix:<dir>/sock" or "127.0.0.1:<port>" */
  bool tcp;
  bool recursive; /* -R: the daemon makes directories (set for TCP) */
  pid_t pid;
};

/* Whether rrdcached is installed (tests skip with 77 otherwise). */
bool rrdcached_available(void);

/* Sets up the directories below dir and the address, without starting. */
void rrdcached_prepare(struct rrdcached *d, const char *dir, bool tcp);
/* Starts it (-R too when tcp) and waits until it accepts connections;
 * aborts the test when it does not within 5 s. */
void rrdcached_start(struct rrdcached *d);
/* SIGTERM and wait (about a second): the journal is complete afterwards. */
void rrdcached_stop(struct rrdcached *d);
/* SIGKILL and wait: quick, for tests done with the daemon. */
void rrdcached_kill(struct rrdcached *d);
void rrdcached_freeze(struct rrdcached *d); /* SIGSTOP, waits until stopped */
void rrdcached_thaw(struct rrdcached *d);   /* SIGCONT */

/* The times of the rows the daemon accepted for path (as sent: absolute
 * over a unix socket, relative to db over TCP), in journal order, into
 * times[0..max); returns how many.  (The journal has refused rows too;
 * those not newer than the row accepted before them are left out.) */
size_t rrdcached_journal_times(const struct rrdcached *d, const char *path,
                               time_t *times, size_t max);

/* The journal line of the row at t for path ("<t>:<v>:..."), or "". */
void rrdcached_journal_row(const struct rrdcached *d, const char *path,
                           time_t t, char *buf, size_t size);

#endif

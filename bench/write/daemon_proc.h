/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rrdcached the benchmark writes through: started in the run's own
 * directory on a unix socket, with Debian's defaults otherwise (write
 * timeout 300 s, so a run measures the daemon taking rows, not writing
 * files), and stopped by its pid.  A mode that lasts longer than the write
 * timeout sets write_timeout beyond its end: the daemon would otherwise
 * write every file at once at some moment, inside whichever run happens
 * to be measured then.
 */
#ifndef PVECG_BENCH_DAEMON_PROC_H
#define PVECG_BENCH_DAEMON_PROC_H

#include <sys/types.h>

struct daemon_proc {
  pid_t pid;
  char address[300];      /* "unix:<dir>/sock" */
  char db[300];           /* its base directory */
  unsigned write_timeout; /* -w, seconds; 0: the daemon's default (300) */
};

/* Returns 0, or -1 with a message on stderr. */
int daemon_proc_start(struct daemon_proc *d, const char *dir);
/* SIGTERM, and waits for it (its journal then holds every row). */
void daemon_proc_stop(struct daemon_proc *d);

#endif

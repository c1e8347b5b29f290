/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting, watching and stopping the measured collectd (see
 * collectd_proc.h).
 */
#include "collectd_proc.h"

#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QUIET_POLL_MS 10
#define QUIET_WINDOW 10         /* polls: 100 ms */
#define QUIET_MAX_NS 50000      /* CPU allowed to move in the window */
#define QUIET_TIMEOUT_POLLS 300 /* 3 s */

pid_t collectd_proc_start(const char *collectd, const char *conf,
                          const char *output) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0)
    return pid < 0 ? -errno : pid;
  interrupt_reset_in_child();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(127);
  int fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
  }
  execl(collectd, collectd, "-f", "-C", conf, (char *)NULL);
  _exit(127);
}

bool collectd_proc_alive(pid_t pid) { return waitpid(pid, NULL, WNOHANG) == 0; }

int collectd_proc_quiet_cpu(pid_t pid, struct proc_cpu *ret) {
  struct proc_cpu ring[QUIET_WINDOW + 1];
  struct timespec poll = {0, QUIET_POLL_MS * 1000000L};
  for (int i = 0; i < QUIET_TIMEOUT_POLLS; i++) {
    int err = proc_cpu_read(pid, &ring[i % (QUIET_WINDOW + 1)]);
    if (err < 0)
      return err;
    *ret = ring[i % (QUIET_WINDOW + 1)];
    if (ret->runtime_ns == 0)
      return 0; /* no schedstat: cannot tell, take it as it is */
    if (i >= QUIET_WINDOW) {
      const struct proc_cpu *old = &ring[(i + 1) % (QUIET_WINDOW + 1)];
      if (ret->runtime_ns - old->runtime_ns < QUIET_MAX_NS)
        return 0;
    }
    if (interrupted())
      return -EINTR;
    nanosleep(&poll, NULL);
  }
  return 0; /* never quiet: measure from here anyway */
}

void collectd_proc_stop(pid_t pid) {
  if (pid <= 0)
    return;
  kill(pid, SIGTERM);
  struct timespec poll = {0, 50000000L};
  for (int i = 0; i < 200; i++) {
    pid_t r = waitpid(pid, NULL, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD))
      return;
    nanosleep(&poll, NULL);
  }
  kill(pid, SIGKILL);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
    ;
}

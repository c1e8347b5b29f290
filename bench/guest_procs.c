/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Idle child processes placed in the guests' cgroups (see guest_procs.h).
 */
#include "guest_procs.h"

#include "interrupt.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t start_idle_child(void) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0)
    return pid < 0 ? -errno : pid;
  interrupt_reset_in_child();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(0);
  for (;;)
    pause();
}

int guest_procs_start(struct guest_procs *p, const struct guest_tree *tree,
                      size_t count) {
  p->count = 0;
  p->pids = calloc(count ? count : 1, sizeof(*p->pids));
  if (!p->pids)
    return -ENOMEM;
  for (size_t i = 0; i < count; i++) {
    if (interrupted()) {
      guest_procs_stop(p);
      return -EINTR;
    }
    pid_t pid = start_idle_child();
    if (pid < 0) {
      guest_procs_stop(p);
      return (int)pid;
    }
    p->pids[p->count++] = pid;
    int err = guest_tree_attach(tree, i, pid);
    if (err < 0) {
      fprintf(stderr, "pvecg-bench: cannot put process %d into guest %u: %s\n",
              (int)pid, (unsigned)tree->vmids[i], strerror(-err));
      guest_procs_stop(p);
      return err;
    }
  }
  return 0;
}

void guest_procs_stop(struct guest_procs *p) {
  for (size_t i = 0; i < p->count; i++)
    kill(p->pids[i], SIGKILL);
  for (size_t i = 0; i < p->count; i++)
    while (waitpid(p->pids[i], NULL, 0) < 0 && errno == EINTR)
      ;
  free(p->pids);
  p->pids = NULL;
  p->count = 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting the peers mode's child processes (see child_proc.h).
 */
#include "child_proc.h"

#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: default signals, death with the parent (no process of the
 * benchmark outlives it), stdout to out_fd and stderr to err_fd. */
static void exec_child(char *const argv[], pid_t parent, int out_fd,
                       int err_fd) {
  interrupt_reset_in_child();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(127);
  if (out_fd >= 0)
    dup2(out_fd, STDOUT_FILENO);
  if (err_fd >= 0)
    dup2(err_fd, STDERR_FILENO);
  execv(argv[0], argv);
  _exit(127);
}

pid_t child_proc_start(char *const argv[], const char *output) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0)
    return pid < 0 ? -errno : pid;
  int fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  exec_child(argv, parent, fd, fd);
  return -1; /* not reached */
}

int child_proc_capture(char *const argv[], char *buf, size_t size) {
  int fds[2];
  if (size == 0 || pipe2(fds, O_CLOEXEC) < 0)
    return -errno;
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0)
    exec_child(argv, parent, fds[1], -1);
  close(fds[1]);
  size_t got = 0;
  ssize_t n = 0;
  while (pid > 0 && got + 1 < size &&
         ((n = read(fds[0], buf + got, size - 1 - got)) > 0 ||
          (n < 0 && errno == EINTR)))
    got += n > 0 ? (size_t)n : 0;
  buf[got] = '\0';
  close(fds[0]);
  if (pid < 0)
    return -errno;
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -errno;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

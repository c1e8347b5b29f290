/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starts and stops the benchmark's rrdcached (see daemon_proc.h).
 */
#include "daemon_proc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int accepts(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof(sa.sun_path), "%.100s", path);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
  close(fd);
  return r == 0;
}

int daemon_proc_start(struct daemon_proc *d, const char *dir) {
  char sock[300], pid[300], journal[300], timeout[16], flush[16];
  if (strlen(dir) > 90) { /* a unix socket's path has 108 bytes at most */
    fprintf(stderr, "%s: too long for the daemon's socket\n", dir);
    return -1;
  }
  snprintf(d->db, sizeof(d->db), "%s/db", dir);
  snprintf(journal, sizeof(journal), "%s/journal", dir);
  snprintf(sock, sizeof(sock), "%s/sock", dir);
  snprintf(pid, sizeof(pid), "%s/pid", dir);
  snprintf(d->address, sizeof(d->address), "unix:%.200s", sock);
  if ((mkdir(d->db, 0755) != 0 && errno != EEXIST) ||
      (mkdir(journal, 0755) != 0 && errno != EEXIST)) {
    perror("mkdir");
    return -1;
  }
  fflush(NULL); /* the child must not write our buffers again */
  d->pid = fork();
  if (d->pid == 0) {
    /* -f at least twice -w, as rrdcached asks */
    snprintf(timeout, sizeof(timeout), "%u", d->write_timeout);
    snprintf(flush, sizeof(flush), "%u", 2 * d->write_timeout);
    char *argv[] = {"rrdcached", "-g", "-l",  d->address, "-b",    d->db,
                    "-B",        "-p", pid,   "-j",       journal, "-w",
                    timeout,     "-f", flush, NULL};
    if (d->write_timeout == 0)
      argv[11] = NULL; /* the daemon's own */
    if (freopen("/dev/null", "w", stdout) == NULL)
      _exit(127);
    execv(PVECG_BENCH_RRDCACHED, argv);
    _exit(127);
  }
  for (int i = 0; d->pid > 0 && i < 500; i++, usleep(10000))
    if (accepts(sock))
      return 0;
  fprintf(stderr, "rrdcached (%s) does not start\n", PVECG_BENCH_RRDCACHED);
  return -1;
}

void daemon_proc_stop(struct daemon_proc *d) {
  if (d->pid <= 0)
    return;
  kill(d->pid, SIGTERM);
  waitpid(d->pid, NULL, 0);
  d->pid = 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The KSM mode's memory-holding child (see memory_holder.h).  Parent and
 * child talk over two pipes, one byte per message:
 *
 *   parent -> child  'G' (you are in the cgroup: allocate), 'M' (madvise)
 *   child -> parent  'R' (memory touched), 'm' (madvised), 'e' (failed)
 *
 * The child exits when the command pipe closes, and dies with the parent.
 */
#include "memory_holder.h"

#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The byte read, 0 at end of file or on an error, -1 when interrupted. */
static int read_byte(int fd) {
  unsigned char c;
  ssize_t n = read(fd, &c, 1);
  if (n == 1)
    return c;
  return n < 0 && errno == EINTR ? -1 : 0;
}

static void send_byte(int fd, char c) {
  while (write(fd, &c, 1) < 0 && errno == EINTR)
    ;
}

static void child_main(int in, int out, size_t bytes) {
  if (read_byte(in) != 'G')
    _exit(1);
  unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    send_byte(out, 'e');
    _exit(1);
  }
  /* The same non-zero byte everywhere: every page is identical, and none
   * is the zero page. */
  memset(p, 0x5a, bytes);
  send_byte(out, 'R');
  for (;;) {
    int c = read_byte(in);
    if (c == 'M')
      send_byte(out, madvise(p, bytes, MADV_MERGEABLE) == 0 ? 'm' : 'e');
    else if (c <= 0)
      _exit(0);
  }
}

/* Waits for the child's answer; 0 when it is the expected byte. */
static int expect(struct memory_holder *h, char want) {
  int c = read_byte(h->from_child);
  if (c == want)
    return 0;
  return c == -1 || interrupted() ? -EINTR : -EIO;
}

int memory_holder_start(struct memory_holder *h, const struct guest_tree *tree,
                        size_t slot, size_t bytes) {
  int to[2], from[2];
  h->pid = -1;
  h->to_child = h->from_child = -1;
  if (pipe2(to, O_CLOEXEC) < 0)
    return -errno;
  if (pipe2(from, O_CLOEXEC) < 0) {
    int err = -errno;
    close(to[0]);
    close(to[1]);
    return err;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    interrupt_reset_in_child();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(1);
    close(to[1]);
    close(from[0]);
    child_main(to[0], from[1], bytes);
  }
  int err = pid < 0 ? -errno : 0;
  close(to[0]);
  close(from[1]);
  h->pid = pid;
  h->to_child = to[1];
  h->from_child = from[0];
  if (err == 0)
    err = guest_tree_attach(tree, slot, pid);
  if (err == 0) {
    send_byte(h->to_child, 'G');
    err = expect(h, 'R');
  }
  if (err < 0)
    memory_holder_stop(h);
  return err;
}

int memory_holder_mergeable(struct memory_holder *h) {
  send_byte(h->to_child, 'M');
  return expect(h, 'm');
}

void memory_holder_stop(struct memory_holder *h) {
  if (h->pid > 0) {
    kill(h->pid, SIGKILL);
    while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
      ;
  }
  if (h->to_child >= 0)
    close(h->to_child);
  if (h->from_child >= 0)
    close(h->from_child);
  h->pid = -1;
  h->to_child = h->from_child = -1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads from a shared mapping, a SIGBUS under one turned into an error
 * (see rrd_map.h).  The handler jumps back only to a read of this thread
 * that is under way; SA_NODEFER keeps SIGBUS unblocked in the handler,
 * so the jump out of it leaves the signal mask as it was and sigsetjmp
 * need not save it (a system call per read, which is what mapping saves).
 */
#include "rrd_map.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

static struct sigaction before; /* the SIGBUS action there was */
static pthread_mutex_t installing = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local sigjmp_buf *volatile reading;

/* Not a read of ours: the action there was, as if this were not here. */
static void pass_on(int sig, siginfo_t *info, void *ctx) {
  if (before.sa_flags & SA_SIGINFO) {
    before.sa_sigaction(sig, info, ctx);
    return;
  }
  if (before.sa_handler == SIG_IGN)
    return;
  if (before.sa_handler != SIG_DFL) {
    before.sa_handler(sig);
    return;
  }
  /* The default: die of it, where it happened.  SIGBUS is unblocked here
   * (SA_NODEFER), so the re-raise is taken at once. */
  signal(SIGBUS, SIG_DFL);
  raise(SIGBUS);
}

static void on_sigbus(int sig, siginfo_t *info, void *ctx) {
  sigjmp_buf *env = reading;
  if (env != NULL)
    siglongjmp(*env, 1);
  pass_on(sig, info, ctx);
}

/* Looked at for every file mapped, not once: a program that sets its
 * own SIGBUS action later (a test framework does, for each test) takes
 * the place of this one, which then goes back in front of it. */
static int install(void) {
  struct sigaction now, sa = {.sa_sigaction = on_sigbus,
                              .sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART};
  sigemptyset(&sa.sa_mask);
  int r = 0;
  pthread_mutex_lock(&installing);
  if (sigaction(SIGBUS, NULL, &now) != 0)
    r = -errno;
  else if (!(now.sa_flags & SA_SIGINFO) || now.sa_sigaction != on_sigbus) {
    before = now;
    if (sigaction(SIGBUS, &sa, NULL) != 0)
      r = -errno;
  }
  pthread_mutex_unlock(&installing);
  return r;
}

int rrd_map_open(struct rrd_map *map, int fd, size_t len) {
  *map = (struct rrd_map){0};
  int r = install();
  if (r < 0)
    return r;
  if (len == 0)
    return -EINVAL;
  void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    return -errno;
  *map = (struct rrd_map){.bytes = p, .len = len};
  return 0;
}

int rrd_map_read(const struct rrd_map *map, void *buf, size_t len,
                 uint64_t offset) {
  if (offset > map->len || len > map->len - offset)
    return -EPROTO;
  sigjmp_buf env;
  if (sigsetjmp(env, 0) != 0) {
    reading = NULL;
    return -EPROTO; /* truncated under the read */
  }
  reading = &env;
  /* The bytes are another process's writes: read them now, not from
   * what an earlier read of the same place left in registers. */
  atomic_thread_fence(memory_order_acquire);
  memcpy(buf, map->bytes + offset, len);
  atomic_thread_fence(memory_order_acquire);
  reading = NULL;
  return 0;
}

void rrd_map_close(struct rrd_map *map) {
  if (map->bytes != NULL)
    munmap((void *)map->bytes, map->len);
  *map = (struct rrd_map){0};
}

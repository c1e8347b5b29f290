/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What keeping a VM's /proc/<pid>/ksm_stat open relies on, on the running
 * kernel: a QEMU-like process in a real guest scope is found and its
 * ksm_stat kept open; it is killed and its pid number handed to a new
 * process in the same scope (ns_last_pid).  The old descriptor must never
 * read the new process (the kernel answers ESRCH, or nothing), the sampler
 * must give one unknown row and then find the new process, and the
 * descriptor count must stay the same.  Runs in a private subtree of the
 * cgroup2 mount; skipped (77) without root, cgroup2, ksm_stat (Linux 6.1+)
 * or a writable /proc/sys/kernel/ns_last_pid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/cgroup_roots.h"
#include "pvecg/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCOPE "qemu.slice/196.scope"

static char base[PATH_MAX / 2];

static int write_text(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A child that waits in the guest's scope; placed there before it runs
 * on, so cgroup.procs and /proc/<pid>/cgroup name it from the start. */
static pid_t start_in_scope(void) {
  pid_t pid = fork();
  if (pid == 0) {
    for (;;)
      pause();
  }
  assert_true(pid > 0);
  char path[PATH_MAX], text[32];
  snprintf(path, sizeof(path), "%s/" SCOPE "/cgroup.procs", base);
  snprintf(text, sizeof(text), "%d\n", (int)pid);
  assert_int_equal(write_text(path, text), 0);
  return pid;
}

static void stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* A new process with the number of an exited one: ns_last_pid is set to
 * the number before it, then fork (another process forking in between
 * takes the number: tried again).  Started a tick later than the old one,
 * as every real reuse is (it takes a wrap of pid_max). */
static pid_t reuse_pid(pid_t old) {
  nanosleep(&(struct timespec){.tv_nsec = 30 * 1000 * 1000}, NULL);
  for (int attempt = 0; attempt < 100; attempt++) {
    char text[32];
    snprintf(text, sizeof(text), "%d", (int)old - 1);
    assert_int_equal(write_text("/proc/sys/kernel/ns_last_pid", text), 0);
    pid_t pid = start_in_scope();
    if (pid == old)
      return pid;
    stop(pid);
  }
  fail_msg("pid %d was not handed out again", (int)old);
  return -1;
}

struct last {
  size_t n;
  struct guest_sample s;
};

static void keep(const struct guest_sample *s, void *ctx) {
  struct last *l = ctx;
  l->n++;
  l->s = *s;
}

static struct guest_sample run(struct sampler *s) {
  struct last l = {0};
  assert_int_equal(sampler_run(s, keep, &l), 0);
  assert_int_equal(l.n, 1);
  return l.s;
}

static void test_reused_pid_never_read(void **state) {
  (void)state;
  struct sampler_config c = {.types = {true, false}, .ksm = true};
  snprintf(c.cgroup_root, sizeof(c.cgroup_root), "%s", base);
  snprintf(c.proc_root, sizeof(c.proc_root), "/proc");
  snprintf(c.run_dir, sizeof(c.run_dir), "%s/no-run-dir", base);
  c.settings_refresh_seconds = 3600; /* only a lost process looks again */
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);

  pid_t old = start_in_scope();
  struct guest_sample g = run(s);
  assert_true(g.ksm_valid);
  assert_int_equal(g.ksm_error, 0);
  size_t fds = sampler_fd_count(s);
  char path[64], buf[512];
  snprintf(path, sizeof(path), "/proc/%d/ksm_stat", (int)old);
  int mine = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(mine >= 0);

  stop(old);
  pid_t now = reuse_pid(old);
  /* The kernel: the old process's file does not become the new one's. */
  errno = 0;
  ssize_t n = pread(mine, buf, sizeof(buf), 0);
  assert_true(n == 0 || (n < 0 && errno == ESRCH));
  close(mine);
  /* The sampler: one unknown row, logged why... */
  g = run(s);
  assert_false(g.ksm_valid);
  assert_int_equal(g.ksm_error, -ESRCH);
  /* ...and the new process found in the next run, checked by its start
   * time, with no descriptor more than before. */
  g = run(s);
  assert_true(g.ksm_valid);
  assert_int_equal(sampler_fd_count(s), fds);
  stop(now);
  g = run(s);
  assert_int_equal(g.ksm_error, -ESRCH);
  sampler_free(s);
}

static int setup(void) {
  struct cgroup_mounts m;
  if (geteuid() != 0 || access("/proc/self/ksm_stat", R_OK) != 0 ||
      access("/proc/sys/kernel/ns_last_pid", W_OK) != 0 ||
      cgroup_roots_detect("/proc/self/mountinfo", &m) < 0 ||
      m.unified[0] == '\0' || strlen(m.unified) > sizeof(base) - 32)
    return -1;
  snprintf(base, sizeof(base), "%.*s/pvecg-ksm-%d", (int)(sizeof(base) - 32),
           m.unified, (int)getpid());
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/qemu.slice", base);
  if (mkdir(base, 0755) < 0)
    return -1;
  if (mkdir(path, 0755) < 0 ||
      (snprintf(path, sizeof(path), "%s/" SCOPE, base), mkdir(path, 0755)) < 0)
    return -1;
  return 0;
}

static void teardown(void) {
  char cmd[PATH_MAX + 64];
  snprintf(cmd, sizeof(cmd),
           "find '%s' -depth -type d -exec rmdir {} + 2>/dev/null", base);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", base);
}

int main(void) {
  if (setup() != 0) {
    printf("SKIP: needs root, cgroup2, /proc/<pid>/ksm_stat and a writable "
           "ns_last_pid\n");
    teardown();
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reused_pid_never_read),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  teardown();
  return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sampler on REAL cgroupfs: discovery through cgroup.stat (listing
 * skipped while nothing changes, a new guest seen in the next run), and a
 * guest removed and re-created under the same VMID between two runs, which
 * cgroup.stat cannot see (the count is the same) but the ENODEV of the old
 * descriptors does.  Runs in a private subtree of the cgroup2 mount that is
 * removed afterwards; skipped (77) without root or cgroup2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/cgroup_roots.h"
#include "pvecg/sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX / 2];

struct tally {
  size_t n;
  size_t visits_of_100;
  bool all_psi_valid;
};

static void count(const struct guest_sample *s, void *ctx) {
  struct tally *t = ctx;
  t->n++;
  t->visits_of_100 += s->vmid == 100;
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++)
    t->all_psi_valid = t->all_psi_valid && s->psi_valid[r];
}

static struct tally run(struct sampler *s) {
  struct tally t = {.all_psi_valid = true};
  assert_int_equal(sampler_run(s, count, &t), 0);
  return t;
}

static void cg_mkdir(const char *rel) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/%s", base, rel);
  assert_int_equal(mkdir(path, 0755), 0);
}

static void cg_rmdir(const char *rel) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/%s", base, rel);
  assert_int_equal(rmdir(path), 0);
}

static int setup(void **state) {
  (void)state;
  struct cgroup_mounts m;
  if (geteuid() != 0 || cgroup_roots_detect("/proc/self/mountinfo", &m) < 0 ||
      m.unified[0] == '\0')
    return -1;
  if (strlen(m.unified) > sizeof(base) - 32)
    return -1;
  snprintf(base, sizeof(base), "%.*s/pvecg-unit-%d", (int)(sizeof(base) - 32),
           m.unified, (int)getpid());
  if (mkdir(base, 0755) < 0)
    return -1;
  cg_mkdir("qemu.slice");
  return 0;
}

static void test_discovery_on_cgroupfs(void **state) {
  (void)state;
  struct sampler_config c = {.types = {true, false}};
  snprintf(c.cgroup_root, sizeof(c.cgroup_root), "%s", base);
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  struct sampler_stats st;

  cg_mkdir("qemu.slice/100.scope");
  struct tally t = run(s);
  assert_int_equal(t.n, 1);
  assert_true(t.all_psi_valid);
  size_t fds_one = sampler_fd_count(s);

  t = run(s);
  assert_int_equal(t.n, 1);
  sampler_get_stats(s, &st);
  assert_int_equal(st.listings, 1);
  assert_int_equal(st.listings_skipped, 1);

  cg_mkdir("qemu.slice/101.scope");
  t = run(s);
  assert_int_equal(t.n, 2); /* sampled in the first run after it appeared */
  sampler_get_stats(s, &st);
  assert_int_equal(st.listings, 2);

  /* Same VMID, new cgroup: the count is unchanged, the old fds say ENODEV,
   * the guest is listed again and sampled once, from the new cgroup. */
  cg_rmdir("qemu.slice/100.scope");
  cg_mkdir("qemu.slice/100.scope");
  t = run(s);
  assert_int_equal(t.n, 2);
  assert_int_equal(t.visits_of_100, 1);
  assert_true(t.all_psi_valid);
  sampler_get_stats(s, &st);
  /* The scan skipped the listing (same count); ENODEV forced one. */
  assert_int_equal(st.listings_skipped, 2);
  assert_int_equal(st.listings, 3);

  cg_rmdir("qemu.slice/101.scope");
  cg_rmdir("qemu.slice/100.scope");
  assert_int_equal(run(s).n, 0);
  cg_mkdir("qemu.slice/100.scope");
  assert_int_equal(run(s).n, 1);
  assert_int_equal(sampler_fd_count(s), fds_one);
  cg_rmdir("qemu.slice/100.scope");
  sampler_free(s);
}

static int teardown(void **state) {
  (void)state;
  char cmd[PATH_MAX + 64];
  /* Children first; cgroupfs directories are removed with rmdir only. */
  snprintf(cmd, sizeof(cmd),
           "find '%s' -depth -type d -exec rmdir {} + 2>/dev/null", base);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  if (setup(NULL) != 0) {
    printf("SKIP: cannot make cgroups here (needs root and cgroup2)\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_discovery_on_cgroupfs),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  teardown(NULL);
  return rc;
}

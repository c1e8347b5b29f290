/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the sampler (src/sample/sampler.c) on fixture cgroup trees built in
 * a temp dir: discovery, exact values, kept-open descriptors that see new
 * contents, guests that go and come back with the same VMID, per-file
 * errors that leave the rest of the sample intact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pvecg/sampler.h"

#include "fixture_tree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_VISITS 16
/* Files kept open per guest without ExtraStats. */
#define BASE_FILES (GUEST_FILE_COUNT - __builtin_popcount(GUEST_FILES_EXTRA))

struct visits {
  size_t n;
  struct guest_sample s[MAX_VISITS];
};

static char root[256]; /* short: paths below it fit PATH_MAX */

static void make_guest(const char *rel, const char *current, const char *file) {
  fixture_guest(root, rel, current, file);
}

static void path_of(char *buf, const char *rel) {
  snprintf(buf, PATH_MAX, "%s/%s", root, rel);
}

static int setup(void **state) {
  (void)state;
  fixture_create(root, sizeof(root), "pvecg-sampler");
  fixture_mkdir(root, "cg/qemu.slice");
  fixture_mkdir(root, "cg/lxc");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture_remove(root);
  return 0;
}

/* Runs a shell command inside the fixture root. */
static void shell(const char *cmd) {
  char line[PATH_MAX + 256];
  snprintf(line, sizeof(line), "cd '%s' && %s", root, cmd);
  assert_int_equal(system(line), 0);
}

static void record(const struct guest_sample *s, void *ctx) {
  struct visits *v = ctx;
  assert_true(v->n < MAX_VISITS);
  v->s[v->n++] = *s;
}

static struct sampler *make_sampler(bool qemu, bool lxc) {
  struct sampler_config c = {.types = {qemu, lxc}};
  path_of(c.cgroup_root, "cg");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  return s;
}

static struct visits run(struct sampler *s) {
  struct visits v = {0};
  assert_int_equal(sampler_run(s, record, &v), 0);
  return v;
}

static void test_values_and_order(void **state) {
  (void)state;
  make_guest("cg/lxc/200", "314572800\n", "52428800");
  make_guest("cg/qemu.slice/101.scope", "2000\n", "1000");
  make_guest("cg/qemu.slice/100.scope", "1073741824\n", "104857600");
  struct sampler *s = make_sampler(true, true);
  struct visits v = run(s);
  assert_int_equal(v.n, 3);
  assert_int_equal(v.s[0].vmid, 100);
  assert_int_equal(v.s[0].type, GUEST_QEMU);
  assert_int_equal(v.s[1].vmid, 101);
  assert_int_equal(v.s[2].vmid, 200);
  assert_int_equal(v.s[2].type, GUEST_LXC);
  assert_true(v.s[0].memory_valid);
  assert_int_equal(v.s[0].memory_used, 968884224);
  assert_int_equal(v.s[2].memory_used, 262144000);
  assert_int_equal(v.s[0].memory_version, CGROUP_MEMORY_V2);
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++)
    assert_true(v.s[0].psi_valid[r]);
  assert_true(v.s[0].psi[PSI_CPU].some.avg10 == 1.5);
  assert_true(v.s[0].psi[PSI_IO].some.avg10 == 2.25);
  assert_true(v.s[0].psi[PSI_MEMORY].full.avg10 == 0.25);
  assert_int_equal(v.s[0].psi[PSI_MEMORY].some.total, 1000);
  assert_int_equal(v.s[0].failed, 0);
  assert_int_equal(sampler_guest_count(s), 3);
  assert_int_equal(sampler_fd_count(s), 3 * BASE_FILES);
  sampler_free(s);
}

static void test_kept_fds_see_new_contents(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "5000\n", "1000");
  struct sampler *s = make_sampler(true, true);
  struct visits v = run(s);
  assert_int_equal(v.s[0].memory_used, 4000);
  fixture_write(root, "cg/qemu.slice/100.scope/memory.current", "9000\n");
  fixture_psi(root, "cg/qemu.slice/100.scope", "cpu.pressure", "42.00");
  v = run(s);
  assert_int_equal(v.n, 1);
  assert_int_equal(v.s[0].memory_used, 8000);
  assert_true(v.s[0].psi[PSI_CPU].some.avg10 == 42.0);
  assert_int_equal(sampler_fd_count(s), BASE_FILES);
  sampler_free(s);
}

static void test_guest_goes_and_comes_back(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "5000\n", "1000");
  make_guest("cg/qemu.slice/101.scope", "5000\n", "1000");
  struct sampler *s = make_sampler(true, true);
  assert_int_equal(run(s).n, 2);
  shell("rm -r cg/qemu.slice/101.scope");
  struct visits v = run(s);
  assert_int_equal(v.n, 1);
  assert_int_equal(v.s[0].vmid, 100);
  assert_int_equal(sampler_fd_count(s), BASE_FILES);
  /* Re-created under the same name: made aside first so that it surely
   * has a new inode, then moved into place. */
  make_guest("cg/qemu.slice/new", "70000\n", "0");
  shell("rm -r cg/qemu.slice/100.scope && "
        "mv cg/qemu.slice/new cg/qemu.slice/100.scope");
  v = run(s);
  assert_int_equal(v.n, 1);
  assert_int_equal(v.s[0].memory_used, 70000);
  sampler_free(s);
}

static void test_file_errors_are_per_file(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "5000\n", "1000");
  fixture_write(root, "cg/qemu.slice/100.scope/cpu.pressure", "some avg10=x\n");
  struct sampler *s = make_sampler(true, true);
  struct visits v = run(s);
  assert_int_equal(v.n, 1);
  assert_false(v.s[0].psi_valid[PSI_CPU]);
  assert_int_equal(v.s[0].error[GUEST_FILE_CPU_PRESSURE], -EBADMSG);
  assert_true(v.s[0].psi_valid[PSI_IO]);
  assert_true(v.s[0].memory_valid);
  assert_int_equal(v.s[0].failed, 1u << GUEST_FILE_CPU_PRESSURE);
  assert_int_equal(v.s[0].failed_before, 0);
  v = run(s);
  assert_int_equal(v.s[0].failed_before, 1u << GUEST_FILE_CPU_PRESSURE);
  fixture_psi(root, "cg/qemu.slice/100.scope", "cpu.pressure", "1.00");
  v = run(s);
  assert_true(v.s[0].psi_valid[PSI_CPU]);
  assert_int_equal(v.s[0].failed, 0);
  assert_int_equal(v.s[0].failed_before, 1u << GUEST_FILE_CPU_PRESSURE);
  /* A malformed usage file is blamed on that file. */
  fixture_write(root, "cg/qemu.slice/100.scope/memory.current", "12 34\n");
  v = run(s);
  assert_false(v.s[0].memory_valid);
  assert_int_equal(v.s[0].failed, 1u << GUEST_FILE_MEMORY_USAGE);
  sampler_free(s);
}

static void test_missing_and_oversized_files(void **state) {
  (void)state;
  make_guest("cg/lxc/200", "5000\n", "1000");
  shell("rm cg/lxc/200/io.pressure");
  /* A memory.stat far larger than any kernel's. */
  char *big = malloc(20000);
  assert_non_null(big);
  memset(big, 'x', 19999);
  big[19999] = '\0';
  fixture_write(root, "cg/lxc/200/memory.stat", big);
  free(big);
  struct sampler *s = make_sampler(true, true);
  struct visits v = run(s);
  assert_int_equal(v.n, 1);
  assert_int_equal(v.s[0].error[GUEST_FILE_IO_PRESSURE], -ENOENT);
  assert_int_equal(v.s[0].error[GUEST_FILE_MEMORY_STAT], -EFBIG);
  assert_false(v.s[0].memory_valid);
  assert_false(v.s[0].psi_valid[PSI_IO]);
  assert_true(v.s[0].psi_valid[PSI_MEMORY]);
  assert_int_equal(sampler_fd_count(s), BASE_FILES - 1);
  sampler_free(s);
}

static void test_v1_memory(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/104.scope", "1\n", "0");
  shell("rm cg/qemu.slice/104.scope/memory.current "
        "cg/qemu.slice/104.scope/memory.stat");
  fixture_mkdir(root, "mem/qemu.slice/104.scope");
  fixture_write(root, "mem/qemu.slice/104.scope/memory.usage_in_bytes",
                "536870912\n");
  fixture_write(root, "mem/qemu.slice/104.scope/memory.stat",
                "cache 1\ntotal_cache 1048576\n");
  fixture_write(root, "mem/qemu.slice/104.scope/memory.oom_control",
                "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
  struct sampler_config c = {.types = {true, true}};
  path_of(c.cgroup_root, "cg");
  path_of(c.memory_root, "mem");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  struct visits v = run(s);
  assert_int_equal(v.n, 1);
  assert_int_equal(v.s[0].memory_version, CGROUP_MEMORY_V1);
  assert_true(v.s[0].memory_valid);
  assert_int_equal(v.s[0].memory_used, 535822336);
  assert_true(v.s[0].psi_valid[PSI_CPU]);
  /* The two v1 memory files and the five of cgroup2, not ExtraStats'
   * memory.oom_control. */
  assert_int_equal(sampler_fd_count(s), 2 + 5);
  sampler_free(s);
}

static void test_not_guests(void **state) {
  (void)state;
  char path[PATH_MAX], target[PATH_MAX];
  const char *dirs[] = {"cg/qemu.slice/99.scope",
                        "cg/qemu.slice/0100.scope",
                        "cg/qemu.slice/abc.scope",
                        "cg/qemu.slice/100",
                        "cg/lxc/100.scope",
                        "cg/lxc/init.scope",
                        "outside"};
  for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
    make_guest(dirs[i], "1\n", "0");
  path_of(target, "outside");
  path_of(path, "cg/qemu.slice/103.scope");
  assert_int_equal(symlink(target, path), 0);
  fixture_write(root, "cg/qemu.slice/105.scope", "a file, not a directory");
  struct sampler *s = make_sampler(true, true);
  assert_int_equal(run(s).n, 0);
  assert_int_equal(sampler_fd_count(s), 0);
  sampler_free(s);
}

static bool only_even(enum guest_type type, uint32_t vmid, void *ctx) {
  (void)type;
  (*(int *)ctx)++;
  return vmid % 2 == 0;
}

static void test_accept_and_types(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "1\n", "0");
  make_guest("cg/qemu.slice/101.scope", "1\n", "0");
  make_guest("cg/lxc/200", "1\n", "0");
  int asked = 0;
  struct sampler_config c = {
      .types = {true, false}, .accept = only_even, .accept_ctx = &asked};
  path_of(c.cgroup_root, "cg");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  struct visits v = run(s);
  assert_int_equal(v.n, 1);
  assert_int_equal(v.s[0].vmid, 100);
  assert_int_equal(asked, 2); /* lxc not even listed */
  assert_int_equal(sampler_fd_count(s), BASE_FILES);
  sampler_free(s);
}

static void test_no_guest_dirs(void **state) {
  (void)state;
  shell("rm -r cg/lxc cg/qemu.slice");
  struct sampler *s = make_sampler(true, true);
  assert_int_equal(run(s).n, 0);
  sampler_free(s);
}

static void test_bad_config(void **state) {
  (void)state;
  struct sampler *s;
  struct sampler_config c = {.types = {true, true}};
  assert_int_equal(sampler_new(&c, &s), -EINVAL); /* empty root */
  snprintf(c.cgroup_root, sizeof(c.cgroup_root), "relative/path");
  assert_int_equal(sampler_new(&c, &s), -EINVAL);
  snprintf(c.cgroup_root, sizeof(c.cgroup_root), "/sys/fs/cgroup");
  snprintf(c.memory_root, sizeof(c.memory_root), "memory");
  assert_int_equal(sampler_new(&c, &s), -EINVAL);
}

static void test_fd_budget(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "3000\n", "1000");
  make_guest("cg/qemu.slice/101.scope", "4000\n", "1000");
  make_guest("cg/qemu.slice/102.scope", "5000\n", "1000");
  struct sampler_config c = {.types = {true, true},
                             .fd_budget = 2 * BASE_FILES + 1};
  path_of(c.cgroup_root, "cg");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  for (int round = 0; round < 2; round++) {
    struct visits v = run(s);
    assert_int_equal(v.n, 3);
    assert_int_equal(v.s[2].vmid, 102);
    assert_true(v.s[2].memory_valid); /* read by open/read/close */
    assert_int_equal(v.s[2].memory_used, 4000);
    assert_true(v.s[2].psi_valid[PSI_MEMORY]);
  }
  struct sampler_stats st;
  sampler_get_stats(s, &st);
  assert_int_equal(st.guests, 3);
  assert_int_equal(st.unkept_guests, 1);
  assert_int_equal(st.fds, 2 * BASE_FILES);
  /* The unkept guest going away is noticed like any other. */
  shell("rm -r cg/qemu.slice/102.scope");
  assert_int_equal(run(s).n, 2);
  sampler_free(s);
  /* With KSM each guest counts one descriptor more (its ksm_stat): the
   * same budget keeps one guest's files open, not two. */
  c.ksm = true;
  c.fd_budget = 2 * BASE_FILES + 1;
  assert_int_equal(sampler_new(&c, &s), 0);
  assert_int_equal(run(s).n, 2);
  sampler_get_stats(s, &st);
  assert_int_equal(st.unkept_guests, 1);
  c.fd_budget = 2 * (BASE_FILES + 1);
  sampler_free(s);
  assert_int_equal(sampler_new(&c, &s), 0);
  assert_int_equal(run(s).n, 2);
  sampler_get_stats(s, &st);
  assert_int_equal(st.unkept_guests, 0);
  sampler_free(s);
}

/* cgroup.stat's nr_descendants decides whether a type directory is listed
 * again (here a fixture file stands in for cgroupfs). */
static void test_listing_skipped_while_unchanged(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "3000\n", "1000");
  fixture_write(root, "cg/qemu.slice/cgroup.stat",
                "nr_descendants 1\nnr_dying_descendants 0\n");
  struct sampler *s = make_sampler(true, false);
  assert_int_equal(run(s).n, 1);
  struct sampler_stats st;
  sampler_get_stats(s, &st);
  assert_int_equal(st.listings, 1);
  assert_int_equal(st.fds, BASE_FILES + 1);
  make_guest("cg/qemu.slice/101.scope", "3000\n", "1000");
  assert_int_equal(run(s).n, 1); /* count unchanged: not listed */
  sampler_get_stats(s, &st);
  assert_int_equal(st.listings, 1);
  assert_int_equal(st.listings_skipped, 1);
  fixture_write(root, "cg/qemu.slice/cgroup.stat",
                "nr_descendants 2\nnr_dying_descendants 0\n");
  assert_int_equal(run(s).n, 2);
  sampler_get_stats(s, &st);
  assert_int_equal(st.listings, 2);
  /* A malformed cgroup.stat means "list". */
  fixture_write(root, "cg/qemu.slice/cgroup.stat", "nr_descendants x\n");
  assert_int_equal(run(s).n, 2);
  sampler_get_stats(s, &st);
  assert_int_equal(st.listings, 3);
  sampler_free(s);
}

static double fake_now;
static double fake_clock(void) { return fake_now; }

static struct guest_sample run_one_at(struct sampler *s, double t) {
  fake_now = t;
  struct visits v = run(s);
  assert_int_equal(v.n, 1);
  return v.s[0];
}

static void set_usage(const char *usage_usec) {
  char text[128];
  snprintf(text, sizeof(text), "usage_usec %s\nuser_usec 0\n", usage_usec);
  fixture_write(root, "cg/qemu.slice/100.scope/cpu.stat", text);
}

/* A file missing when the guest appears (io.stat where cgroup2 has no io
 * controller) is looked for after 30 s, then 60, 120... up to 480. */
static void test_missing_file_backoff(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "3000\n", "1000");
  shell("rm cg/qemu.slice/100.scope/io.stat");
  struct sampler_config c = {.types = {true, true}, .clock = fake_clock};
  path_of(c.cgroup_root, "cg");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  assert_false(run_one_at(s, 1000).io_valid);
  assert_false(run_one_at(s, 1030).io_valid); /* looked for: still none */
  fixture_write(root, "cg/qemu.slice/100.scope/io.stat",
                "8:0 rbytes=1 wbytes=2 rios=0 wios=0 dbytes=0 dios=0\n");
  assert_false(run_one_at(s, 1089).io_valid); /* the next look is at 1090 */
  assert_true(run_one_at(s, 1090).io_valid);
  sampler_free(s);
  /* Missing for good: the looks thin out to one per 8 minutes. */
  shell("rm cg/qemu.slice/100.scope/io.stat");
  fake_now = 0;
  assert_int_equal(sampler_new(&c, &s), 0);
  double t = 0, wait = 30;
  run_one_at(s, t);
  for (int i = 0; i < 6; i++) {
    t += wait;
    run_one_at(s, t);
    wait = wait * 2 > 480 ? 480 : wait * 2;
  }
  fixture_write(root, "cg/qemu.slice/100.scope/io.stat",
                "8:0 rbytes=1 wbytes=2 rios=0 wios=0 dbytes=0 dios=0\n");
  assert_false(run_one_at(s, t + 479).io_valid);
  assert_true(run_one_at(s, t + 480).io_valid);
  sampler_free(s);
}

/* Writes a config with an mtime of its own, so a change is always seen. */
static void set_config(const char *text, time_t mtime) {
  char path[PATH_MAX];
  fixture_write(root, "pve/qemu-server/100.conf", text);
  path_of(path, "pve/qemu-server/100.conf");
  struct timespec times[2] = {{mtime, 0}, {mtime, 0}};
  assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

static void test_cpu_io_and_settings(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "3000\n", "1000");
  fixture_mkdir(root, "pve/qemu-server");
  set_config("cores: 2\nmemory: 1024\nname: vm-a\n", 1000);
  struct sampler_config c = {.types = {true, true},
                             .settings_refresh_seconds = 10,
                             .host_cpus = 16,
                             .clock = fake_clock};
  path_of(c.cgroup_root, "cg");
  path_of(c.pve_config_dir, "pve");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);

  struct guest_sample g = run_one_at(s, 100);
  assert_false(g.cpu_valid); /* first sample */
  assert_true(g.maxcpu_valid);
  assert_int_equal(g.maxcpu, 2);
  assert_int_equal(g.maxmem, 1024u << 20);
  assert_string_equal(g.name, "vm-a");
  assert_true(g.io_valid);
  assert_int_equal(g.io.rbytes, 5096);
  assert_int_equal(g.io.wbytes, 8192);

  set_usage("8000000"); /* +3 s of CPU in 2 s of wall time */
  g = run_one_at(s, 102);
  assert_true(g.cpu_valid);
  assert_true(g.cpu_busy == 1.5);
  set_usage("1000"); /* counter reset */
  g = run_one_at(s, 104);
  assert_false(g.cpu_valid);
  set_usage("2001000");
  g = run_one_at(s, 106);
  assert_true(g.cpu_busy == 1.0);

  set_config("cores: 4\n", 2000);
  g = run_one_at(s, 107); /* before the refresh period: still the old one */
  assert_int_equal(g.maxcpu, 2);
  g = run_one_at(s, 111);
  assert_int_equal(g.maxcpu, 4);
  assert_int_equal(g.maxmem, 512u << 20); /* PVE's default */
  assert_int_equal(g.config_error, 0);

  set_config("cores: x\n", 3000);
  fixture_write(root, "cg/qemu.slice/100.scope/cpu.max", "300000 100000\n");
  g = run_one_at(s, 122);
  assert_int_equal(g.config_error, -EBADMSG);
  assert_int_equal(g.config_error_before, 0);
  assert_false(g.maxcpu_valid); /* a broken config: unknown */
  assert_false(g.maxmem_valid);
  /* Until the next look the sample reports no change again (the plugin
   * logs changes: once, not on every sample in between). */
  g = run_one_at(s, 125);
  assert_int_equal(g.config_error, -EBADMSG);
  assert_int_equal(g.config_error_before, -EBADMSG);
  assert_false(g.maxcpu_valid);
  shell("rm pve/qemu-server/100.conf");
  g = run_one_at(s, 133);
  assert_int_equal(g.config_error, -ENOENT);
  assert_int_equal(g.maxcpu, 3); /* no config: cpu.max */
  shell("rm cg/qemu.slice/100.scope/cpu.max");
  g = run_one_at(s, 144);
  assert_int_equal(g.maxcpu, 16); /* the host's */
  /* Neither limit file exists now: they are looked for again after one
   * refresh period (at 154), then after twice as long (at 174). */
  g = run_one_at(s, 154);
  assert_int_equal(g.maxcpu, 16);
  fixture_write(root, "cg/qemu.slice/100.scope/cpu.max", "500000 100000\n");
  g = run_one_at(s, 164); /* a refresh, but not of the limits */
  assert_int_equal(g.maxcpu, 16);
  g = run_one_at(s, 173);
  assert_int_equal(g.maxcpu, 16);
  g = run_one_at(s, 174);
  assert_int_equal(g.maxcpu, 5);
  /* Found again, they are read at every refresh. */
  fixture_write(root, "cg/qemu.slice/100.scope/cpu.max", "600000 100000\n");
  g = run_one_at(s, 184);
  assert_int_equal(g.maxcpu, 6);
  sampler_free(s);
}

static void test_extra_stats(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "1073741824\n", "104857600");
  fixture_write(root, "cg/qemu.slice/100.scope/memory.stat",
                "anon 900000000\nfile 104857600\nkernel 2000000\nsock 4096\n"
                "shmem 52428800\nfile_mapped 7340032\nfile_dirty 8192\n"
                "sec_pagetables 12288\n");
  fixture_write(root, "cg/qemu.slice/100.scope/memory.events",
                "low 0\nhigh 0\nmax 3\noom 2\noom_kill 1\noom_group_kill 0\n");
  fixture_write(root, "cg/qemu.slice/100.scope/memory.swap.current", "65536\n");
  struct sampler_config c = {.types = {true, true}, .extra_stats = true};
  path_of(c.cgroup_root, "cg");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  struct visits v = run(s);
  assert_int_equal(v.n, 1);
  const struct guest_sample *g = &v.s[0];
  assert_int_equal(sampler_fd_count(s), GUEST_FILE_COUNT);
  assert_int_equal(g->memory_used, 968884224);
  assert_int_equal(g->memory_detail.valid, (1u << MEMORY_DETAIL_COUNT) - 1);
  assert_int_equal(g->memory_detail.bytes[MEMORY_ANON], 900000000);
  assert_int_equal(g->memory_detail.bytes[MEMORY_SHMEM], 52428800);
  assert_int_equal(g->memory_detail.bytes[MEMORY_SEC_PAGETABLES], 12288);
  assert_int_equal(g->memory_detail.bytes[MEMORY_SWAP], 65536);
  /* usage - (file - shmem) = 1073741824 - 52428800 */
  assert_true(g->memory_with_shmem_valid);
  assert_int_equal(g->memory_with_shmem, 1021313024);
  assert_true(g->oom_valid && g->oom_kill_valid);
  assert_int_equal(g->oom, 2);
  assert_int_equal(g->oom_kill, 1);
  assert_int_equal(g->failed, 0);
  /* A malformed events file costs only its own two values. */
  fixture_write(root, "cg/qemu.slice/100.scope/memory.events", "oom x\n");
  v = run(s);
  assert_false(v.s[0].oom_valid);
  assert_true(v.s[0].memory_with_shmem_valid);
  assert_int_equal(v.s[0].failed, 1u << GUEST_FILE_MEMORY_EVENTS);
  sampler_free(s);
}

/* A /proc/<pid>/stat of a process that started at start. */
static void pid_stat(const char *rel, int pid, unsigned long start) {
  char text[256];
  snprintf(text, sizeof(text),
           "%d (kvm) S 1 %d %d 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 9 0 %lu "
           "1000 50\n",
           pid, pid, pid, start);
  fixture_write(root, rel, text);
}

static void test_ksm(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "3000\n", "1000");
  make_guest("cg/qemu.slice/101.scope", "3000\n", "1000");
  fixture_write(root, "cg/qemu.slice/101.scope/cgroup.procs", "4343\n4344\n");
  fixture_mkdir(root, "run/qemu-server");
  fixture_write(root, "run/qemu-server/100.pid", "4242\n");
  /* 101's pid file is stale: that pid now belongs to someone else. */
  fixture_write(root, "run/qemu-server/101.pid", "999\n");
  fixture_mkdir(root, "proc/4242");
  fixture_write(root, "proc/4242/cgroup",
                "12:memory:/qemu.slice/100.scope\n0::/qemu.slice/100.scope\n");
  fixture_write(root, "proc/4242/ksm_stat",
                "ksm_rmap_items 10\nksm_zero_pages 0\nksm_merging_pages 2048\n"
                "ksm_process_profit 8384512\nksm_merge_any: no\n");
  fixture_mkdir(root, "proc/999");
  fixture_write(root, "proc/999/cgroup", "0::/user.slice\n");
  fixture_write(root, "proc/999/ksm_stat",
                "ksm_merging_pages 1\nksm_process_profit 1\n");
  fixture_mkdir(root, "proc/4343");
  fixture_write(root, "proc/4343/cgroup", "0::/qemu.slice/101.scope\n");
  pid_stat("proc/4242/stat", 4242, 5000);
  pid_stat("proc/999/stat", 999, 6000);
  pid_stat("proc/4343/stat", 4343, 7000);
  fixture_write(root, "proc/4343/ksm_stat",
                "ksm_merging_pages 0\nksm_process_profit -4096\n");
  struct sampler_config c = {.types = {true, true}, .ksm = true};
  path_of(c.cgroup_root, "cg");
  path_of(c.run_dir, "run");
  path_of(c.proc_root, "proc");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  struct visits v = run(s);
  assert_int_equal(v.n, 2);
  assert_true(v.s[0].ksm_valid);
  assert_int_equal(v.s[0].ksm.merging_pages, 2048);
  assert_int_equal(v.s[0].ksm.profit, 8384512);
  assert_int_equal(v.s[1].ksm_error, 0);
  assert_true(v.s[1].ksm_valid); /* found through cgroup.procs */
  assert_int_equal(v.s[1].ksm.profit, -4096);
  /* Both ksm_stat files stay open: one descriptor more per VM than its
   * seven cgroup files (memory.current and .stat, three PSI files,
   * cpu.stat, io.stat). */
  assert_int_equal(sampler_fd_count(s), 2u * 7 + 2);
  /* The start time is checked when the pid is found, not every interval:
   * the open file is the process's whatever its pid names now. */
  pid_stat("proc/4242/stat", 4242, 5001);
  v = run(s);
  assert_true(v.s[0].ksm_valid);
  assert_int_equal(v.s[0].ksm.merging_pages, 2048);
  pid_stat("proc/4242/stat", 4242, 5000);
  /* 4343 ends (the kernel answers its open file with ESRCH or nothing:
   * here, nothing) and its pid is taken by a process elsewhere, whose
   * ksm_stat is a new file at the same path: not 101's. */
  fixture_write(root, "proc/4343/ksm_stat", "");
  shell("rm proc/4343/ksm_stat");
  fixture_write(root, "proc/4343/cgroup", "0::/user.slice\n");
  fixture_write(root, "proc/4343/ksm_stat",
                "ksm_merging_pages 5\nksm_process_profit 5\n");
  pid_stat("proc/4343/stat", 4343, 9000);
  v = run(s);
  assert_false(v.s[1].ksm_valid);
  assert_int_equal(v.s[1].ksm_error, -ESRCH);
  assert_true(v.s[0].ksm_valid);
  assert_int_equal(v.s[0].ksm_error, 0);
  v = run(s); /* looked for again: the first pid of the scope is 4343's */
  assert_false(v.s[1].ksm_valid);
  assert_int_equal(v.s[1].ksm_error, 0);
  /* 101 restarted as 4344: found again at the next interval */
  fixture_mkdir(root, "proc/4344");
  fixture_write(root, "proc/4344/cgroup", "0::/qemu.slice/101.scope\n");
  fixture_write(root, "proc/4344/ksm_stat",
                "ksm_merging_pages 64\nksm_process_profit 200000\n");
  pid_stat("proc/4344/stat", 4344, 9100);
  fixture_write(root, "cg/qemu.slice/101.scope/cgroup.procs", "4344\n");
  v = run(s);
  assert_true(v.s[1].ksm_valid);
  assert_int_equal(v.s[1].ksm.merging_pages, 64);
  /* a malformed ksm_stat: unknown, logged why, and the file kept */
  fixture_write(root, "proc/4344/ksm_stat", "ksm_merging_pages many\n");
  v = run(s);
  assert_false(v.s[1].ksm_valid);
  assert_int_equal(v.s[1].ksm_error, -EBADMSG);
  fixture_write(root, "proc/4344/ksm_stat",
                "ksm_merging_pages 65\nksm_process_profit 1\n");
  v = run(s);
  assert_true(v.s[1].ksm_valid);
  assert_int_equal(v.s[1].ksm.merging_pages, 65);
  /* 4344 exits; its successor 4345 has no ksm_stat (a kernel before 6.1):
   * unknown, logged why, and the pid kept. */
  fixture_write(root, "proc/4344/ksm_stat", "");
  shell("rm -r proc/4344");
  fixture_mkdir(root, "proc/4345");
  fixture_write(root, "proc/4345/cgroup", "0::/qemu.slice/101.scope\n");
  pid_stat("proc/4345/stat", 4345, 9200);
  fixture_write(root, "cg/qemu.slice/101.scope/cgroup.procs", "4345\n");
  v = run(s);
  assert_int_equal(v.s[1].ksm_error, -ESRCH);
  v = run(s);
  assert_false(v.s[1].ksm_valid);
  assert_int_equal(v.s[1].ksm_error, -ENOENT);
  /* The process exits and its directory goes: unknown. */
  fixture_write(root, "proc/4242/ksm_stat", "");
  shell("rm -r proc/4242");
  v = run(s);
  assert_false(v.s[0].ksm_valid);
  assert_int_equal(v.s[0].ksm_error, -ESRCH);
  /* Read only in a run the plan says is due; nothing of KSM otherwise. */
  fixture_write(root, "proc/4345/ksm_stat",
                "ksm_merging_pages 7\nksm_process_profit 7\n");
  sampler_plan_next(s, &(struct sampler_plan){.ksm_active = true});
  v = run(s);
  assert_false(v.s[1].ksm_valid);
  assert_int_equal(v.s[1].ksm_error, 0);
  sampler_plan_next(
      s, &(struct sampler_plan){.ksm_active = true, .ksm_due = true});
  v = run(s);
  assert_true(v.s[1].ksm_valid);
  assert_int_equal(v.s[1].ksm.merging_pages, 7);
  sampler_free(s);
}

/* A pmxcfs tree as a node sees it: qemu-server and lxc link to
 * nodes/a/, .version's "vmlist" counts the guest list's changes. */
static void pmxcfs_tree(unsigned vmlist) {
  char text[64];
  snprintf(text, sizeof(text), "{\n\"starttime\": 1,\n\"vmlist\": %u,\n",
           vmlist);
  fixture_write(root, "pve/.version", text);
}

static struct sampler *make_node_sampler(void) {
  struct sampler_config c = {.types = {true, true}};
  path_of(c.cgroup_root, "cg");
  path_of(c.pve_config_dir, "pve");
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  return s;
}

static void assert_vmids(struct sampler *s, const char *want) {
  struct visits v = run(s);
  char got[64] = "";
  for (size_t i = 0; i < v.n; i++)
    snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", i ? " " : "",
             (unsigned)v.s[i].vmid);
  assert_string_equal(got, want);
}

/* Only the guests whose configuration is on this node are reported, as
 * pvestatd does; the move of a configuration (a migration's end) is seen
 * in the next run after the counter moved, even while cgroupfs says the
 * guests' directories are unchanged. */
static void test_configs_on_this_node(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "3000\n", "1000");
  make_guest("cg/qemu.slice/101.scope", "3000\n", "1000");
  make_guest("cg/lxc/200", "3000\n", "1000");
  fixture_write(root, "cg/qemu.slice/cgroup.stat", "nr_descendants 2\n");
  fixture_mkdir(root, "pve/nodes/a/qemu-server");
  fixture_mkdir(root, "pve/nodes/a/lxc");
  fixture_mkdir(root, "pve/nodes/b/qemu-server");
  fixture_mkdir(root, "pve/nodes/b/lxc");
  fixture_write(root, "pve/nodes/a/qemu-server/100.conf", "memory: 512\n");
  fixture_write(root, "pve/nodes/b/qemu-server/101.conf", "memory: 512\n");
  fixture_write(root, "pve/nodes/a/lxc/200.conf", "memory: 512\n");
  shell("ln -s nodes/a/qemu-server pve/qemu-server && "
        "ln -s nodes/a/lxc pve/lxc");
  pmxcfs_tree(1);
  struct sampler *s = make_node_sampler();
  assert_vmids(s, "100 200");
  assert_int_equal(sampler_scope(s), SAMPLER_SCOPE_THIS_NODE);
  assert_int_equal(sampler_fd_count(s), 2 * BASE_FILES + 1);
  /* Listed only when the counter moves. */
  shell("mv pve/nodes/b/qemu-server/101.conf pve/nodes/a/qemu-server/");
  assert_vmids(s, "100 200");
  pmxcfs_tree(2);
  assert_vmids(s, "100 101 200");
  /* 100 migrates to node b: dropped, its files closed. */
  shell("mv pve/nodes/a/qemu-server/100.conf pve/nodes/b/qemu-server/");
  pmxcfs_tree(3);
  assert_vmids(s, "101 200");
  assert_int_equal(sampler_fd_count(s), 2 * BASE_FILES + 1);
  /* pmxcfs stopped: /etc/pve empty, every guest found. */
  shell("rm pve/.version");
  assert_vmids(s, "100 101 200");
  assert_int_equal(sampler_scope(s), SAMPLER_SCOPE_NO_TREE);
  /* A counter that cannot be read: listed every run. */
  fixture_write(root, "pve/.version", "{\n\"vmlist\": x,\n");
  assert_vmids(s, "101 200");
  shell("mv pve/nodes/b/qemu-server/100.conf pve/nodes/a/qemu-server/");
  assert_vmids(s, "100 101 200");
  assert_int_equal(sampler_scope(s), SAMPLER_SCOPE_THIS_NODE);
  sampler_free(s);
}

/* Without PveConfigDir, or without pmxcfs' .version, every guest. */
static void test_no_configuration_tree(void **state) {
  (void)state;
  make_guest("cg/qemu.slice/100.scope", "3000\n", "1000");
  fixture_mkdir(root, "pve/qemu-server");
  fixture_write(root, "pve/qemu-server/101.conf", "memory: 512\n");
  struct sampler *s = make_sampler(true, true);
  assert_vmids(s, "100");
  assert_int_equal(sampler_scope(s), SAMPLER_SCOPE_ALL);
  sampler_free(s);
  s = make_node_sampler();
  assert_vmids(s, "100");
  assert_int_equal(sampler_scope(s), SAMPLER_SCOPE_NO_TREE);
  sampler_free(s);
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_values_and_order),
      T(test_kept_fds_see_new_contents),
      T(test_guest_goes_and_comes_back),
      T(test_file_errors_are_per_file),
      T(test_missing_and_oversized_files),
      T(test_v1_memory),
      T(test_not_guests),
      T(test_accept_and_types),
      T(test_no_guest_dirs),
      T(test_bad_config),
      T(test_fd_budget),
      T(test_listing_skipped_while_unchanged),
      T(test_cpu_io_and_settings),
      T(test_extra_stats),
      T(test_ksm),
      T(test_missing_file_backoff),
      T(test_configs_on_this_node),
      T(test_no_configuration_tree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

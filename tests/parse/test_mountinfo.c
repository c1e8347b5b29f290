/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/mountinfo.c: finding the cgroup2 and v1 memory mounts on
 * hybrid and unified hosts, octal escapes, the exact "memory" super option,
 * first match wins, PATH_MAX, and skipping lines without the mountinfo form.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "pvecg/mountinfo.h"

/* /proc/self/mountinfo of a Debian 12 host with the hybrid layout, less
 * three bind mounts (its cgroup mounts have no optional fields). */
static const char hybrid_host[] =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
    "24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs "
    "rw,size=12334192k,nr_inodes=3083548,mode=755\n"
    "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683584k\n"
    "26 24 0:24 / /dev/pts rw,relatime - devpts devpts "
    "rw,mode=600,ptmxmode=000\n"
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda "
    "rw,discard,resv_strict,resuid=65534,resgid=65534\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup "
    "rw,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup "
    "rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup "
    "rw,memory\n"
    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup "
    "rw,devices\n"
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup "
    "rw,freezer\n"
    "38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup "
    "rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* The cgroup lines of a unified PVE 8 host as systemd mounts them: with
 * propagation fields and memory_recursiveprot, which is not "memory". */
static const char unified_host[] =
    "24 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs "
    "sysfs rw\n"
    "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - "
    "cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
    "36 24 0:31 / /sys/fs/pstore rw,nosuid,nodev,noexec,relatime shared:10 "
    "- pstore pstore rw\n";

/* The same kind of lines on a systemd hybrid host (PVE 6). */
static const char systemd_hybrid_host[] =
    "26 24 0:24 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:4 - tmpfs "
    "tmpfs ro,mode=755\n"
    "27 26 0:25 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime "
    "shared:5 - cgroup2 cgroup2 rw,nsdelegate\n"
    "28 26 0:26 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime "
    "shared:6 - cgroup cgroup rw,xattr,name=systemd\n"
    "35 26 0:33 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime "
    "shared:13 - cgroup cgroup rw,cpu,cpuacct\n"
    "37 26 0:35 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime "
    "shared:15 master:3 - cgroup cgroup rw,memory\n";

static struct cgroup_mounts parse_len(const char *s, size_t len) {
  char *buf = exact_copy(s, len);
  struct cgroup_mounts m;

  memset(&m, 0xaa, sizeof(m));
  assert_int_equal(mountinfo_parse(buf, len, &m), 0);
  free(buf);
  return m;
}

static struct cgroup_mounts parse(const char *s) {
  return parse_len(s, strlen(s));
}

static void check(const char *s, const char *unified, const char *memory) {
  struct cgroup_mounts m = parse(s);

  assert_string_equal(m.unified, unified);
  assert_string_equal(m.memory_v1, memory);
}

/* A cgroup2 line to append after a line under test: parsing goes on. */
#define GOOD_V2 "9 1 0:9 / /good rw - cgroup2 cgroup2 rw\n"

static void check_skipped(const char *line) {
  char s[256];

  assert_true(strlen(line) + sizeof(GOOD_V2) <= sizeof(s));
  strcpy(s, line);
  strcat(s, GOOD_V2);
  check(s, "/good", "");
}

static void test_real_hybrid_host(void **state) {
  (void)state;
  check(hybrid_host, "/sys/fs/cgroup/unified", "/sys/fs/cgroup/memory");
  check(systemd_hybrid_host, "/sys/fs/cgroup/unified", "/sys/fs/cgroup/memory");
}

static void test_unified_host(void **state) {
  (void)state;
  check(unified_host, "/sys/fs/cgroup", "");
}

static void test_empty_and_no_final_newline(void **state) {
  (void)state;
  check("", "", "");
  check("\n\n", "", "");
  check("1 2 0:3 / /x rw - cgroup2 cgroup2 rw", "/x", "");
  check("1 2 0:3 / /m rw - cgroup cgroup rw,memory", "", "/m");
}

/* "memory" must be a whole comma-separated super option. */
static void test_memory_option(void **state) {
  (void)state;
  check("1 2 0:3 / /m rw - cgroup cgroup memory\n", "", "/m");
  check("1 2 0:3 / /m rw - cgroup cgroup rw,cpu,memory\n", "", "/m");
  check("1 2 0:3 / /m rw - cgroup cgroup rw,memory,cpuset\n", "", "/m");
  check("1 2 0:3 / /m rw - cgroup cgroup rw,memory_recursiveprot\n", "", "");
  check("1 2 0:3 / /m rw - cgroup cgroup rw,nomemory\n", "", "");
  check("1 2 0:3 / /m rw - cgroup cgroup rw,name=memory\n", "", "");
  check("1 2 0:3 / /m rw - cgroup cgroup rw,memor\n", "", "");
  check("1 2 0:3 / /m rw - cgroup cgroup rw,,memory,\n", "", "/m");
  /* The mount options and the source do not count. */
  check("1 2 0:3 / /m rw,memory - cgroup cgroup rw\n", "", "");
  check("1 2 0:3 / /m rw - cgroup memory rw\n", "", "");
  /* Only fstype "cgroup" is a v1 hierarchy. */
  check("1 2 0:3 / /m rw - tmpfs tmpfs rw,memory\n", "", "");
  check("1 2 0:3 / /m rw - cgroup2 cgroup2 rw,memory\n", "/m", "");
  check("1 2 0:3 / /m rw - cgroupfs cgroup rw,memory\n", "", "");
  check("1 2 0:3 / /m rw - cgroup22 cgroup rw\n", "", "");
}

static void test_first_match_wins(void **state) {
  (void)state;
  check("1 2 0:3 / /a rw - cgroup2 cgroup2 rw\n"
        "4 2 0:5 / /b rw - cgroup2 cgroup2 rw\n"
        "6 2 0:7 / /c rw - cgroup cgroup rw,memory\n"
        "8 2 0:9 / /d rw - cgroup cgroup rw,memory\n",
        "/a", "/c");
  /* A line that is skipped does not count as the first. */
  check("1 2 0:3 / /bad\\x rw - cgroup2 cgroup2 rw\n"
        "4 2 0:5 / /b rw - cgroup2 cgroup2 rw\n",
        "/b", "");
}

static void test_escapes(void **state) {
  (void)state;
  check("1 2 0:3 / /my\\040cgroup rw - cgroup2 cgroup2 rw\n", "/my cgroup", "");
  check("1 2 0:3 / /a\\011b\\012c\\134d rw - cgroup2 cgroup2 rw\n",
        "/a\tb\nc\\d", "");
  check("1 2 0:3 / /\\101\\377 rw - cgroup2 cgroup2 rw\n", "/A\377", "");
  check("1 2 0:3 / /x\\040 rw - cgroup2 cgroup2 rw\n", "/x ", "");
  /* Escapes in other fields are left alone. */
  check("1 2 0:3 /r\\040t /x rw - cgroup2 my\\040src rw\n", "/x", "");
}

static void test_bad_escapes_skip_line(void **state) {
  (void)state;
  check_skipped("1 2 0:3 / /a\\ rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /a\\0 rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /a\\04 rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /a\\400 rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /a\\08x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /a\\x41 rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /a\\\\ rw - cgroup2 cgroup2 rw\n");
  /* A NUL, escaped or raw, would cut the path short. */
  check_skipped("1 2 0:3 / /a\\000b rw - cgroup2 cgroup2 rw\n");
  {
    static const char raw_nul[] =
        "1 2 0:3 / /a\0b rw - cgroup2 cgroup2 rw\n" GOOD_V2;
    struct cgroup_mounts m = parse_len(raw_nul, sizeof(raw_nul) - 1);

    assert_string_equal(m.unified, "/good");
  }
}

static void test_malformed_lines_skipped(void **state) {
  (void)state;
  check_skipped("1 2 0:3 / /x rw cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /x rw - cgroup2 cgroup2\n");
  check_skipped("1 2 0:3 / /x rw - cgroup2 cgroup2 rw extra\n");
  check_skipped("1 2 0:3 / /x rw - cgroup2 cgroup2 \n");
  check_skipped("1 2 0:3 / /x rw -  cgroup2 rw\n");
  check_skipped("1 2 0:3 / /x rw - cgroup2\n");
  check_skipped("1 2 0:3 / /x rw -\n");
  check_skipped("1 2 0:3 / /x - cgroup2 cgroup2 rw\n");
  check_skipped("x 2 0:3 / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 -2 0:3 / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0-3 / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0: / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 :3 / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3:4 / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 /  /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1  2 0:3 / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped(" 1 2 0:3 / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /x rw shared:1  - cgroup2 cgroup2 rw\n");
  check_skipped("1 2 0:3 / /x rw - cgroup2 cgroup2 rw \n");
  check_skipped("1\t2 0:3 / /x rw - cgroup2 cgroup2 rw\n");
  check_skipped("18446744073709551616 2 0:3 / /x rw - cgroup2 cgroup2 rw\n");
}

/* Forms that proc(5) allows and that are easy to refuse by mistake. */
static void test_tolerated_forms(void **state) {
  (void)state;
  check("1 2 0:3 / /x rw shared:1 master:2 propagate_from:3 unbindable - "
        "cgroup2 cgroup2 rw\n",
        "/x", "");
  check("1 2 0:3 / /x rw - cgroup2  rw\n", "/x", "");
  check("1 2 0:3 /lxc/100 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
        "/sys/fs/cgroup", "");
  check("1 2 0:3 / /- rw - cgroup2 cgroup2 rw\n", "/-", "");
  check("1 2 0:3 / / rw - cgroup2 cgroup2 rw\n", "/", "");
  check("18446744073709551615 0 4294967295:4294967295 / /x rw - cgroup2 "
        "cgroup2 rw\n",
        "/x", "");
}

/* Builds "1 2 0:3 / <mount point> rw - cgroup2 cgroup2 rw\n" + GOOD_V2. */
static char *line_with_mount_point(const char *unit, size_t repeat) {
  static const char head[] = "1 2 0:3 / /";
  static const char tail[] = " rw - cgroup2 cgroup2 rw\n" GOOD_V2;
  size_t ulen = strlen(unit);
  char *s = malloc(sizeof(head) + ulen * repeat + sizeof(tail));
  char *p = s;

  assert_non_null(s);
  memcpy(p, head, sizeof(head) - 1);
  p += sizeof(head) - 1;
  for (size_t i = 0; i < repeat; i++, p += ulen)
    memcpy(p, unit, ulen);
  memcpy(p, tail, sizeof(tail));
  return s;
}

/* The decoded path and its NUL must fit PATH_MAX; longer ones are skipped. */
static void test_path_max(void **state) {
  char *s;
  struct cgroup_mounts m;

  (void)state;
  s = line_with_mount_point("a", PATH_MAX - 2);
  m = parse(s);
  assert_int_equal(strlen(m.unified), PATH_MAX - 1);
  assert_int_equal(m.unified[0], '/');
  assert_int_equal(m.unified[PATH_MAX - 2], 'a');
  free(s);
  s = line_with_mount_point("a", PATH_MAX - 1);
  m = parse(s);
  assert_string_equal(m.unified, "/good");
  free(s);
  /* The bound is on the decoded length, not on the escaped text. */
  s = line_with_mount_point("\\040", PATH_MAX - 2);
  m = parse(s);
  assert_int_equal(strlen(m.unified), PATH_MAX - 1);
  assert_int_equal(m.unified[PATH_MAX - 2], ' ');
  free(s);
  s = line_with_mount_point("\\040", PATH_MAX - 1);
  m = parse(s);
  assert_string_equal(m.unified, "/good");
  free(s);
}

/* Whatever *ret held before, the result is the same bytes. */
static void test_ret_fully_written(void **state) {
  static const char *const inputs[] = {"", hybrid_host, unified_host,
                                       "1 2 0:3 / /m rw - cgroup cgroup "
                                       "rw,memory\n"};
  struct cgroup_mounts a, b;

  (void)state;
  for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
    memset(&a, 0x00, sizeof(a));
    memset(&b, 0xff, sizeof(b));
    assert_int_equal(mountinfo_parse(inputs[i], strlen(inputs[i]), &a), 0);
    assert_int_equal(mountinfo_parse(inputs[i], strlen(inputs[i]), &b), 0);
    assert_memory_equal(&a, &b, sizeof(a));
  }
}

/*
 * Every prefix of the real file: a mount is found exactly once its line is
 * complete enough to have the form (the memory line needs all of "memory",
 * the cgroup2 line a non-empty superoptions field), and never garbled.
 */
static void test_every_prefix(void **state) {
  const char *s = hybrid_host;
  size_t memory_ok = (size_t)(strstr(s, "rw,memory\n") - s) + 9;
  size_t unified_ok = (size_t)(strstr(s, "cgroup2 cgroup2 rw") - s) + 17;

  (void)state;
  for (size_t len = 0; len <= strlen(s); len++) {
    struct cgroup_mounts m = parse_len(s, len);

    assert_string_equal(m.memory_v1,
                        len >= memory_ok ? "/sys/fs/cgroup/memory" : "");
    assert_string_equal(m.unified,
                        len >= unified_ok ? "/sys/fs/cgroup/unified" : "");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_hybrid_host),
      cmocka_unit_test(test_unified_host),
      cmocka_unit_test(test_empty_and_no_final_newline),
      cmocka_unit_test(test_memory_option),
      cmocka_unit_test(test_first_match_wins),
      cmocka_unit_test(test_escapes),
      cmocka_unit_test(test_bad_escapes_skip_line),
      cmocka_unit_test(test_malformed_lines_skipped),
      cmocka_unit_test(test_tolerated_forms),
      cmocka_unit_test(test_path_max),
      cmocka_unit_test(test_ret_fully_written),
      cmocka_unit_test(test_every_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

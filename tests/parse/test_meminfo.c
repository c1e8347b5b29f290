/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for src/parse/meminfo.c on the development host's /proc/meminfo, every
 * prefix of it, a file with thousands of other keys, and every way a
 * wanted line can be malformed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "exact_buffer.h"
#include "pvecg/meminfo.h"
#include "node_samples.h"

#define TOTAL "MemTotal:       1000 kB\n"
#define AVAIL "MemAvailable:    600 kB\n"
#define SWAPT "SwapTotal:        80 kB\n"
#define SWAPF "SwapFree:         20 kB\n"
#define ALL4 TOTAL AVAIL SWAPT SWAPF

static int parse_len(const char *s, size_t len, struct meminfo *out) {
  char *buf = exact_copy(s, len);
  int r;

  memset(out, 0xa5, sizeof(*out));
  r = meminfo_parse(buf, len, out);
  free(buf);
  return r;
}

static int parse(const char *s, struct meminfo *out) {
  return parse_len(s, strlen(s), out);
}

static void check_error(const char *s, int want_r) {
  struct meminfo mi, untouched;

  memset(&untouched, 0xa5, sizeof(untouched));
  assert_int_equal(parse(s, &mi), want_r);
  assert_memory_equal(&mi, &untouched, sizeof(mi));
}

static void check_values(const struct meminfo *mi, uint64_t total_kib,
                         uint64_t avail_kib, uint64_t swapt_kib,
                         uint64_t swapf_kib) {
  assert_int_equal(mi->mem_total, total_kib * 1024);
  assert_int_equal(mi->mem_available, avail_kib * 1024);
  assert_int_equal(mi->swap_total, swapt_kib * 1024);
  assert_int_equal(mi->swap_free, swapf_kib * 1024);
}

static void test_host_sample(void **state) {
  struct meminfo mi;

  (void)state;
  assert_int_equal(parse(meminfo_sample, &mi), 0);
  check_values(&mi, 24683584, 24026352, 0, 0);
}

static void test_order_and_other_lines(void **state) {
  struct meminfo mi;

  (void)state;
  assert_int_equal(parse(SWAPF "HugePages_Total:       0\n" SWAPT
                               "no colon here\n\n" AVAIL "Weird: x y z\n" TOTAL,
                         &mi),
                   0);
  check_values(&mi, 1000, 600, 80, 20);
  /* The last line may lack its newline. */
  assert_int_equal(parse(TOTAL AVAIL SWAPT "SwapFree: 20 kB", &mi), 0);
  check_values(&mi, 1000, 600, 80, 20);
  /* One space is enough; keys match exactly. */
  assert_int_equal(parse(ALL4 "MemTotalX: 5 kB\nMemTotal 7 kB\nmemtotal: 1\n"
                              "SwapFreeX:\n",
                         &mi),
                   0);
  check_values(&mi, 1000, 600, 80, 20);
}

static void test_missing_and_duplicate(void **state) {
  (void)state;
  check_error("", -EBADMSG);
  check_error(AVAIL SWAPT SWAPF, -EBADMSG);
  check_error(TOTAL SWAPT SWAPF, -EBADMSG);
  check_error(TOTAL AVAIL SWAPF, -EBADMSG);
  check_error(TOTAL AVAIL SWAPT, -EBADMSG);
  check_error(ALL4 TOTAL, -EBADMSG);
  check_error(ALL4 SWAPF, -EBADMSG);
}

static void test_malformed_values(void **state) {
  (void)state;
  check_error("MemTotal:1000 kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1000\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1000kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1000 KB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1000 MB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1000 kB \n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1000  kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1000 kB\r\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:\t1000 kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       -1000 kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       +1000 kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       0x10 kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1.5 kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       kB\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:\n" AVAIL SWAPT SWAPF, -EBADMSG);
  check_error("MemTotal:       1000 kB junk\n" AVAIL SWAPT SWAPF, -EBADMSG);
}

static void test_ranges(void **state) {
  struct meminfo mi;

  (void)state;
  /* The largest size in kB that fits 64 bits in bytes. */
  assert_int_equal(
      parse("MemTotal: 18014398509481983 kB\n" AVAIL SWAPT SWAPF, &mi), 0);
  assert_int_equal(mi.mem_total, UINT64_MAX - 1023);
  check_error("MemTotal: 18014398509481984 kB\n" AVAIL SWAPT SWAPF, -ERANGE);
  check_error(TOTAL AVAIL SWAPT "SwapFree: 18446744073709551616 kB\n", -ERANGE);
  /* Other keys' values are not looked at, however large. */
  assert_int_equal(
      parse(ALL4 "VmallocTotal: 99999999999999999999999 kB\n", &mi), 0);
}

/* Ten thousand other keys before the wanted ones. */
static void test_huge_file(void **state) {
  size_t size = 10000 * 40 + 256, len = 0;
  char *text = malloc(size);
  struct meminfo mi;

  (void)state;
  assert_non_null(text);
  for (int i = 0; i < 10000; i++)
    len += (size_t)sprintf(text + len, "Other%d:      %d kB\n", i, i);
  len += (size_t)sprintf(text + len, "%s", ALL4);
  assert_true(len < size);
  assert_int_equal(parse_len(text, len, &mi), 0);
  check_values(&mi, 1000, 600, 80, 20);
  free(text);
}

/*
 * A cut-off file parses exactly when it reaches the " kB" of SwapFree, the
 * last of the four keys; a number cut short never reaches its unit, so a
 * truncated value is never returned.
 */
static void test_every_prefix(void **state) {
  const char *s = meminfo_sample;
  const char *swap_free = strstr(s, "SwapFree:");
  size_t complete = (size_t)(strstr(swap_free, " kB") + 3 - s);
  struct meminfo mi;

  (void)state;
  for (size_t len = 0; len <= strlen(s); len++) {
    int r = parse_len(s, len, &mi);

    assert_int_equal(r, len >= complete ? 0 : -EBADMSG);
    if (r == 0)
      check_values(&mi, 24683584, 24026352, 0, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_sample),
      cmocka_unit_test(test_order_and_other_lines),
      cmocka_unit_test(test_missing_and_duplicate),
      cmocka_unit_test(test_malformed_values),
      cmocka_unit_test(test_ranges),
      cmocka_unit_test(test_huge_file),
      cmocka_unit_test(test_every_prefix),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}

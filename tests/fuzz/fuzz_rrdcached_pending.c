/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rrdcached_pending_parse (rrd/rrdcached/rrdcached_pending.c),
 * which reads rrdcached's answer to PENDING as it arrives.  Checks, beyond
 * memory safety: the result is 0, -EPROTO or a length within the input; a whole
 * answer ends with a newline and its newest update lies inside it, right
 * after a newline, without one in it; and it is a prefix property: the
 * answer alone parses the same, and a shorter piece of it asks for more
 * bytes -- except that a first line longer than 4096 bytes without its
 * newline yet is refused (no status line is that long).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "fuzz_check.h"
#include "rrdcached_pending.h"

/* rrdcached_pending.c's bound on a first line still without its newline. */
#define STATUS_LINE_MAX 4096

static void check_whole(const char *buf, ssize_t r, size_t newest,
                        size_t newest_len) {
  FUZZ_CHECK(buf[r - 1] == '\n');
  FUZZ_CHECK(newest <= (size_t)r && newest_len <= (size_t)r - newest);
  FUZZ_CHECK(memchr(buf + newest, '\n', newest_len) == NULL);
  /* after the status line or another update, never inside a line */
  FUZZ_CHECK(newest > 0 && buf[newest - 1] == '\n');
  if (newest_len > 0)
    FUZZ_CHECK(buf[newest + newest_len] == '\n');
}

/* What a cut of the answer, cut bytes long, must give. */
static ssize_t expected_for_cut(const char *buf, size_t cut) {
  bool has_newline = memchr(buf, '\n', cut) != NULL;
  return !has_newline && cut > STATUS_LINE_MAX ? -EPROTO : 0;
}

static void check_prefixes(const char *buf, ssize_t r, size_t newest,
                           size_t newest_len) {
  size_t again = SIZE_MAX, again_len = SIZE_MAX;
  FUZZ_CHECK(rrdcached_pending_parse(buf, (size_t)r, &again, &again_len) == r);
  FUZZ_CHECK(again == newest && again_len == newest_len);
  size_t cuts[] = {
      0, 1, (size_t)r / 2, newest, newest + newest_len, (size_t)r - 1};
  for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
    if (cuts[i] >= (size_t)r)
      continue;
    FUZZ_CHECK(rrdcached_pending_parse(buf, cuts[i], &again, &again_len) ==
               expected_for_cut(buf, cuts[i]));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1); /* exactly the bytes: ASan sees overreads */
  if (buf == NULL)
    return 0;
  memcpy(buf, data, size);
  size_t newest = SIZE_MAX, newest_len = SIZE_MAX;
  ssize_t r = rrdcached_pending_parse(buf, size, &newest, &newest_len);
  FUZZ_CHECK(r == 0 || r == -EPROTO || (r > 0 && (size_t)r <= size));
  if (r > 0) {
    check_whole(buf, r, newest, newest_len);
    check_prefixes(buf, r, newest, newest_len);
  }
  free(buf);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rrdcached_answer_parse (rrd/rrdcached/rrdcached_answer.c),
 * which reads the daemon's answer to a BATCH exchange as it arrives.  The first
 * byte of the input is the number of commands sent (0..255), the rest the
 * bytes received.  Checks, beyond memory safety: the result is a length
 * within the input, 0, -EPROTO or -EOPNOTSUPP; a whole answer has at most
 * one error per command, commands in 1..n in increasing order, messages
 * inside the answer without a newline; and it is a prefix property: the
 * answer alone parses the same, and any shorter piece of it asks for more
 * bytes (an answer split across reads is never misread).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "rrdcached_answer.h"

#define COMMANDS_MAX 255

static void check_whole(const char *buf, ssize_t r, size_t commands,
                        const struct rrdcached_answer_error *e, size_t n) {
  FUZZ_CHECK(n <= commands);
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(e[i].command >= 1 && e[i].command <= commands);
    FUZZ_CHECK(i == 0 || e[i].command > e[i - 1].command);
    FUZZ_CHECK(e[i].message >= buf &&
               e[i].message + e[i].message_len <= buf + r);
    FUZZ_CHECK(memchr(e[i].message, '\n', e[i].message_len) == NULL);
  }
  FUZZ_CHECK(buf[r - 1] == '\n');
}

/* The answer alone parses alike; a piece of it asks for more. */
static void check_prefixes(const char *buf, ssize_t r, size_t commands,
                           size_t n) {
  struct rrdcached_answer_error again[COMMANDS_MAX];
  size_t count = 0;
  FUZZ_CHECK(rrdcached_answer_parse(buf, (size_t)r, commands, again, &count) ==
             r);
  FUZZ_CHECK(count == n);
  size_t cuts[] = {0, 1, (size_t)r / 2, (size_t)r - 1};
  for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
    if (cuts[i] >= (size_t)r)
      continue;
    FUZZ_CHECK(rrdcached_answer_parse(buf, cuts[i], commands, again, &count) ==
               0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  size_t commands = data[0];
  size_t len = size - 1;
  char *buf = malloc(len + 1); /* exactly the bytes: ASan sees overreads */
  if (buf == NULL)
    return 0;
  memcpy(buf, data + 1, len);
  struct rrdcached_answer_error errors[COMMANDS_MAX];
  size_t count = SIZE_MAX;
  ssize_t r = rrdcached_answer_parse(buf, len, commands, errors, &count);
  FUZZ_CHECK(r == 0 || r == -EPROTO || r == -EOPNOTSUPP ||
             (r > 0 && (size_t)r <= len));
  if (r > 0) {
    check_whole(buf, r, commands, errors, count);
    check_prefixes(buf, r, commands, count);
  }
  free(buf);
  return 0;
}

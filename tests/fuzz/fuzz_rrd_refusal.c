/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rrd_words_refusal (rrd/file/rrd_words.c), which reads the
 * file's last update out of librrd's and rrdcached's error text.  Checks,
 * beyond memory safety: the result is 0 or -ENOENT with *ret untouched;
 * it agrees with an oracle that looks for the same two phrases and reads
 * the number as a double, as both programs print it; and the two real forms of
 * the message, built around a time taken from the input, give that time back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "fuzz_check.h"
#include "pvecg/rrd_words.h"

#define SENTINEL ((time_t)0x5a5a5a5a5a5a5a5a)
#define ATTEMPT "illegal attempt to update"
#define MARKER "when last update time is "
#define TIME_LIMIT 1000000000000000ULL /* 10^15: later is not a time */

static bool oracle(const char *s, time_t *ret) {
  const char *p = strstr(s, ATTEMPT);
  char *end;
  double y;

  p = p != NULL ? strstr(p, MARKER) : NULL;
  if (p == NULL)
    return false;
  p += strlen(MARKER);
  y = strtod(p, &end);
  if (end == p || !(y >= 0 && y < (double)TIME_LIMIT))
    return false;
  *ret = (time_t)y;
  return true;
}

static void check_text(const char *s) {
  time_t got = SENTINEL, want = SENTINEL;
  bool ok = oracle(s, &want);
  int r = rrd_words_refusal(s, &got);

  if (ok)
    FUZZ_CHECK(r == 0 && got == want);
  else
    FUZZ_CHECK(r == -ENOENT && got == SENTINEL);
}

/* librrd's message ("%lu") and rrdcached's ("%f", after its address). */
static void check_messages(uint64_t last) {
  char text[256];
  time_t got = SENTINEL;

  snprintf(text, sizeof(text),
           "/var/lib/rrdcached/db/pve-vm-9.0/101: " ATTEMPT
           " using time %" PRIu64 " when last update time is %" PRIu64
           " (minimum one second step)",
           last, last);
  FUZZ_CHECK(rrd_words_refusal(text, &got) == 0 && got == (time_t)last);
  got = SENTINEL;
  snprintf(text, sizeof(text),
           "rrdcached@unix:/run/rrdcached.sock: " ATTEMPT
           " using time %f when last update time is %f (minimum one second "
           "step)",
           (double)last - 60, (double)last);
  FUZZ_CHECK(rrd_words_refusal(text, &got) == 0 && got == (time_t)last);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  uint64_t last = 0;
  time_t got = SENTINEL;

  FUZZ_CHECK(s != NULL);
  memcpy(s, data, size);
  s[size] = '\0';
  check_text(s);
  memcpy(&last, data, size < sizeof(last) ? size : sizeof(last));
  check_messages(last % TIME_LIMIT);
  FUZZ_CHECK(rrd_words_refusal(NULL, &got) == -ENOENT && got == SENTINEL);
  free(s);
  return 0;
}

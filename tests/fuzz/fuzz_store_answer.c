/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for store_answer_read (src/sending/store_answer.c), which reads
 * a metric store's answer to a write: status, body and Retry-After all
 * come from the network.  The input is the status (2 bytes, big-endian),
 * a byte giving the length of the Retry-After value (32 or more: no
 * header), that value, then the body.  Checks, beyond memory safety: the
 * words are a NUL-terminated, non-empty line of printable ASCII; the
 * verdict agrees with the status's class; a partial write drops at least
 * one point for a known reason; a refusal says what to fix and nothing
 * else does; only an absent store asks to wait, at most an hour, and a
 * wait given in seconds is the one read.  store_words_quote never writes
 * past its size.
 */
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "fuzz_check.h"
#include "pvecg/store_answer.h"

#define NOW ((time_t)1733392800) /* Thu, 05 Dec 2024 10:00:00 GMT */
#define RETRY_AFTER_MAX 3600
#define NO_HEADER 32
#define QUOTE_ROOM 64

static void check_words(const char *words, size_t size, bool may_be_empty) {
  const char *nul = memchr(words, '\0', size);
  FUZZ_CHECK(nul != NULL);
  size_t n = (size_t)(nul - words);
  FUZZ_CHECK(may_be_empty || n > 0);
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(words[i] >= 0x20 && words[i] < 0x7f);
    /* blanks collapsed, none at either end */
    if (words[i] == ' ')
      FUZZ_CHECK(i > 0 && i + 1 < n && words[i + 1] != ' ');
  }
}

/* The verdicts a status allows, whatever the body says. */
static bool verdict_allowed(long status, enum store_verdict v) {
  if (status >= 200 && status < 300)
    return v == STORE_TAKEN;
  if (status == 413)
    return v == STORE_TOO_LARGE;
  if (status == 422)
    return v == STORE_PARTIAL;
  if (status == 400)
    return v == STORE_PARTIAL || v == STORE_BAD_LINE || v == STORE_REFUSED;
  if (status == 408 || status == 429 || status >= 500)
    return v == STORE_AWAY;
  return v == STORE_REFUSED; /* 1xx, 3xx, any other 4xx (401, 403, 404) */
}

/* The wait asked for by a Retry-After of 1..9 digits after blanks. */
static bool retry_seconds(const char *value, unsigned *ret) {
  while (*value == ' ')
    value++;
  size_t n = fuzz_digit_run(value, value + strlen(value));
  if (n == 0 || n > 9)
    return false;
  unsigned long v = (unsigned long)fuzz_digits_value(value, n);
  *ret = v < 1 ? 1 : v > RETRY_AFTER_MAX ? RETRY_AFTER_MAX : (unsigned)v;
  return true;
}

static void check_answer(long status, const struct store_answer *a,
                         const char *retry_after) {
  FUZZ_CHECK(a->status == status);
  FUZZ_CHECK(verdict_allowed(status, a->verdict));
  FUZZ_CHECK(store_verdict_name(a->verdict) != NULL);
  check_words(a->words, sizeof(a->words), false);
  if (a->verdict == STORE_PARTIAL) {
    FUZZ_CHECK(a->dropped >= 1);
    FUZZ_CHECK((unsigned)a->reason < STORE_REASONS);
  } else {
    FUZZ_CHECK(a->dropped == 0 && a->reason == 0);
  }
  if (a->verdict == STORE_REFUSED)
    FUZZ_CHECK(a->fix != NULL && a->fix[0] != '\0');
  else
    FUZZ_CHECK(a->fix == NULL);
  FUZZ_CHECK(a->retry_after <= RETRY_AFTER_MAX);
  unsigned want;
  if (a->verdict != STORE_AWAY || retry_after == NULL)
    FUZZ_CHECK(a->retry_after == 0);
  else if (retry_seconds(retry_after, &want))
    FUZZ_CHECK(a->retry_after == want);
}

/* store_words_quote into a buffer of size bytes, the rest a guard. */
static void check_quote(const char *text, size_t len, size_t size) {
  char out[QUOTE_ROOM + 8];
  memset(out, '#', sizeof(out));
  store_words_quote(text, len, out, size);
  for (size_t i = size; i < sizeof(out); i++)
    FUZZ_CHECK(out[i] == '#');
  if (size > 0)
    check_words(out, size, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3)
    return 0;
  long status = (long)data[0] << 8 | data[1];
  size_t at = 3, n = data[2];
  char retry[NO_HEADER];
  const char *retry_after = NULL;
  if (n < NO_HEADER) {
    if (n > size - at)
      n = size - at;
    memcpy(retry, data + at, n);
    retry[n] = '\0';
    retry_after = retry;
    at += n;
  }
  /* The body as it arrives: not NUL-terminated, exactly its length. */
  size_t len = size - at;
  char *body = malloc(len > 0 ? len : 1);
  FUZZ_CHECK(body != NULL);
  memcpy(body, data + at, len);

  struct store_answer a, again;
  store_answer_read(status, body, len, retry_after, NOW, &a);
  check_answer(status, &a, retry_after);
  /* The same answer reads the same: nothing depends on what was before. */
  memset(&again, 0xa5, sizeof(again));
  store_answer_read(status, body, len, retry_after, NOW, &again);
  FUZZ_CHECK(again.verdict == a.verdict && again.reason == a.reason &&
             again.dropped == a.dropped && again.retry_after == a.retry_after &&
             again.fix == a.fix && strcmp(again.words, a.words) == 0);

  check_quote(body, len, data[2] % (QUOTE_ROOM + 1));
  free(body);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for ship_state_parse (src/shipping/ship_state.c), which reads
 * `pvecg ship`'s state file: a damaged file must be refused, never
 * half-believed.  Checks, beyond memory safety: a refusal is -EINVAL with
 * "line N: " and N within the input's lines (or -ENOMEM), and leaves the
 * state as it was; an accepted text ends with a newline and gives entries
 * in strictly increasing key order; a preset id changes only whether the
 * text is accepted, never what is read; and what is read, formatted again,
 * reads back as the same state, bit for bit, whose text is the same bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ship_state.h"

#define PRESET_ID "0123456789abcdef"

static size_t count_lines(const char *buf, size_t size) {
  size_t n = 0;
  for (size_t i = 0; i < size; i++)
    n += buf[i] == '\n';
  return n;
}

/* A refusal names a line that exists, or the one after the last. */
static void check_refusal(int r, const char *err, const char *buf,
                          size_t size) {
  FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
  if (r == -ENOMEM)
    return;
  FUZZ_CHECK(strncmp(err, "line ", 5) == 0);
  size_t digits = fuzz_digit_run(err + 5, err + strlen(err));
  FUZZ_CHECK(digits > 0 && err[5] != '0');
  FUZZ_CHECK(strncmp(err + 5 + digits, ": ", 2) == 0 && err[7 + digits]);
  FUZZ_CHECK(fuzz_digits_fit_u64(err + 5, digits));
  uint64_t line = fuzz_digits_value(err + 5, digits);
  FUZZ_CHECK(line >= 1 && line <= count_lines(buf, size) + 1);
}

static void check_same(const struct ship_state *a, const struct ship_state *b) {
  FUZZ_CHECK(strcmp(a->id, b->id) == 0);
  FUZZ_CHECK(strcmp(a->target, b->target) == 0);
  FUZZ_CHECK(memcmp(&a->stats, &b->stats, sizeof(a->stats)) == 0);
  FUZZ_CHECK(a->count == b->count);
  for (size_t i = 0; i < a->count; i++) {
    const struct ship_entry *x = &a->entry[i], *y = &b->entry[i];
    FUZZ_CHECK(strcmp(x->key, y->key) == 0);
    FUZZ_CHECK(x->dev == y->dev && x->ino == y->ino);
    FUZZ_CHECK(x->last_update == y->last_update && x->acked.t == y->acked.t);
    /* Bit for bit: the doubles must come back exactly. */
    FUZZ_CHECK(memcmp(&x->acked.counter, &y->acked.counter,
                      sizeof(x->acked.counter)) == 0);
  }
}

/* The state's text (freed by the caller). */
static char *format(const struct ship_state *s, size_t *len) {
  char *text = NULL;
  FILE *out = open_memstream(&text, len);
  FUZZ_CHECK(out != NULL);
  FUZZ_CHECK(ship_state_format(s, out) == 0);
  FUZZ_CHECK(fclose(out) == 0);
  return text;
}

static void check_accepted(const struct ship_state *s, const char *buf,
                           size_t size) {
  FUZZ_CHECK(size > 0 && buf[size - 1] == '\n');
  FUZZ_CHECK(strlen(s->id) == SHIP_ID_SIZE - 1);
  FUZZ_CHECK(strspn(s->id, "0123456789abcdef") == SHIP_ID_SIZE - 1);
  for (size_t i = 0; i < s->count; i++) {
    FUZZ_CHECK(s->entry[i].key[0] != '\0');
    if (i > 0)
      FUZZ_CHECK(strcmp(s->entry[i - 1].key, s->entry[i].key) < 0);
  }

  size_t len = 0, len2 = 0;
  char *text = format(s, &len);
  struct ship_state again = {0};
  char err[256] = "";
  int r = ship_state_parse(text, len, &again, err, sizeof(err));
  if (r != 0)
    fprintf(stderr, "formatted state refused: %s\n%.*s", err, (int)len, text);
  FUZZ_CHECK(r == 0);
  check_same(s, &again);
  char *text2 = format(&again, &len2);
  FUZZ_CHECK(len2 == len && memcmp(text, text2, len) == 0);
  free(text2);
  free(text);
  ship_state_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* Exactly the bytes: ASan sees overreads. */
  char *buf = malloc(size > 0 ? size : 1);
  if (buf == NULL)
    return 0;
  memcpy(buf, data, size);

  /* Whichever target's. */
  struct ship_state any = {0};
  char err[256] = "";
  int r = ship_state_parse(buf, size, &any, err, sizeof(err));
  if (r < 0) {
    check_refusal(r, err, buf, size);
    FUZZ_CHECK(any.count == 0 && any.entry == NULL && any.id[0] == '\0');
  } else {
    FUZZ_CHECK(r == 0);
    check_accepted(&any, buf, size);
  }

  /* One target's, into a state that has an entry already: the same
   * reading when the ids agree, a refusal otherwise, the state untouched
   * by a refusal. */
  struct ship_state own = {0};
  memcpy(own.id, PRESET_ID, sizeof(own.id));
  memcpy(own.target, "kept", 5);
  FUZZ_CHECK(ship_state_add(&own, "kept/entry") != NULL);
  char err2[256] = "";
  int r2 = ship_state_parse(buf, size, &own, err2, sizeof(err2));
  if (r == 0 && strcmp(any.id, PRESET_ID) == 0) {
    FUZZ_CHECK(r2 == 0);
    check_same(&any, &own);
  } else {
    FUZZ_CHECK(r2 < 0);
    check_refusal(r2, err2, buf, size);
    FUZZ_CHECK(strcmp(own.id, PRESET_ID) == 0);
    FUZZ_CHECK(strcmp(own.target, "kept") == 0);
    FUZZ_CHECK(own.count == 1 && strcmp(own.entry[0].key, "kept/entry") == 0);
    if (r == 0)
      FUZZ_CHECK(strcmp(err2, "line 2: the state of another target") == 0);
  }

  ship_state_free(&own);
  ship_state_free(&any);
  free(buf);
  return 0;
}

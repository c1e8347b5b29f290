/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/shipping/ship_state.c and ship_state_file.c, the state file
 * of `pvecg ship`: the exact text of a state and the same entries, bit for
 * bit, read back from it; the sorted entries (add, find, retain); the
 * target's id (FNV-1a 64, checked against values computed independently);
 * every kind of damage refused with its line; and on a mkdtemp directory,
 * the durable save with its ".prev" version and the load that falls back
 * to it, or refuses with what to do.  A state whose file is refused must
 * never be half-believed: the shipper would send a wrong counter or start
 * over.  Everything is freed: the unit tests also run under valgrind and
 * ASan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ship_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the text ---------------------------------------------------------- */

/* The state of make_state(), line by line, as the file holds it.  The
 * node's file sorts first ('n' < 'v') although it is added second. */
#define L1 "pvecg-ship-state 1\n"
#define L2 "target 0123456789abcdef graphite tcp://127.0.0.1:2003\n"
#define L3 "stats 12345 7 2 3 1700000000 1699990000 120\n"
#define L4 "file pve-node-9.0/pve1 2049 131080 1700000050 0 -\n"
#define L5_HEAD "file pve-vm-9.0/100 2049 131074 1700000060 1700000040 "
#define L5 L5_HEAD "6=2099017.9999999995,7=629700\n"
#define L6 "end 2\n"
#define TEXT L1 L2 L3 L4 L5 L6
/* The same state as version 2 writes it: version 1's partial writes said
 * no reason ("other"). */
#define V2 "pvecg-ship-state 2\n"
#define A0 "answers 0 0 0 0 0 3 0 0 0 0\n"
#define R0 "refusal 0 0 -\n"
#define TEXT2 V2 L2 L3 A0 R0 L4 L5 L6
/* And as version 3 writes it: a total with a fraction as its bits. */
#define V3 "pvecg-ship-state 3\n"
#define L5_BITS L5_HEAD "6=x414003a4ffffffff,7=629700\n"
#define TEXT3 V3 L2 L3 A0 R0 L4 L5_BITS L6
/* And as version 4 writes it: remote write's samples. */
#define V4 "pvecg-ship-state 4\n"
#define S0 "samples 0 0 0 0 0\n"
#define TEXT4 V4 L2 L3 A0 R0 S0 L4 L5_BITS L6

/* 2099017.9999999995 is the double 0x41400... with every low mantissa bit
 * set: 16 significant digits would not read back as the same double. */
static const double big_total = 2099017.9999999995;

static void make_state(struct ship_state *s) {
  *s = (struct ship_state){0};
  snprintf(s->id, sizeof(s->id), "0123456789abcdef");
  snprintf(s->target, sizeof(s->target), "graphite tcp://127.0.0.1:2003");
  s->stats = (struct ship_stats){.rows_sent = 12345,
                                 .rows_failed = 7,
                                 .batches_failed = 2,
                                 .dropped = 3,
                                 .last_success = 1700000000,
                                 .last_failure = 1699990000,
                                 .lag = 120};
  s->stats.dropped_by[STORE_REASON_OTHER] = 3;
  struct ship_entry *vm = ship_state_add(s, "pve-vm-9.0/100");
  assert_non_null(vm);
  vm->dev = 2049;
  vm->ino = 131074;
  vm->last_update = 1700000060;
  vm->acked.t = 1700000040;
  vm->acked.counter.started[6] = vm->acked.counter.started[7] = true;
  vm->acked.counter.total[6] = big_total;
  vm->acked.counter.total[7] = 629700;
  /* The shipper's own, never saved. */
  vm->next.t = 1700000100;
  vm->seen = true;
  vm->problem = -EIO;
  struct ship_entry *node = ship_state_add(s, "pve-node-9.0/pve1");
  assert_non_null(node);
  node->dev = 2049;
  node->ino = 131080;
  node->last_update = 1700000050;
}

/* The formatted text, NUL-terminated (freed by the caller). */
static char *format_text(const struct ship_state *s, size_t *len) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  assert_non_null(out);
  assert_int_equal(ship_state_format(s, out), 0);
  assert_int_equal(fclose(out), 0);
  if (len != NULL)
    *len = size;
  return text;
}

/* Equal in everything the file holds, doubles compared bit for bit. */
static void assert_same_state(const struct ship_state *a,
                              const struct ship_state *b) {
  assert_string_equal(a->id, b->id);
  assert_string_equal(a->target, b->target);
  assert_memory_equal(&a->stats, &b->stats, sizeof(a->stats));
  assert_int_equal(a->count, b->count);
  for (size_t i = 0; i < a->count; i++) {
    const struct ship_entry *x = &a->entry[i], *y = &b->entry[i];
    assert_string_equal(x->key, y->key);
    assert_int_equal(x->dev, y->dev);
    assert_int_equal(x->ino, y->ino);
    assert_int_equal(x->last_update, y->last_update);
    assert_int_equal(x->acked.t, y->acked.t);
    assert_memory_equal(x->acked.counter.started, y->acked.counter.started,
                        sizeof(x->acked.counter.started));
    assert_memory_equal(x->acked.counter.total, y->acked.counter.total,
                        sizeof(x->acked.counter.total));
  }
}

/* A state read from a file has none of the shipper's own fields set. */
static void assert_nothing_unsaved(const struct ship_state *s) {
  static const struct ship_mark none;
  for (size_t i = 0; i < s->count; i++) {
    const struct ship_entry *e = &s->entry[i];
    assert_memory_equal(&e->next, &none, sizeof(none));
    assert_memory_equal(&e->candidate, &none, sizeof(none));
    assert_int_equal(e->candidate_at, 0);
    assert_false(e->seen);
    assert_int_equal(e->problem, 0);
  }
}

static void test_format_exact(void **state) {
  (void)state;
  struct ship_state s;
  make_state(&s);
  size_t len;
  char *text = format_text(&s, &len);
  assert_string_equal(text, TEXT4);
  assert_int_equal(len, strlen(TEXT4));
  free(text);
  ship_state_free(&s);
}

/* A whole-number total of at most 17 digits has %.17g's text; any other
 * is written as its bits ("x" and 16 hex digits). */
static void test_format_totals(void **state) {
  (void)state;
  const double totals[] = {0,
                           -0.0,
                           1,
                           -1,
                           898006,
                           4294967296.0,
                           9007199254740992.0,
                           9007199254740994.0,
                           99999999999999984.0,
                           1e17,
                           -123456789012345,
                           0.5,
                           1e300,
                           -DBL_MIN,
                           DBL_TRUE_MIN,
                           NAN,
                           INFINITY};
  for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++) {
    struct ship_state s = {0};
    struct ship_entry *e = ship_state_add(&s, "pve-vm-9.0/100");
    assert_non_null(e);
    e->acked.counter.started[6] = e->acked.counter.started[12] = true;
    e->acked.counter.total[6] = e->acked.counter.total[12] = totals[i];
    char *text = format_text(&s, NULL), want[128], one[32];
    double v = totals[i];
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    if (isfinite(v) && v == floor(v) && fabs(v) < 1e17)
      snprintf(one, sizeof(one), "%.17g", v);
    else
      snprintf(one, sizeof(one), "x%016" PRIx64, bits);
    snprintf(want, sizeof(want), " 6=%s,12=%s\n", one, one);
    assert_non_null(strstr(text, want));
    free(text);
    ship_state_free(&s);
  }
}

static void test_parse_round_trip(void **state) {
  (void)state;
  struct ship_state want;
  make_state(&want);

  /* Into a state that already has an entry: replaced, not merged. */
  struct ship_state got = {0};
  assert_non_null(ship_state_add(&got, "pve-vm-9.0/999"));
  char err[256] = "";
  assert_int_equal(ship_state_parse(TEXT, strlen(TEXT), &got, err, sizeof(err)),
                   0);
  assert_string_equal(err, "");
  assert_same_state(&got, &want);
  assert_nothing_unsaved(&got);
  assert_null(ship_state_find(&got, "pve-vm-9.0/999"));
  struct ship_entry *vm = ship_state_find(&got, "pve-vm-9.0/100");
  assert_non_null(vm);
  assert_memory_equal(&vm->acked.counter.total[6], &big_total,
                      sizeof(big_total));
  double v7 = 629700;
  assert_memory_equal(&vm->acked.counter.total[7], &v7, sizeof(v7));

  /* The same id preset: read as well. */
  struct ship_state preset = {0};
  snprintf(preset.id, sizeof(preset.id), "0123456789abcdef");
  assert_int_equal(
      ship_state_parse(TEXT, strlen(TEXT), &preset, err, sizeof(err)), 0);
  assert_same_state(&preset, &want);

  /* An empty state, and an empty target. */
  const char empty[] = L1 "target fedcba9876543210 \n"
                          "stats 0 0 0 0 0 0 0\nend 0\n";
  assert_int_equal(
      ship_state_parse(empty, strlen(empty), &preset, err, sizeof(err)),
      -EINVAL);
  assert_string_equal(err, "line 2: the state of another target");
  assert_int_equal(preset.count, 2); /* untouched */
  struct ship_state none = {0};
  assert_int_equal(
      ship_state_parse(empty, strlen(empty), &none, err, sizeof(err)), 0);
  assert_string_equal(none.id, "fedcba9876543210");
  assert_string_equal(none.target, "");
  assert_int_equal(none.count, 0);
  char *again = format_text(&none, NULL);
  assert_string_equal(again,
                      V4 "target fedcba9876543210 \n"
                         "stats 0 0 0 0 0 0 0\n"
                         "answers 0 0 0 0 0 0 0 0 0 0\n" R0 S0 "end 0\n");
  free(again);

  /* Version 2's text (every total in decimal) and version 3's (a fraction
   * as its bits) read back as the same state. */
  struct ship_state v2 = {0}, v3 = {0};
  assert_int_equal(
      ship_state_parse(TEXT2, strlen(TEXT2), &v2, err, sizeof(err)), 0);
  assert_same_state(&v2, &want);
  assert_int_equal(
      ship_state_parse(TEXT3, strlen(TEXT3), &v3, err, sizeof(err)), 0);
  assert_same_state(&v3, &want);
  ship_state_free(&v2);
  ship_state_free(&v3);

  ship_state_free(&none);
  ship_state_free(&preset);
  ship_state_free(&got);
  ship_state_free(&want);
}

/* Extreme totals, the last column, times at their bound: the text reads
 * back as the very same doubles. */
static void test_round_trip_extremes(void **state) {
  (void)state;
  static const double totals[] = {0.0,
                                  -0.0,
                                  1.0 / 3,
                                  0.1,
                                  DBL_MAX,
                                  -DBL_MAX,
                                  DBL_MIN,
                                  DBL_EPSILON,
                                  9007199254740993.0,
                                  123456789012345678.0};
  const size_t n = sizeof(totals) / sizeof(totals[0]);
  struct ship_state s = {0};
  snprintf(s.id, sizeof(s.id), "00000000000000ff");
  s.stats.rows_sent = UINT64_MAX;
  s.stats.lag = INT64_MAX / 2;
  for (size_t i = 0; i < n; i++) {
    char key[32];
    snprintf(key, sizeof(key), "pve-vm-9.0/%zu", 100 + i);
    struct ship_entry *e = ship_state_add(&s, key);
    assert_non_null(e);
    e->dev = UINT64_MAX;
    e->ino = i;
    e->acked.t = INT64_MAX / 2;
    e->acked.counter.started[i] = true;
    e->acked.counter.total[i] = totals[i];
    e->acked.counter.started[RRD_LAYOUT_DS_MAX - 1] = true;
    e->acked.counter.total[RRD_LAYOUT_DS_MAX - 1] = -totals[i];
  }
  size_t len;
  char *text = format_text(&s, &len);
  struct ship_state got = {0};
  char err[256] = "";
  assert_int_equal(ship_state_parse(text, len, &got, err, sizeof(err)), 0);
  assert_same_state(&got, &s);
  char *again = format_text(&got, NULL);
  assert_string_equal(again, text);
  free(again);
  free(text);
  ship_state_free(&got);
  ship_state_free(&s);
}

/* ---- the entries ------------------------------------------------------- */

static void assert_sorted(const struct ship_state *s) {
  for (size_t i = 1; i < s->count; i++)
    assert_true(strcmp(s->entry[i - 1].key, s->entry[i].key) < 0);
}

static bool keep_even_dev(struct ship_entry *e, void *ctx) {
  (*(unsigned *)ctx)++;
  return e->dev % 2 == 0;
}

static void test_add_find_retain(void **state) {
  (void)state;
  struct ship_state s = {0};
  assert_null(ship_state_find(&s, "pve-vm-9.0/100"));

  const char *order[] = {"pve-vm-9.0/200", "pve-node-9.0/pve1",
                         "pve-vm-9.0/100", "pve2-vm/100", "pve-vm-9.0/1000"};
  for (size_t i = 0; i < 5; i++) {
    struct ship_entry *e = ship_state_add(&s, order[i]);
    assert_non_null(e);
    assert_string_equal(e->key, order[i]);
    assert_int_equal(e->acked.t, 0);
    e->dev = i;
  }
  assert_int_equal(s.count, 5);
  const char *sorted[] = {"pve-node-9.0/pve1", "pve-vm-9.0/100",
                          "pve-vm-9.0/1000", "pve-vm-9.0/200", "pve2-vm/100"};
  for (size_t i = 0; i < 5; i++)
    assert_string_equal(s.entry[i].key, sorted[i]);

  /* Added twice: the same entry, untouched. */
  struct ship_entry *e = ship_state_find(&s, "pve-vm-9.0/100");
  assert_non_null(e);
  assert_int_equal(e->dev, 2);
  e->acked.t = 1700000000;
  assert_ptr_equal(ship_state_add(&s, "pve-vm-9.0/100"), e);
  assert_int_equal(s.count, 5);
  assert_int_equal(e->acked.t, 1700000000);
  assert_null(ship_state_find(&s, "pve-vm-9.0/10"));
  assert_null(ship_state_find(&s, "pve-vm-9.0/1001"));

  /* The longest key fits; one byte more is refused. */
  char key[SHIP_KEY_SIZE + 1];
  memset(key, 'k', SHIP_KEY_SIZE);
  key[SHIP_KEY_SIZE] = '\0';
  assert_null(ship_state_add(&s, key));
  assert_int_equal(s.count, 5);
  key[SHIP_KEY_SIZE - 1] = '\0';
  assert_non_null(ship_state_add(&s, key));
  assert_int_equal(s.count, 6);
  assert_string_equal(s.entry[0].key, key); /* 'k' < 'p' */

  /* Beyond the first allocation (64), in a scrambled order. */
  for (unsigned i = 0; i < 300; i++) {
    char k[32];
    snprintf(k, sizeof(k), "pve-vm-9.0/%u", 10000 + (i * 7919) % 300);
    e = ship_state_add(&s, k);
    assert_non_null(e);
    e->dev = 10000 + (i * 7919) % 300;
  }
  assert_int_equal(s.count, 306);
  assert_sorted(&s);
  for (unsigned i = 0; i < 300; i++) {
    char k[32];
    snprintf(k, sizeof(k), "pve-vm-9.0/%u", 10000 + i);
    e = ship_state_find(&s, k);
    assert_non_null(e);
    assert_int_equal(e->dev, 10000 + i);
  }

  /* Only what the predicate keeps stays, still sorted and found. */
  unsigned calls = 0;
  ship_state_retain(&s, keep_even_dev, &calls);
  assert_int_equal(calls, 306);
  /* dev 0, 2, 4 of the first five, the long key (dev 0), 150 of 300. */
  assert_int_equal(s.count, 154);
  assert_sorted(&s);
  for (size_t i = 0; i < s.count; i++)
    assert_int_equal(s.entry[i].dev % 2, 0);
  assert_non_null(ship_state_find(&s, "pve-vm-9.0/200"));
  assert_null(ship_state_find(&s, "pve-node-9.0/pve1"));
  assert_null(ship_state_find(&s, "pve-vm-9.0/10001"));
  assert_non_null(ship_state_find(&s, "pve-vm-9.0/10298"));
  calls = 0;
  ship_state_retain(&s, keep_even_dev, &calls);
  assert_int_equal(calls, 154);
  assert_int_equal(s.count, 154);
  ship_state_free(&s);
  assert_int_equal(s.count, 0);
  assert_null(ship_state_find(&s, "pve-vm-9.0/200"));
}

/* ---- the id ------------------------------------------------------------ */

static void assert_id_form(const char *id) {
  assert_int_equal(strlen(id), SHIP_ID_SIZE - 1);
  assert_int_equal(strspn(id, "0123456789abcdef"), SHIP_ID_SIZE - 1);
}

static void test_id(void **state) {
  (void)state;
  char a[SHIP_ID_SIZE], b[SHIP_ID_SIZE], c[SHIP_ID_SIZE];
  /* FNV-1a 64 of the identities, from an independent implementation:
   * python3 -c "
   * def fnv(s):
   *   h=0xcbf29ce484222325
   *   for b in s.encode(): h=((h^b)*0x100000001b3)&0xffffffffffffffff
   *   return '%016x'%h
   * for s in ['1 0 pve AVERAGE tcp://127.0.0.1:2003',
   *           '1 0 pve AVERAGE tcp://127.0.0.1:2004','']: print(fnv(s))"
   * eb02f2228d91881d
   * eb02eb228d917c38
   * cbf29ce484222325 */
  ship_state_id("1 0 pve AVERAGE tcp://127.0.0.1:2003", a);
  ship_state_id("1 0 pve AVERAGE tcp://127.0.0.1:2004", b);
  ship_state_id("", c);
  assert_id_form(a);
  assert_id_form(b);
  assert_id_form(c);
  assert_string_equal(a, "eb02f2228d91881d");
  assert_string_equal(b, "eb02eb228d917c38");
  assert_string_equal(c, "cbf29ce484222325");
  assert_string_not_equal(a, b);
  /* Stable: the same identity gives the same id. */
  ship_state_id("1 0 pve AVERAGE tcp://127.0.0.1:2003", b);
  assert_string_equal(a, b);
}

/* ---- refusals ---------------------------------------------------------- */

/* text (len bytes) is refused with exactly the error want, and the state
 * it was read into keeps what it had. */
static void refuse_len(const char *preset_id, const char *text, size_t len,
                       const char *want) {
  struct ship_state s = {0};
  snprintf(s.id, sizeof(s.id), "%s", preset_id);
  snprintf(s.target, sizeof(s.target), "kept");
  s.stats.rows_sent = 99;
  assert_non_null(ship_state_add(&s, "keep/me"));
  /* Exactly the bytes: ASan sees a read past them. */
  char *copy = malloc(len > 0 ? len : 1);
  assert_non_null(copy);
  memcpy(copy, text, len);
  char err[256] = "";
  int r = ship_state_parse(copy, len, &s, err, sizeof(err));
  free(copy);
  if (r != -EINVAL || strcmp(err, want) != 0) {
    ship_state_free(&s); /* fail_msg() does not return */
    fail_msg("parse gave %d \"%s\", expected -EINVAL \"%s\"", r, err, want);
  }
  assert_string_equal(s.id, preset_id);
  assert_string_equal(s.target, "kept");
  assert_int_equal(s.stats.rows_sent, 99);
  assert_int_equal(s.count, 1);
  assert_string_equal(s.entry[0].key, "keep/me");
  ship_state_free(&s);
}

static void refuse(const char *text, const char *want) {
  refuse_len("", text, strlen(text), want);
}

#define CUT "missing (the file is cut short)"
#define NOT_LINE "not a line of a state file"
#define NOT_CURSOR "not a file's cursor"

static void test_parse_damaged(void **state) {
  (void)state;
  /* Cut: the last line without its newline, wherever the cut falls. */
  refuse(L1 L2 L3 L4 L5 "end 2", "line 6: " CUT);
  refuse(L1 L2 L3 L4 "file pve-vm-9.0/100 2049 13", "line 5: " CUT);
  refuse(L1 "targ", "line 2: " CUT);
  refuse("", "line 1: " CUT);
  /* No end line at all. */
  refuse(L1 L2 L3 L4 L5, "line 6: " CUT);
  refuse(L1 L2 L3, "line 4: " CUT);
  /* An end that does not count the files. */
  refuse(L1 L2 L3 L4 L5 "end 3\n",
         "line 6: the end does not count the files above");
  refuse(L1 L2 L3 L4 L5 "end 1\n",
         "line 6: the end does not count the files above");
  refuse(L1 L2 L3 L4 L5 "end 2x\n",
         "line 6: the end does not count the files above");
  refuse(L1 L2 L3 L4 L5 "end \n",
         "line 6: the end does not count the files above");
  refuse(L1 L2 L3 L4 L5 "end\n", "line 6: neither a file's cursor nor the end");
  refuse(L1 L2 L3 L4 L5 "\n" L6, "line 6: neither a file's cursor nor the end");
  /* Files out of order, or twice. */
  refuse(L1 L2 L3 L5 L4 L6, "line 5: files out of order");
  refuse(L1 L2 L3 L4 L4 L6, "line 5: a file named twice");
  refuse(L1 L2 L3 L4 L5 L4 "end 3\n", "line 6: a file named twice");
  /* Another format, or another version of it. */
  refuse("pvecg-ship-state 5\n" L2 L3 L4 L5 L6,
         "line 1: not a pvecg ship state (or of another version)");
  refuse("pvecg-ship-state 1 \n" L2 L3 L4 L5 L6,
         "line 1: not a pvecg ship state (or of another version)");
  refuse("pvecg-ship-state 1\r\n" L2 L3 L4 L5 L6,
         "line 1: not a pvecg ship state (or of another version)");
  /* Text after the end (named by the end's line). */
  refuse(TEXT "x\n", "line 6: text after the end");
  refuse(TEXT "\n", "line 6: text after the end");
  refuse(TEXT "x", "line 6: text after the end");
  /* A NUL byte inside a line. */
  static const char nul[] = L1 L2 "stats 12345 7\0 2 3 1700000000 1699990000 "
                                  "120\n" L4 L5 L6;
  refuse_len("", nul, sizeof(nul) - 1, "line 3: " NOT_LINE);
  refuse_len("", TEXT "\0", sizeof(TEXT), "line 6: text after the end");
  /* A line too long for any state file. */
  char *longer = malloc(4096);
  assert_non_null(longer);
  snprintf(longer, 4096, L1 "target 0123456789abcdef %2100d\n" L3 L4 L5 L6, 1);
  refuse(longer, "line 2: " NOT_LINE);
  free(longer);
}

/* What the store answered, kept by version 2: exact text, read back the
 * same, and every damage to its two lines refused with the line. */
static void test_answers_round_trip(void **state) {
  (void)state;
  struct ship_state s;
  make_state(&s);
  struct ship_stats *st = &s.stats;
  st->batch_cap = 131072;
  st->dropped_by[STORE_REASON_RETENTION] = 7;
  st->dropped_by[STORE_REASON_TYPE_CONFLICT] = 1;
  st->dropped_by[STORE_REASON_LIMIT] = 2;
  st->dropped_by[STORE_REASON_UNPARSABLE] = 4;
  st->skipped[0] = 5;
  st->skipped[1] = 6;
  st->refused = 9;
  st->condition = SHIP_REFUSED;
  st->refusal_at = 1700000100;
  st->refusal_status = 401;
  snprintf(st->refusal, sizeof(st->refusal), "unauthorized access");
#define A1 "answers 131072 7 1 2 4 3 5 6 9 2\n"
#define R1 "refusal 1700000100 401 unauthorized access\n"
  st->samples_sent = 120;
  st->samples_refused_by[STORE_REFUSAL_TOO_OLD] = 11;
  st->samples_refused_by[STORE_REFUSAL_DUPLICATE] = 3;
#define S1 "samples 120 11 0 3 0\n"
  char *text = format_text(&s, NULL);
  assert_string_equal(text, V4 L2 L3 A1 R1 S1 L4 L5_BITS L6);
  struct ship_state got = {0};
  char err[256] = "";
  assert_int_equal(ship_state_parse(text, strlen(text), &got, err, sizeof(err)),
                   0);
  assert_same_state(&got, &s);
  free(text);
  ship_state_free(&got);
  ship_state_free(&s);

  refuse(V2 L2 L3 L4 L5 L6, "line 4: not the answers' totals");
  refuse(V2 L2 L3 "answers 131072 7 1 2 4 3 5 6 9\n" R1 L4 L5 L6,
         "line 4: not the answers' totals");
  refuse(V2 L2 L3 "answers 131072 7 1 2 4 3 5 6 9 3\n" R1 L4 L5 L6,
         "line 4: not the answers' totals");
  refuse(V2 L2 L3 "answers 131072 7 1 2 4 3 5 6 9 2 \n" R1 L4 L5 L6,
         "line 4: not the answers' totals");
  refuse(V2 L2 L3 A1 L4 L5 L6, "line 5: not the latest refusal");
  refuse(V2 L2 L3 A1 "refusal 1700000100 401\n" L4 L5 L6,
         "line 5: not the latest refusal");
  refuse(V2 L2 L3 A1 "refusal 1700000100 4010 x\n" L4 L5 L6,
         "line 5: not the latest refusal");
  refuse(V2 L2 L3 A1 "refusal 1700000100 401 a\tb\n" L4 L5 L6,
         "line 5: not the latest refusal");
  refuse(V2 L2 L3 A1 "refusal 1700000100 401 caf\xc3\xa9\n" L4 L5 L6,
         "line 5: not the latest refusal");
  refuse(V2 L2 L3 A1 R1 L4 L5, "line 8: missing (the file is cut short)");
  refuse(V4 L2 L3 A1 R1 L4 L5 L6, "line 6: not the samples' totals");
  refuse(V4 L2 L3 A1 R1 "samples 120 11 0 3\n" L4 L5 L6,
         "line 6: not the samples' totals");
  refuse(V4 L2 L3 A1 R1 "samples 120 11 0 3 0 \n" L4 L5 L6,
         "line 6: not the samples' totals");
}

static void test_parse_wrong_lines(void **state) {
  (void)state;
  /* The target's line. */
  refuse(L1 "target 0123456789ABCDEF graphite\n" L3 L4 L5 L6,
         "line 2: not the target's line");
  refuse(L1 "target 0123456789abcde graphite\n" L3 L4 L5 L6,
         "line 2: not the target's line");
  refuse(L1 "target 0123456789abcdef\n" L3 L4 L5 L6,
         "line 2: not the target's line");
  refuse(L1 L3 L2 L4 L5 L6, "line 2: not the target's line");
  /* Another target's state, when the caller knows its own id. */
  refuse_len("fedcba9876543210", TEXT, strlen(TEXT),
             "line 2: the state of another target");
  refuse_len("0123456789abcdee", TEXT, strlen(TEXT),
             "line 2: the state of another target");
  /* The totals. */
  refuse(L1 L2 "stats 12345 7 2 3 1700000000 1699990000\n" L4 L5 L6,
         "line 3: not the target's totals");
  refuse(L1 L2 "stats 12345 7 2 3 1700000000 1699990000 120 1\n" L4 L5 L6,
         "line 3: not the target's totals");
  refuse(L1 L2 "stats -1 7 2 3 1700000000 1699990000 120\n" L4 L5 L6,
         "line 3: not the target's totals");
  refuse(L1 L2 "stats 18446744073709551616 7 2 3 1 1 1\n" L4 L5 L6,
         "line 3: not the target's totals");
  refuse(L1 L2 "stats 1  7 2 3 1700000000 1699990000 120\n" L4 L5 L6,
         "line 3: not the target's totals");
  refuse(L1 L2 "stats 1 7 2 3 4611686018427387904 1 1\n" L4 L5 L6,
         "line 3: not the target's totals");
  /* A file's line. */
  refuse(L1 L2 L3 "file  2049 131080 1700000050 0 -\n" L5 L6,
         "line 4: " NOT_CURSOR);
  refuse(L1 L2 L3 "file pve-node-9.0/pve1\n" L5 L6, "line 4: " NOT_CURSOR);
  refuse(L1 L2 L3 "file pve-node-9.0/pve1 2049 131080 1700000050 0\n" L5 L6,
         "line 4: " NOT_CURSOR);
  refuse(L1 L2 L3 "file pve-node-9.0/pve1 2049 131080 1700000050 -1 -\n" L5 L6,
         "line 4: " NOT_CURSOR);
  refuse(L1 L2 L3 "file pve-node-9.0/pve1 2049 131080 1700000050 0 - \n" L5 L6,
         "line 4: " NOT_CURSOR);
  refuse(L1 L2 L3 "fil pve-node-9.0/pve1 2049 131080 1700000050 0 -\n" L5 L6,
         "line 4: neither a file's cursor nor the end");
  char key[SHIP_KEY_SIZE + 1], line[512];
  memset(key, 'k', SHIP_KEY_SIZE);
  key[SHIP_KEY_SIZE] = '\0';
  snprintf(line, sizeof(line), L1 L2 L3 "file %s 1 1 1 1 -\nend 1\n", key);
  refuse(line, "line 4: a file name too long");
}

/* Counters refused in the vm's line (line 5). */
static void test_parse_bad_counters(void **state) {
  (void)state;
  char bad_column[32];
  snprintf(bad_column, sizeof(bad_column), "%d=1", RRD_LAYOUT_DS_MAX);
  const char *bad[] = {
      bad_column, /* column >= RRD_LAYOUT_DS_MAX */
      "99999999999999999999=1",
      "7=1,6=2", /* decreasing */
      "6=1,6=2", /* the same column twice */
      "6=nan",
      "6=NAN",
      "6=inf",
      "6=-inf",
      "6=infinity",
      "6=1e999", /* beyond a double */
      "6=1x",
      "6=1,",
      "6=1;7=2",
      "6=1 7=2",
      "6=1,,7=2",
      "6",
      "=1",
      "-6=1",
      "6==1",
      "-x",
      "--",
      "- 6=1",
      "x",
      "6:1",
      "6=x414003a4fffffff",   /* 15 hex digits */
      "6=x414003a4ffffffff0", /* 17 */
      "6=x414003A4FFFFFFFF",  /* not as written: lowercase */
      "6=x7ff0000000000000",  /* infinity */
      "6=x7ff8000000000000",  /* NaN */
      "6=-x3ff0000000000000",
      "6=x",
  };
  char text[512];
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    snprintf(text, sizeof(text), L1 L2 L3 L4 L5_HEAD "%s\n" L6, bad[i]);
    refuse(text, "line 5: " NOT_CURSOR);
  }
  /* The last column is still one. */
  snprintf(text, sizeof(text), L1 L2 L3 L4 L5_HEAD "%d=1\n" L6,
           RRD_LAYOUT_DS_MAX - 1);
  struct ship_state s = {0};
  char err[256] = "";
  assert_int_equal(ship_state_parse(text, strlen(text), &s, err, sizeof(err)),
                   0);
  assert_true(s.entry[1].acked.counter.started[RRD_LAYOUT_DS_MAX - 1]);
  assert_true(s.entry[1].acked.counter.total[RRD_LAYOUT_DS_MAX - 1] == 1);
  ship_state_free(&s);
}

/* A total cut down to nothing ("6=" of a damaged line) is no total: read
 * as 0 it would restart the counter, which the store sees as a reset. */
static void test_parse_empty_total(void **state) {
  (void)state;
  const char *bad[] = {"6=", "6=,7=629700", "6=2099017.9999999995,7="};
  char text[512];
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    snprintf(text, sizeof(text), L1 L2 L3 L4 L5_HEAD "%s\n" L6, bad[i]);
    refuse(text, "line 5: " NOT_CURSOR);
  }
}

/* What format wrote, parse reads back as the same state.  Frees s. */
static void assert_reads_back(struct ship_state *s) {
  size_t len;
  char *text = format_text(s, &len);
  struct ship_state got = {0};
  char err[256] = "", msg[1024];
  int r = ship_state_parse(text, len, &got, err, sizeof(err));
  if (r != 0) {
    snprintf(msg, sizeof(msg), "%s\n%s", err, text);
    free(text);
    ship_state_free(s); /* fail_msg() does not return */
    fail_msg("the formatted state is refused: %s", msg);
  }
  assert_same_state(&got, s);
  free(text);
  ship_state_free(&got);
  ship_state_free(s);
}

/* A node's file name may hold a space: rrd_file_name_problem() allows it,
 * and the store writes such files (tests/rrd/test_rrd_names). */
static void test_round_trip_key_with_space(void **state) {
  (void)state;
  struct ship_state s = {0};
  snprintf(s.id, sizeof(s.id), "0123456789abcdef");
  struct ship_entry *e = ship_state_add(&s, "pve-node-9.0/node one");
  assert_non_null(e);
  e->acked.t = 1700000000;
  assert_reads_back(&s);
}

/* A named cluster's key, "<cluster>/<layout>/<name>", at its longest (a
 * 64-byte cluster and node name, with a space) reads back, sorted among
 * the data directory's own keys, which stay "<layout>/<name>". */
static void test_round_trip_cluster_keys(void **state) {
  (void)state;
  struct ship_state s = {0};
  char key[SHIP_KEY_SIZE], name[RRD_FILE_NAME_MAX + 1];
  snprintf(s.id, sizeof(s.id), "0123456789abcdef");
  memset(name, 'c', RRD_FILE_NAME_MAX);
  name[RRD_FILE_NAME_MAX] = '\0';
  name[3] = ' ';
  snprintf(key, sizeof(key), "%s/pve-node-9.0/%s", name, name);
  assert_int_equal(strlen(key), 2 * RRD_FILE_NAME_MAX + 14);
  assert_true(strlen(key) < SHIP_KEY_SIZE);
  assert_non_null(ship_state_add(&s, key));
  assert_non_null(ship_state_add(&s, "prod/pve-vm-9.0/196"));
  ship_state_add(&s, "pve-vm-9.0/196")->acked.t = 1700000000;
  assert_int_equal(s.count, 3);
  assert_string_equal(s.entry[0].key, key);
  assert_string_equal(s.entry[1].key, "prod/pve-vm-9.0/196");
  assert_string_equal(s.entry[2].key, "pve-vm-9.0/196");
  assert_reads_back(&s);
}

/* A subnormal total is a double like any other: the header promises the
 * same doubles back. */
static void test_round_trip_subnormal_total(void **state) {
  (void)state;
  struct ship_state s = {0};
  snprintf(s.id, sizeof(s.id), "0123456789abcdef");
  struct ship_entry *e = ship_state_add(&s, "pve-vm-9.0/100");
  assert_non_null(e);
  e->acked.counter.started[6] = true;
  e->acked.counter.total[6] = DBL_TRUE_MIN;
  e->acked.counter.started[7] = true;
  e->acked.counter.total[7] = DBL_MIN / 2;
  assert_reads_back(&s);
}

/* ---- the file ---------------------------------------------------------- */

static char dir[64];
/* Short enough that every message about them fits the tests' buffers. */
static char path[128], prev[128], tmp[128];

static int setup_dir(void **state) {
  (void)state;
  snprintf(dir, sizeof(dir), "/tmp/pvecg-ship-state.XXXXXX");
  return mkdtemp(dir) == NULL ? -1 : 0;
}

static int remove_dir(void **state) {
  (void)state;
  DIR *d = opendir(dir);
  if (d == NULL)
    return -1;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
    if (unlink(p) != 0 && rmdir(p) != 0)
      return -1;
  }
  closedir(d);
  return rmdir(dir);
}

static void set_paths(const char *id) {
  snprintf(path, sizeof(path), "%.63s/%.16s.state", dir, id);
  snprintf(prev, sizeof(prev), "%.63s/%.16s.state.prev", dir, id);
  snprintf(tmp, sizeof(tmp), "%.63s/%.16s.state.tmp", dir, id);
}

/* A file's bytes, NUL-terminated (freed by the caller). */
static char *slurp(const char *p, size_t *len) {
  FILE *f = fopen(p, "rb");
  assert_non_null(f);
  char *buf = malloc(1 << 16);
  assert_non_null(buf);
  *len = fread(buf, 1, (1 << 16) - 1, f);
  assert_false(ferror(f));
  buf[*len] = '\0';
  fclose(f);
  return buf;
}

static void write_bytes(const char *p, const char *bytes, size_t len) {
  int fd = open(p, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bytes, len), (ssize_t)len);
  assert_int_equal(close(fd), 0);
}

static void assert_absent(const char *p) {
  struct stat st;
  assert_int_equal(lstat(p, &st), -1);
  assert_int_equal(errno, ENOENT);
}

/* A state to load into: the caller's id and target. */
static void fresh(struct ship_state *s, const char *id) {
  *s = (struct ship_state){0};
  snprintf(s->id, sizeof(s->id), "%s", id);
  snprintf(s->target, sizeof(s->target), "as given now");
}

static void test_save_load(void **state) {
  (void)state;
  struct ship_state first;
  make_state(&first);
  ship_state_id("1 0 pve AVERAGE tcp://127.0.0.1:2003", first.id);
  set_paths(first.id);
  char err[1024] = "";

  /* Nothing yet: an empty state, id and target as given. */
  struct ship_state got;
  fresh(&got, first.id);
  assert_int_equal(ship_state_load(dir, &got, err, sizeof(err)), 1);
  assert_int_equal(got.count, 0);
  assert_string_equal(got.id, first.id);
  assert_string_equal(got.target, "as given now");

  /* Saved: exactly the text, mode 0600, no .prev, no temporary file. */
  assert_int_equal(ship_state_save(dir, &first, err, sizeof(err)), 0);
  size_t first_len, len;
  char *first_text = format_text(&first, &first_len);
  char *disk = slurp(path, &len);
  assert_int_equal(len, first_len);
  assert_memory_equal(disk, first_text, len);
  free(disk);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_true(S_ISREG(st.st_mode));
  assert_int_equal(st.st_mode & 07777, 0600);
  assert_absent(prev);
  assert_absent(tmp);

  /* Loaded: the same, the caller's target kept. */
  assert_int_equal(ship_state_load(dir, &got, err, sizeof(err)), 0);
  assert_string_equal(got.target, "as given now");
  snprintf(got.target, sizeof(got.target), "%s", first.target);
  assert_same_state(&got, &first);
  assert_nothing_unsaved(&got);

  /* A second save keeps the first as .prev. */
  struct ship_state second;
  make_state(&second);
  memcpy(second.id, first.id, sizeof(second.id));
  second.stats.rows_sent = 20000;
  struct ship_entry *e = ship_state_add(&second, "pve-vm-9.0/101");
  assert_non_null(e);
  e->acked.t = 1700000060;
  assert_int_equal(ship_state_save(dir, &second, err, sizeof(err)), 0);
  size_t second_len;
  char *second_text = format_text(&second, &second_len);
  disk = slurp(prev, &len);
  assert_int_equal(len, first_len);
  assert_memory_equal(disk, first_text, len);
  free(disk);
  disk = slurp(path, &len);
  assert_int_equal(len, second_len);
  assert_memory_equal(disk, second_text, len);
  free(disk);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);
  assert_absent(tmp);
  assert_int_equal(ship_state_load(dir, &got, err, sizeof(err)), 0);
  snprintf(got.target, sizeof(got.target), "%s", second.target);
  assert_same_state(&got, &second);

  /* The state cut in half: the version before it, and why. */
  write_bytes(path, second_text, second_len / 2);
  unsigned line = 1;
  for (size_t i = 0; i < second_len / 2; i++)
    line += second_text[i] == '\n';
  char want[2048];
  snprintf(want, sizeof(want),
           "%s: line %u: missing (the file is cut short); went back to %s, "
           "the version before it (the rows acknowledged since are sent "
           "again)",
           path, line, prev);
  ship_state_free(&got);
  fresh(&got, first.id);
  assert_int_equal(ship_state_load(dir, &got, err, sizeof(err)), 2);
  assert_string_equal(err, want);
  assert_non_null(strstr(err, path));
  assert_non_null(strstr(err, "the version before it"));
  assert_string_equal(got.target, "as given now");
  snprintf(got.target, sizeof(got.target), "%s", first.target);
  assert_same_state(&got, &first);
  ship_state_free(&got);

  /* The state missing: the version before it too. */
  assert_int_equal(unlink(path), 0);
  fresh(&got, first.id);
  assert_int_equal(ship_state_load(dir, &got, err, sizeof(err)), 2);
  snprintf(want, sizeof(want),
           "%s: missing; went back to %s, the version before it (the rows "
           "acknowledged since are sent again)",
           path, prev);
  assert_string_equal(err, want);
  snprintf(got.target, sizeof(got.target), "%s", first.target);
  assert_same_state(&got, &first);
  ship_state_free(&got);

  /* Both damaged: refused, with what to do. */
  write_bytes(path, "garbage\n", 8);
  write_bytes(prev, first_text, first_len - 1);
  fresh(&got, first.id);
  assert_int_equal(ship_state_load(dir, &got, err, sizeof(err)), -EINVAL);
  snprintf(want, sizeof(want),
           "%s: line 1: not a pvecg ship state (or of another version), and "
           "%s: line 9: missing (the file is cut short).  Restore one, or "
           "remove both to start again from --since (the files' first rows "
           "when not given)",
           path, prev);
  assert_string_equal(err, want);
  assert_non_null(strstr(err, "Restore one, or remove both"));
  assert_int_equal(got.count, 0);
  ship_state_free(&got);

  /* Damaged, and no version before it. */
  assert_int_equal(unlink(prev), 0);
  fresh(&got, first.id);
  assert_int_equal(ship_state_load(dir, &got, err, sizeof(err)), -EINVAL);
  snprintf(want, sizeof(want),
           "%s: line 1: not a pvecg ship state (or of another version), and "
           "%s: missing.  Restore one, or remove both to start again from "
           "--since (the files' first rows when not given)",
           path, prev);
  assert_string_equal(err, want);
  ship_state_free(&got);

  /* Another target's state under this id's name is no state of ours. */
  char other[SHIP_ID_SIZE];
  ship_state_id("1 0 pve AVERAGE tcp://127.0.0.1:2004", other);
  char *foreign = format_text(&first, &len);
  memcpy(foreign + strlen("pvecg-ship-state 1\ntarget "), other,
         SHIP_ID_SIZE - 1);
  write_bytes(path, foreign, len);
  free(foreign);
  fresh(&got, first.id);
  assert_int_equal(ship_state_load(dir, &got, err, sizeof(err)), -EINVAL);
  assert_non_null(strstr(err, "line 2: the state of another target"));
  ship_state_free(&got);

  free(first_text);
  free(second_text);
  ship_state_free(&first);
  ship_state_free(&second);
}

static void test_save_fails(void **state) {
  (void)state;
  struct ship_state s;
  make_state(&s);
  char missing[96], err[1024] = "", want[2048];
  snprintf(missing, sizeof(missing), "%.63s/none", dir);
  assert_int_equal(ship_state_save(missing, &s, err, sizeof(err)), -ENOENT);
  snprintf(want, sizeof(want), "saving %s/%s.state: %s", missing, s.id,
           strerror(ENOENT));
  assert_string_equal(err, want);
  ship_state_free(&s);
}

/* A directory that cannot be read is the directory's error, not a damaged
 * state to restore or remove. */
static void test_load_dir_unreadable(void **state) {
  (void)state;
  char file[96], err[1024] = "";
  snprintf(file, sizeof(file), "%.63s/a-file", dir);
  write_bytes(file, "x\n", 2);
  struct ship_state s;
  fresh(&s, "0123456789abcdef");
  int r = ship_state_load(file, &s, err, sizeof(err));
  if (r != -ENOTDIR)
    fail_msg("load in a file as directory gave %d \"%s\", expected -ENOTDIR", r,
             err);
  ship_state_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_exact),
      cmocka_unit_test(test_format_totals),
      cmocka_unit_test(test_parse_round_trip),
      cmocka_unit_test(test_round_trip_extremes),
      cmocka_unit_test(test_add_find_retain),
      cmocka_unit_test(test_id),
      cmocka_unit_test(test_parse_damaged),
      cmocka_unit_test(test_parse_wrong_lines),
      cmocka_unit_test(test_answers_round_trip),
      cmocka_unit_test(test_parse_bad_counters),
      cmocka_unit_test(test_parse_empty_total),
      cmocka_unit_test(test_round_trip_key_with_space),
      cmocka_unit_test(test_round_trip_subnormal_total),
      cmocka_unit_test(test_round_trip_cluster_keys),
      cmocka_unit_test_setup_teardown(test_save_load, setup_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_save_fails, setup_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_load_dir_unreadable, setup_dir,
                                      remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

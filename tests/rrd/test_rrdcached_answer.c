/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/rrdcached/rrdcached_answer.c, the parser of rrdcached's answer
 * to one BATCH exchange, without I/O: real answers of rrdcached 1.7.2 read
 * exactly (each refused command's number and message bytes, the answer's
 * length even with the next bytes behind it); every cut of an answer asks
 * for more rather than reading half of it; a daemon refusing BATCH itself
 * is told apart; and every line that cannot be rrdcached's is -EPROTO, so
 * a stream that lost its place is never taken for answers to the wrong
 * rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rrdcached_answer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define GO_AHEAD "0 Go ahead.  End with dot '.' on its own line.\n"

/* What rrdcached 1.7.2 answered to BATCH, an update, an update at the same
 * second, one of a missing file, BOGUS, and an update (5 commands). */
#define STALE_MESSAGE                                                          \
  "illegal attempt to update using time 1700000060.000000 when last update "   \
  "time is 1700000060.000000 (minimum one second step)"
#define NOPE_MESSAGE "No such file: /tmp/rc/db/nope.rrd"
#define BOGUS_MESSAGE "Unknown command: BOGUS"
static const char three_errors[] = GO_AHEAD "3 errors\n"
                                            "2 " STALE_MESSAGE "\n"
                                            "3 " NOPE_MESSAGE "\n"
                                            "4 " BOGUS_MESSAGE "\n";
static const char no_errors[] = GO_AHEAD "0 errors\n";

#define ERRORS_MAX 8

/* Parses the whole string s as the answer to `commands` commands. */
static ssize_t parse(const char *s, size_t commands,
                     struct rrdcached_answer_error *errors, size_t *count) {
  return rrdcached_answer_parse(s, strlen(s), commands, errors, count);
}

/* parse() of s for commands, expecting `want` (an errno, or 0 for "more"). */
static void assert_parse(const char *s, size_t commands, ssize_t want) {
  struct rrdcached_answer_error errors[ERRORS_MAX];
  size_t count = 77;
  ssize_t r = parse(s, commands, errors, &count);
  if (r != want)
    fail_msg("%zd for \"%s\" (%zu commands), expected %zd", r, s, commands,
             want);
  assert_int_equal(count, 77); /* untouched unless the answer is whole */
}

static void assert_error(const struct rrdcached_answer_error *e,
                         const char *buf, size_t command, const char *message) {
  assert_int_equal(e->command, command);
  assert_int_equal(e->message_len, strlen(message));
  assert_memory_equal(e->message, message, strlen(message));
  /* into the answer itself, right after "<command> " */
  const char *at = strstr(buf, message);
  assert_non_null(at);
  assert_ptr_equal(e->message, at);
}

/* ---- whole answers ----------------------------------------------------- */

static void test_no_errors(void **state) {
  (void)state;
  struct rrdcached_answer_error errors[ERRORS_MAX];
  size_t count = 77;
  assert_int_equal(parse(no_errors, 2, errors, &count),
                   (ssize_t)strlen(no_errors));
  assert_int_equal(count, 0);
  /* the empty BATCH a new connection asks with */
  count = 77;
  assert_int_equal(parse(no_errors, 0, errors, &count),
                   (ssize_t)strlen(no_errors));
  assert_int_equal(count, 0);
}

static void test_three_errors(void **state) {
  (void)state;
  struct rrdcached_answer_error errors[ERRORS_MAX];
  size_t count = 77;
  assert_int_equal(parse(three_errors, 5, errors, &count),
                   (ssize_t)strlen(three_errors));
  assert_int_equal(count, 3);
  assert_error(&errors[0], three_errors, 2, STALE_MESSAGE);
  assert_error(&errors[1], three_errors, 3, NOPE_MESSAGE);
  assert_error(&errors[2], three_errors, 4, BOGUS_MESSAGE);
  /* the last command may be refused too: 4 of 4 */
  count = 77;
  assert_int_equal(parse(three_errors, 4, errors, &count),
                   (ssize_t)strlen(three_errors));
  assert_int_equal(count, 3);
  assert_int_equal(errors[2].command, 4);
}

/* rrdcached(1) writes the count line "<n> Errors". */
static void test_capitalised(void **state) {
  (void)state;
  static const char answer[] = GO_AHEAD "1 Errors\n1 " NOPE_MESSAGE "\n";
  struct rrdcached_answer_error errors[ERRORS_MAX];
  size_t count = 77;
  assert_int_equal(parse(answer, 1, errors, &count), (ssize_t)strlen(answer));
  assert_int_equal(count, 1);
  assert_error(&errors[0], answer, 1, NOPE_MESSAGE);
}

/* The answer's length, not the buffer's: what follows is not read. */
static void test_bytes_after_the_answer(void **state) {
  (void)state;
  static const char *const after[] = {GO_AHEAD, "x", "\n", "1 errors\n"};
  char buf[1024];
  for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
    struct rrdcached_answer_error errors[ERRORS_MAX];
    size_t count = 77;
    snprintf(buf, sizeof(buf), "%s%s", three_errors, after[i]);
    assert_int_equal(parse(buf, 5, errors, &count),
                     (ssize_t)strlen(three_errors));
    assert_int_equal(count, 3);
    assert_error(&errors[2], buf, 4, BOGUS_MESSAGE);
    snprintf(buf, sizeof(buf), "%s%s", no_errors, after[i]);
    count = 77;
    assert_int_equal(parse(buf, 5, errors, &count), (ssize_t)strlen(no_errors));
    assert_int_equal(count, 0);
  }
}

/* ---- answers still arriving -------------------------------------------- */

/* Every proper prefix, down to nothing, asks for more. */
static void assert_prefixes_need_more(const char *answer, size_t commands) {
  size_t len = strlen(answer);
  for (size_t k = 0; k < len; k++) {
    struct rrdcached_answer_error errors[ERRORS_MAX];
    size_t count = 77;
    ssize_t r = rrdcached_answer_parse(answer, k, commands, errors, &count);
    if (r != 0)
      fail_msg("%zd for the first %zu of %zu bytes", r, k, len);
    assert_int_equal(count, 77);
  }
}

static void test_prefixes(void **state) {
  (void)state;
  assert_prefixes_need_more(three_errors, 5);
  assert_prefixes_need_more(no_errors, 5);
  assert_prefixes_need_more(no_errors, 0);
  /* a refusal is known only once its line is whole */
  assert_prefixes_need_more("-1 Unknown command: BATCH\n", 3);
}

/* ---- BATCH refused ----------------------------------------------------- */

static void test_batch_refused(void **state) {
  (void)state;
  assert_parse("-1 Unknown command: BATCH\n", 3, -EOPNOTSUPP);
  assert_parse("-1 Unknown command: BATCH\n", 0, -EOPNOTSUPP);
  /* an old daemon goes on answering the lines after BATCH one by one */
  assert_parse("-1 Unknown command: BATCH\n-1 Unknown command: .\n", 0,
               -EOPNOTSUPP);
}

/* ---- malformed --------------------------------------------------------- */

/* Each line after a valid go-ahead, for 3 commands unless said. */
static void test_malformed_count_line(void **state) {
  (void)state;
  static const char *const lines[] = {
      "4 errors\n",   /* more errors than commands */
      "03 errors\n",  /* leading zero */
      "00 errors\n",  /* leading zero */
      "+1 errors\n",  /* sign */
      "-1 errors\n",  /* sign */
      "1errors\n",    /* no space */
      "1  errors\n",  /* two spaces */
      " 1 errors\n",  /* space first */
      "1 error\n",    /* not "errors" */
      "1 errors.\n",  /* not "errors" */
      "1 errors \n",  /* not "errors" */
      "1 ERRORS\n",   /* not "errors" */
      "1 Errors x\n", /* not "errors" */
      "errors\n",     /* no number */
      "1\n",          /* no word */
      "1 \n",         /* no word */
      "\n",           /* nothing */
      "1 errorsand more\n",
      "x errors\n",
  };
  char buf[256];
  for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
    snprintf(buf, sizeof(buf), GO_AHEAD "%s", lines[i]);
    assert_parse(buf, 3, -EPROTO);
  }
  /* a count of 0 needs no command at all; 1 of 0 is one too many */
  assert_parse(GO_AHEAD "1 errors\n", 0, -EPROTO);
}

static void test_malformed_error_lines(void **state) {
  (void)state;
  static const char *const lines[] = {
      "1 errors\n0 command zero\n",  /* commands count from 1 */
      "1 errors\n4 past the last\n", /* 3 commands sent */
      "2 errors\n3 b\n2 a\n",        /* not increasing */
      "2 errors\n2 a\n2 again\n",    /* repeated */
      "1 errors\n02 leading zero\n", /* leading zero */
      "1 errors\n+2 sign\n",         /* sign */
      "1 errors\n-2 sign\n",         /* sign */
      "1 errors\n2message\n",        /* no space */
      "1 errors\n2\n",               /* nothing after the number */
      "1 errors\nmessage\n",         /* no number */
      "1 errors\n 2 message\n",      /* space first */
      "1 errors\n\n",                /* empty line */
      "3 errors\n1 a\n2 b\n2 c\n",   /* repeated, last */
      ("2 errors\n1 a\n" GO_AHEAD),  /* a new answer inside */
  };
  char buf[512];
  for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
    snprintf(buf, sizeof(buf), GO_AHEAD "%s", lines[i]);
    assert_parse(buf, 3, -EPROTO);
  }
}

/* Numbers of 10 digits or more are refused even where the value would be
 * in range; 9 digits are read. */
static void test_long_numbers(void **state) {
  (void)state;
  const size_t many = 2000000000;
  /* the count: 9 digits in range waits for its lines, 10 are refused */
  assert_parse(GO_AHEAD "999999999 errors\n", many, 0);
  assert_parse(GO_AHEAD "1000000000 errors\n", many, -EPROTO);
  assert_parse(GO_AHEAD "1999999999 errors\n", many, -EPROTO);
  assert_parse(GO_AHEAD "100000000000000000000000001 errors\n", many, -EPROTO);
  /* a command number (only errors[0] is written for one error) */
  static const char nine[] = GO_AHEAD "1 errors\n999999999 far\n";
  struct rrdcached_answer_error errors[1];
  size_t count = 77;
  assert_int_equal(parse(nine, many, errors, &count), (ssize_t)strlen(nine));
  assert_int_equal(count, 1);
  assert_error(&errors[0], nine, 999999999, "far");
  assert_parse(GO_AHEAD "1 errors\n1000000000 far\n", many, -EPROTO);
  assert_parse(GO_AHEAD "1 errors\n18446744073709551617 wraps to 1\n", many,
               -EPROTO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_errors),
      cmocka_unit_test(test_three_errors),
      cmocka_unit_test(test_capitalised),
      cmocka_unit_test(test_bytes_after_the_answer),
      cmocka_unit_test(test_prefixes),
      cmocka_unit_test(test_batch_refused),
      cmocka_unit_test(test_malformed_count_line),
      cmocka_unit_test(test_malformed_error_lines),
      cmocka_unit_test(test_long_numbers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

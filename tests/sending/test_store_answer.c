/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of src/sending/store_answer.c, the reading of a metric store's
 * answer to a write: the real bodies of InfluxDB 1.x, 2.x and 3.x,
 * VictoriaMetrics and nginx give their exact verdict, reason, dropped
 * count, fix and quoted words; Retry-After is read as seconds or as an
 * HTTP date against a fixed now and bounded; a body is read no further
 * than STORE_ANSWER_BODY_MAX and quoted as printable ASCII only.
 * Remote write receivers' refusals of samples are named from their words.  A
 * wrong verdict here makes the shipper skip rows the store would have taken, or
 * send again forever what it will never take.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/store_answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thu, 05 Dec 2024 10:00:00 GMT: Retry-After dates are read against it. */
#define NOW ((time_t)1733392800)

#define FIX_401                                                                \
  "the store refused the token: check --token-file (InfluxDB 2.x: an API "     \
  "token that may write to the bucket)"
#define FIX_403                                                                \
  "the token may not write there: give it write permission on the database "   \
  "or bucket"
#define FIX_404                                                                \
  "nothing to write to at that URL: check its path and the database or "       \
  "bucket and organization it names (db=, bucket=, org=)"
#define FIX_405 "that URL takes no writes: check its path"
#define FIX_PRECISION                                                          \
  "the store does not take the URL's precision=: use s, ms, us or ns, or "     \
  "leave it out"
#define FIX_REDIRECT "the URL is redirected: give --to the URL it leads to"
#define FIX_OTHER "check the URL (its path and db=, bucket=, org=) and --format"

/* What an answer must read as; fix NULL: none expected. */
struct expect {
  enum store_verdict verdict;
  enum store_reason reason;
  uint64_t dropped;
  unsigned retry_after;
  const char *fix;
  const char *words;
};

static void check(const struct store_answer *a, long status,
                  const struct expect *e) {
  assert_int_equal(a->status, status);
  assert_string_equal(store_verdict_name(a->verdict),
                      store_verdict_name(e->verdict));
  assert_int_equal(a->verdict, e->verdict);
  assert_int_equal(a->reason, e->reason);
  assert_int_equal(a->dropped, e->dropped);
  assert_int_equal(a->retry_after, e->retry_after);
  if (e->fix == NULL)
    assert_null(a->fix);
  else
    assert_string_equal(a->fix, e->fix);
  assert_string_equal(a->words, e->words);
}

/* Reads a NUL-terminated body with its Retry-After and checks it. */
static void answer(long status, const char *body, const char *retry_after,
                   const struct expect *e) {
  struct store_answer a;
  memset(&a, 0x5a, sizeof(a)); /* nothing may be left from before */
  store_answer_read(status, body, strlen(body), retry_after, NOW, &a);
  check(&a, status, e);
}

static void test_influxdb1(void **state) {
  (void)state;
  answer(400,
         "{\"error\":\"partial write: points beyond retention policy "
         "dropped=3\"}\n",
         NULL,
         &(struct expect){STORE_PARTIAL, STORE_REASON_RETENTION, 3, 0, NULL,
                          "partial write: points beyond retention policy "
                          "dropped=3"});
  answer(400,
         "{\"error\":\"partial write: field type conflict: input field "
         "\\\"cpu\\\" on measurement \\\"system\\\" is type integer, already "
         "exists as type float dropped=1\"}\n",
         NULL,
         &(struct expect){STORE_PARTIAL, STORE_REASON_TYPE_CONFLICT, 1, 0, NULL,
                          "partial write: field type conflict: input field "
                          "\"cpu\" on measurement \"system\" is type integer, "
                          "already exists as type float dropped=1"});
  /* Lines it could not parse are logged with dropped=0: they are counted. */
  answer(400,
         "{\"error\":\"partial write: unable to parse 'a b': missing "
         "fields\\nunable to parse 'c d': missing fields dropped=0\"}\n",
         NULL,
         &(struct expect){STORE_PARTIAL, STORE_REASON_UNPARSABLE, 2, 0, NULL,
                          "partial write: unable to parse 'a b': missing "
                          "fields unable to parse 'c d': missing fields "
                          "dropped=0"});
  answer(400,
         "{\"error\":\"partial write: max-values-per-tag limit exceeded "
         "(100000/100000): measurement=\\\"pve\\\" tag=\\\"vmid\\\" "
         "value=\\\"9001\\\" dropped=12\"}\n",
         NULL,
         &(struct expect){STORE_PARTIAL, STORE_REASON_LIMIT, 12, 0, NULL,
                          "partial write: max-values-per-tag limit exceeded "
                          "(100000/100000): measurement=\"pve\" tag=\"vmid\" "
                          "value=\"9001\" dropped=12"});
  answer(400,
         "{\"error\":\"partial write: max-series-per-database limit exceeded: "
         "(1000000) dropped=4\"}\n",
         NULL,
         &(struct expect){STORE_PARTIAL, STORE_REASON_LIMIT, 4, 0, NULL,
                          "partial write: max-series-per-database limit "
                          "exceeded: (1000000) dropped=4"});
  /* No line parsed: nothing written, one line to find and skip. */
  answer(400,
         "{\"error\":\"unable to parse 'x 1 2': time outside range "
         "1733392800\"}\n",
         NULL,
         &(struct expect){STORE_BAD_LINE, STORE_REASON_RETENTION, 0, 0, NULL,
                          "unable to parse 'x 1 2': time outside range "
                          "1733392800"});
  answer(404, "{\"error\":\"database not found: \\\"nosuch\\\"\"}\n", NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_404,
                          "database not found: \"nosuch\""});
  answer(401, "{\"error\":\"authorization failed\"}\n", NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_401,
                          "authorization failed"});
  answer(403,
         "{\"error\":\"\\\"pvecg\\\" user is not authorized to write to "
         "database \\\"pve\\\"\"}\n",
         NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_403,
                          "\"pvecg\" user is not authorized to write to "
                          "database \"pve\""});
  answer(405, "Method Not Allowed\n", NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_405,
                          "Method Not Allowed"});
  answer(204, "", NULL,
         &(struct expect){STORE_TAKEN, STORE_REASON_RETENTION, 0, 0, NULL,
                          "(no message)"});
}

/* InfluxDB 2.7's retention message, as long as its series keys make it. */
#define V2_RETENTION_HEAD                                                      \
  "failure writing points to database: partial write: dropped 350 points "     \
  "outside retention policy of duration 72h0m0s - oldest point "
#define V2_RETENTION_TAIL                                                      \
  " dropped=350 for database: 0c7b2a9e1f3d4e5a for retention policy: autogen"

static void test_influxdb2(void **state) {
  (void)state;
  answer(422,
         "{\"code\":\"unprocessable entity\",\"message\":\"" V2_RETENTION_HEAD
         "..." V2_RETENTION_TAIL "\"}",
         NULL,
         &(struct expect){
             STORE_PARTIAL, STORE_REASON_RETENTION, 350, 0, NULL,
             /* cut at STORE_WORDS_SIZE - 1, the blank there dropped */
             V2_RETENTION_HEAD "... dropped=350 for database: "
                               "0c7b2a9e1f3d4e5a for retention "
                               "policy:"});
  answer(400,
         "{\"code\":\"invalid\",\"message\":\"unable to parse 'm v=abc 1': "
         "invalid boolean\"}",
         NULL,
         &(struct expect){STORE_BAD_LINE, STORE_REASON_RETENTION, 0, 0, NULL,
                          "unable to parse 'm v=abc 1': invalid boolean"});
  /* Names no line and the line is not at fault: every line would fail. */
  answer(400,
         "{\"code\":\"invalid\",\"message\":\"invalid precision; valid "
         "precision units are ns, us, ms, and s\"}",
         NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0,
                          FIX_PRECISION,
                          "invalid precision; valid precision units are ns, "
                          "us, ms, and s"});
  answer(401, "{\"code\":\"unauthorized\",\"message\":\"unauthorized access\"}",
         NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_401,
                          "unauthorized access"});
  answer(404,
         "{\"code\":\"not found\",\"message\":\"bucket \\\"nosuch\\\" not "
         "found\"}",
         NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_404,
                          "bucket \"nosuch\" not found"});
  answer(413,
         "{\"code\":\"request too large\",\"message\":\"unable to read data: "
         "points batch is too large\"}",
         NULL,
         &(struct expect){STORE_TOO_LARGE, STORE_REASON_RETENTION, 0, 0, NULL,
                          "unable to read data: points batch is too large"});
  /* A 422 that says no count: at least the one point is gone. */
  answer(422,
         "{\"code\":\"unprocessable entity\",\"message\":\"failure writing "
         "points to database: partial write: field type conflict\"}",
         NULL,
         &(struct expect){STORE_PARTIAL, STORE_REASON_TYPE_CONFLICT, 1, 0, NULL,
                          "failure writing points to database: partial write: "
                          "field type conflict"});
}

/* The 422 of a batch with long series keys: its dropped= lies beyond the
 * prefix read, "dropped 350 points" does not; without the latter, the one
 * point that is surely gone. */
static void test_influxdb2_long(void **state) {
  (void)state;
  size_t pad = STORE_ANSWER_BODY_MAX;
  const char *head = "{\"code\":\"unprocessable entity\",\"message\":\"";
  char *body = malloc(strlen(head) + strlen(V2_RETENTION_HEAD) + pad +
                      strlen(V2_RETENTION_TAIL) + 3);
  assert_non_null(body);
  char *p = body + sprintf(body, "%s%s", head, V2_RETENTION_HEAD);
  memset(p, 'x', pad);
  sprintf(p + pad, "%s\"}", V2_RETENTION_TAIL);
  assert_true(strstr(body, "dropped=") - body > STORE_ANSWER_BODY_MAX);

  char words[STORE_WORDS_SIZE];
  snprintf(words, sizeof(words), "%s%s", V2_RETENTION_HEAD,
           p); /* cut at STORE_WORDS_SIZE - 1: all x before the tail */
  struct store_answer a;
  store_answer_read(422, body, strlen(body), NULL, NOW, &a);
  check(&a, 422,
        &(struct expect){STORE_PARTIAL, STORE_REASON_RETENTION, 350, 0, NULL,
                         words});
  assert_int_equal(strlen(a.words), STORE_WORDS_SIZE - 1);

  /* The same without "dropped 350 points": dropped= is not seen. */
  const char *head2 =
      "{\"code\":\"unprocessable entity\",\"message\":\"partial "
      "write: points outside retention policy ";
  p = body + sprintf(body, "%s", head2);
  memset(p, 'x', pad);
  sprintf(p + pad, "%s\"}", V2_RETENTION_TAIL);
  store_answer_read(422, body, strlen(body), NULL, NOW, &a);
  assert_int_equal(a.verdict, STORE_PARTIAL);
  assert_int_equal(a.reason, STORE_REASON_RETENTION);
  assert_int_equal(a.dropped, 1);
  free(body);
}

static void test_influxdb3(void **state) {
  (void)state;
  answer(400,
         "{\"error\":\"partial write of line protocol occurred\",\"data\":["
         "{\"original_line\":\"x\",\"line_number\":2,\"error_message\":\"No "
         "fields were provided\"},"
         "{\"original_line\":\"y\",\"line_number\":5,\"error_message\":"
         "\"invalid column type for column 'v', expected "
         "iox::column_type::field::float, got "
         "iox::column_type::field::integer\"}]}",
         NULL,
         &(struct expect){STORE_PARTIAL, STORE_REASON_OTHER, 2, 0, NULL,
                          "partial write of line protocol occurred"});
  /* Nothing of it taken (one line alone, or accept_partial=false): the
   * first line it could not take; 3.11 says it in other words. */
  answer(400,
         "{\"error\":\"parsing failed for write_lp endpoint\",\"data\":{"
         "\"original_line\":\"cpu,host=a val= 123\",\"line_number\":1,"
         "\"error_message\":\"No fields were provided\"}}",
         NULL,
         &(struct expect){STORE_BAD_LINE, STORE_REASON_RETENTION, 0, 0, NULL,
                          "parsing failed for write_lp endpoint"});
  answer(400,
         "{\"error\":\"line protocol parsing error\",\"data\":{"
         "\"original_line\":\"cpu,host=a val= 123\",\"line_number\":1,"
         "\"error_message\":\"No fields were provided\"}}",
         NULL,
         &(struct expect){STORE_BAD_LINE, STORE_REASON_RETENTION, 0, 0, NULL,
                          "line protocol parsing error"});
}

static void test_proxy_html(void **state) {
  (void)state;
  answer(
      413,
      "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n"
      "<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n"
      "<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n",
      NULL,
      &(struct expect){STORE_TOO_LARGE, STORE_REASON_RETENTION, 0, 0, NULL,
                       "413 Request Entity Too Large"});
  answer(502,
         "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
         "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/"
         "1.22.1</center>\r\n</body>\r\n</html>\r\n",
         NULL,
         &(struct expect){STORE_AWAY, STORE_REASON_RETENTION, 0, 0, NULL,
                          "502 Bad Gateway"});
  answer(301,
         "<html>\r\n<head><title>301 Moved Permanently</title></head>\r\n"
         "<body>\r\n</body>\r\n</html>\r\n",
         NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0,
                          FIX_REDIRECT, "301 Moved Permanently"});
  answer(307, "", NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0,
                          FIX_REDIRECT, "(no message)"});
  /* A title never closed: the rest of the prefix. */
  answer(503, "<HTML><TITLE>Service Unavailable", NULL,
         &(struct expect){STORE_AWAY, STORE_REASON_RETENTION, 0, 0, NULL,
                          "Service Unavailable"});
}

/* VictoriaMetrics says its errors in plain text, after the client's
 * address and the request's URI, with Go's trailing newline. */
static void test_victoriametrics(void **state) {
  (void)state;
  answer(400,
         "remoteAddr: \"10.0.0.7:52814\"; requestURI: /write?db=pve; cannot "
         "parse InfluxDB line protocol: cannot unmarshal Influx line \"m "
         "v=abc 1\": cannot parse field value for \"v\"\n",
         NULL,
         &(struct expect){STORE_BAD_LINE, STORE_REASON_RETENTION, 0, 0, NULL,
                          "remoteAddr: \"10.0.0.7:52814\"; requestURI: "
                          "/write?db=pve; cannot parse InfluxDB line protocol: "
                          "cannot unmarshal Influx line \"m v=abc 1\": cannot "
                          "parse field value for \"v\""});
  answer(400,
         "remoteAddr: \"10.0.0.7:52814\"; requestURI: /write?db=pve; "
         "unsupported Content-Encoding: \"br\"\n",
         NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0,
                          FIX_OTHER,
                          "remoteAddr: \"10.0.0.7:52814\"; requestURI: "
                          "/write?db=pve; unsupported Content-Encoding: "
                          "\"br\""});
  /* Longer than the words hold: cut at STORE_WORDS_SIZE - 1, where a
   * blank falls here and goes too. */
  answer(503,
         "remoteAddr: \"10.0.0.7:52814\"; requestURI: /write?db=pve; couldn't "
         "start executing the request in 60.000 seconds, since "
         "-maxConcurrentInserts=16 concurrent inserts are executed. Possible "
         "solutions: to reduce workload; to increase compute resources at "
         "the server; to increase -insert.maxQueueDuration; to increase "
         "-maxConcurrentInserts\n",
         "10",
         &(struct expect){STORE_AWAY, STORE_REASON_RETENTION, 0, 10, NULL,
                          "remoteAddr: \"10.0.0.7:52814\"; requestURI: "
                          "/write?db=pve; couldn't start executing the "
                          "request in 60.000 seconds, since "
                          "-maxConcurrentInserts=16 concurrent inserts are "
                          "executed. Possible solutions: to"});
  answer(418, "I'm a teapot\n", NULL,
         &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0,
                          FIX_OTHER, "I'm a teapot"});
}

static void test_away(void **state) {
  (void)state;
  static const long away[] = {408, 429, 500, 502, 503, 504, 599};
  for (size_t i = 0; i < sizeof(away) / sizeof(away[0]); i++)
    answer(away[i], "", NULL,
           &(struct expect){STORE_AWAY, STORE_REASON_RETENTION, 0, 0, NULL,
                            "(no message)"});
  answer(500,
         "{\"code\":\"internal error\",\"message\":\"unexpected error writing "
         "points to database: timeout\"}",
         NULL,
         &(struct expect){STORE_AWAY, STORE_REASON_RETENTION, 0, 0, NULL,
                          "unexpected error writing points to database: "
                          "timeout"});
  /* Taken whatever the body says, and 2xx whatever its number. */
  answer(200, "{\"error\":\"partial write: dropped=3\"}", NULL,
         &(struct expect){STORE_TAKEN, STORE_REASON_RETENTION, 0, 0, NULL,
                          "partial write: dropped=3"});
  answer(
      299, "ok", "5",
      &(struct expect){STORE_TAKEN, STORE_REASON_RETENTION, 0, 0, NULL, "ok"});
}

/* Retry-After is only read when the store is away. */
static void retry(long status, const char *value, unsigned want) {
  answer(status, "{\"code\":\"too many requests\",\"message\":\"slow down\"}",
         value,
         &(struct expect){status == 400 ? STORE_REFUSED : STORE_AWAY,
                          STORE_REASON_RETENTION, 0, want,
                          status == 400 ? FIX_OTHER : NULL, "slow down"});
}

static void test_retry_after(void **state) {
  (void)state;
  retry(429, "1", 1);
  retry(429, "120", 120);
  retry(503, " 7", 7);
  retry(429, "Thu, 05 Dec 2024 10:00:30 GMT", 30);
  retry(429, "Thu, 05 Dec 2024 11:00:00 GMT", 3600);
  retry(429, "Thu, 05 Dec 2024 11:00:01 GMT", 3600);
  /* Now or past: again at once, after the least wait there is. */
  retry(429, "0", 1);
  retry(429, "Thu, 05 Dec 2024 10:00:00 GMT", 1);
  retry(429, "Thu, 05 Dec 2024 09:59:59 GMT", 1);
  retry(429, "Wed, 04 Dec 2024 10:00:00 GMT", 1);
  retry(429, "Thu, 01 Jan 1970 00:00:00 GMT", 1);
  /* What cannot be read asks for nothing. */
  retry(429, NULL, 0);
  retry(429, "", 0);
  retry(429, "soon", 0);
  retry(429, "-5", 0);
  retry(429, "Thursday, 05-Dec-24 10:00:30 GMT", 0);
  retry(429, "Thu, 05 Dec 2024 10:00:30 UTC", 0);
  /* A long wait is asked again after the longest. */
  retry(429, "3600", 3600);
  retry(429, "3601", 3600);
  retry(429, "99999999999999999999999999", 3600);
  retry(400, "30", 0);
}

/* Every byte that is not printable ASCII is quoted as '?', a NUL too
 * (a blank: the body is read past it), blanks collapse. */
static void test_unprintable(void **state) {
  (void)state;
  static const char body[] = "\t bad\x01\x7f\xc3\xa9 thing\0here\t\t\r\nnow"
                             "\x1b[31m \r\n\0";
  struct store_answer a;
  store_answer_read(500, body, sizeof(body) - 1, NULL, NOW, &a);
  check(&a, 500,
        &(struct expect){STORE_AWAY, STORE_REASON_RETENTION, 0, 0, NULL,
                         "bad???? thing here now?[31m"});
  /* JSON escapes undone, then quoted: no control reaches a log line. */
  static const char json[] = "{\"error\":\"a\\u001b\\tb\\\\c\x05\"}";
  store_answer_read(404, json, sizeof(json) - 1, NULL, NOW, &a);
  check(&a, 404,
        &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_404,
                         "au001b b\\c?"});
}

static void test_empty(void **state) {
  (void)state;
  struct store_answer a;
  store_answer_read(204, NULL, 10, NULL, NOW, &a);
  check(&a, 204,
        &(struct expect){STORE_TAKEN, STORE_REASON_RETENTION, 0, 0, NULL,
                         "(no message)"});
  store_answer_read(400, "ignored", 0, NULL, NOW, &a);
  check(&a, 400,
        &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_OTHER,
                         "(no message)"});
  store_answer_read(500, " \r\n\t", 4, NULL, NOW, &a);
  check(&a, 500,
        &(struct expect){STORE_AWAY, STORE_REASON_RETENTION, 0, 0, NULL,
                         "(no message)"});
  static const char empty[] = "{\"code\":\"internal error\",\"message\":\"\"}";
  store_answer_read(500, empty, sizeof(empty) - 1, NULL, NOW, &a);
  check(&a, 500,
        &(struct expect){STORE_AWAY, STORE_REASON_RETENTION, 0, 0, NULL,
                         "(no message)"});
}

/* What lies past STORE_ANSWER_BODY_MAX is not read: a line named there
 * makes no bad line, and no byte of it is touched (valgrind, ASan). */
static void test_long_body(void **state) {
  (void)state;
  const char tail[] = "unable to parse 'm v=abc 1': invalid boolean";
  size_t len = STORE_ANSWER_BODY_MAX + sizeof(tail) - 1;
  char *body = malloc(len);
  assert_non_null(body);
  memset(body, 'y', STORE_ANSWER_BODY_MAX);
  memcpy(body + STORE_ANSWER_BODY_MAX, tail, sizeof(tail) - 1);
  char words[STORE_WORDS_SIZE];
  memset(words, 'y', sizeof(words) - 1);
  words[sizeof(words) - 1] = '\0';

  struct store_answer a;
  store_answer_read(400, body, len, NULL, NOW, &a);
  check(&a, 400,
        &(struct expect){STORE_REFUSED, STORE_REASON_RETENTION, 0, 0, FIX_OTHER,
                         words});
  /* Ending at the last byte read, it is read. */
  memcpy(body + STORE_ANSWER_BODY_MAX - sizeof(tail) + 1, tail,
         sizeof(tail) - 1);
  store_answer_read(400, body, STORE_ANSWER_BODY_MAX, NULL, NOW, &a);
  check(&a, 400,
        &(struct expect){STORE_BAD_LINE, STORE_REASON_RETENTION, 0, 0, NULL,
                         words});
  free(body);
}

static void quote(const char *text, size_t size, const char *want) {
  char out[64];
  memset(out, '#', sizeof(out));
  store_words_quote(text, strlen(text), out, size);
  assert_string_equal(out, want);
  assert_int_equal(out[size], '#'); /* nothing written past size */
}

static void test_words_quote(void **state) {
  (void)state;
  quote("hello", 1, "");
  quote("hello", 2, "h");
  quote("hello", 6, "hello");
  quote("hello", 5, "hell");
  quote("  a \t\r\n b  ", 32, "a b");
  quote("a\n\nb\t\tc", 32, "a b c");
  quote("trailing   ", 32, "trailing");
  /* Cut just after a blank: the blank goes too. */
  quote("ab cd", 4, "ab");
  quote("\x01\x02 x\xff", 32, "?? x?");
  quote("\v\f", 32, "??");
  quote("", 32, "");
  quote("   ", 32, "");

  char out[4] = "###";
  store_words_quote("abc", 3, out, 0);
  assert_string_equal(out, "###");
}

/* Remote write receivers' refusals of samples, read from their 400s:
 * Prometheus 2.42's bodies (the whole request rolled back), Mimir's. */
static void test_remote_write_refusals(void **state) {
  (void)state;
  static const struct {
    const char *body;
    enum store_refusal refusal;
  } cases[] = {
      {"out of bounds\n", STORE_REFUSAL_TOO_OLD},
      {"out of order sample\n", STORE_REFUSAL_OUT_OF_ORDER},
      {"duplicate sample for timestamp\n", STORE_REFUSAL_DUPLICATE},
      {"the sample has been rejected because its timestamp is too old "
       "(err-mimir-sample-timestamp-too-old)",
       STORE_REFUSAL_TOO_OLD},
      {"received a series with an invalid label: '__name__'",
       STORE_REFUSAL_OTHER},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct store_answer a;
    store_answer_read(400, cases[i].body, strlen(cases[i].body), NULL, NOW, &a);
    assert_int_equal(store_refusal_of(a.words), cases[i].refusal);
  }
  assert_string_equal(store_refusal_name(STORE_REFUSAL_TOO_OLD), "too_old");
  assert_string_equal(store_refusal_name(STORE_REFUSAL_OUT_OF_ORDER),
                      "out_of_order");
  assert_string_equal(store_refusal_name(STORE_REFUSAL_DUPLICATE), "duplicate");
  assert_string_equal(store_refusal_name(STORE_REFUSAL_OTHER), "other");
  assert_string_equal(store_refusal_name(STORE_REFUSALS), "other");
}

static void test_names(void **state) {
  (void)state;
  assert_string_equal(store_verdict_name(STORE_TAKEN), "taken");
  assert_string_equal(store_verdict_name(STORE_PARTIAL), "partial");
  assert_string_equal(store_verdict_name(STORE_TOO_LARGE), "too_large");
  assert_string_equal(store_verdict_name(STORE_BAD_LINE), "bad_line");
  assert_string_equal(store_verdict_name(STORE_REFUSED), "refused");
  assert_string_equal(store_verdict_name(STORE_AWAY), "away");
  assert_string_equal(store_verdict_name((enum store_verdict)(STORE_AWAY + 1)),
                      "refused");
  assert_string_equal(store_verdict_name((enum store_verdict) - 1), "refused");
  assert_string_equal(store_reason_name(STORE_REASON_RETENTION), "retention");
  assert_string_equal(store_reason_name(STORE_REASON_TYPE_CONFLICT),
                      "type_conflict");
  assert_string_equal(store_reason_name(STORE_REASON_LIMIT), "limit");
  assert_string_equal(store_reason_name(STORE_REASON_UNPARSABLE), "unparsable");
  assert_string_equal(store_reason_name(STORE_REASON_OTHER), "other");
  assert_string_equal(store_reason_name(STORE_REASONS), "other");
  assert_string_equal(store_reason_name((enum store_reason) - 1), "other");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_influxdb1),
      cmocka_unit_test(test_influxdb2),
      cmocka_unit_test(test_influxdb2_long),
      cmocka_unit_test(test_influxdb3),
      cmocka_unit_test(test_proxy_html),
      cmocka_unit_test(test_victoriametrics),
      cmocka_unit_test(test_away),
      cmocka_unit_test(test_retry_after),
      cmocka_unit_test(test_unprintable),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_long_body),
      cmocka_unit_test(test_words_quote),
      cmocka_unit_test(test_remote_write_refusals),
      cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

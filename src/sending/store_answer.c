/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A store's answer to a write, read for what it means (see
 * store_answer.h).  The message is taken from InfluxDB's JSON ("message"
 * in 2.x, "error" in 1.x), a proxy's HTML <title>, or plain text (as far
 * as it is read); the verdict from the status and those words.
 */
#include "pvecg/store_answer.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETRY_AFTER_MAX 3600 /* s: a longer wait is asked again then */

const char *store_reason_name(enum store_reason reason) {
  static const char *const name[STORE_REASONS] = {
      "retention", "type_conflict", "limit", "unparsable", "other"};
  return (unsigned)reason < STORE_REASONS ? name[reason] : "other";
}

const char *store_refusal_name(enum store_refusal refusal) {
  static const char *const name[STORE_REFUSALS] = {"too_old", "out_of_order",
                                                   "duplicate", "other"};
  return (unsigned)refusal < STORE_REFUSALS ? name[refusal] : "other";
}

enum store_refusal store_refusal_of(const char *words) {
  if (strcasestr(words, "out of bounds") != NULL ||
      strcasestr(words, "too old") != NULL)
    return STORE_REFUSAL_TOO_OLD;
  if (strcasestr(words, "out of order") != NULL)
    return STORE_REFUSAL_OUT_OF_ORDER;
  if (strcasestr(words, "duplicate sample") != NULL)
    return STORE_REFUSAL_DUPLICATE;
  return STORE_REFUSAL_OTHER;
}

const char *store_verdict_name(enum store_verdict v) {
  static const char *const name[] = {"taken",    "partial", "too_large",
                                     "bad_line", "refused", "away"};
  return (unsigned)v <= STORE_AWAY ? name[v] : "refused";
}

void store_words_quote(const char *text, size_t len, char *out, size_t size) {
  size_t n = 0;
  bool blank = false;
  for (size_t i = 0; i < len && n + 1 < size; i++) {
    unsigned char c = (unsigned char)text[i];
    bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (space && (blank || n == 0))
      continue;
    blank = space;
    out[n++] = space ? ' ' : (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
  }
  while (n > 0 && out[n - 1] == ' ')
    n--;
  if (size > 0)
    out[n] = '\0';
}

/* A bounded copy of the body as a string, to search in. */
static char *body_text(const char *body, size_t len) {
  if (len > STORE_ANSWER_BODY_MAX)
    len = STORE_ANSWER_BODY_MAX;
  char *s = malloc(len + 1);
  if (s == NULL)
    return NULL;
  memcpy(s, body, len);
  for (size_t i = 0; i < len; i++)
    if (s[i] == '\0')
      s[i] = ' ';
  s[len] = '\0';
  return s;
}

/* The value of a JSON string member "key", its escapes undone for the
 * usual ones, into out.  Returns whether it was found. */
static bool json_member(const char *s, const char *key, char *out,
                        size_t size) {
  char pattern[32];
  snprintf(pattern, sizeof(pattern), "\"%s\"", key);
  const char *p = strstr(s, pattern);
  if (p == NULL)
    return false;
  p += strlen(pattern);
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (*p++ != ':')
    return false;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (*p++ != '"')
    return false;
  size_t n = 0;
  for (; *p != '\0' && *p != '"' && n + 1 < size; p++) {
    if (*p == '\\' && p[1] != '\0') {
      p++;
      out[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
    } else {
      out[n++] = *p;
    }
  }
  out[n] = '\0';
  return true;
}

/* The text between <title> and </title>, as a proxy's error page says. */
static bool html_title(const char *s, char *out, size_t size) {
  const char *p = strcasestr(s, "<title>");
  if (p == NULL)
    return false;
  p += strlen("<title>");
  const char *end = strcasestr(p, "</title>");
  size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
  if (n >= size)
    n = size - 1;
  memcpy(out, p, n);
  out[n] = '\0';
  return true;
}

/* What the store says, unquoted, into msg (the whole bounded text). */
static void message_of(const char *s, char *msg, size_t size) {
  if (json_member(s, "message", msg, size) ||
      json_member(s, "error", msg, size) || html_title(s, msg, size))
    return;
  snprintf(msg, size, "%s", s);
}

static unsigned long long number_after(const char *s, const char *marker) {
  const char *p = strstr(s, marker);
  if (p == NULL)
    return 0;
  p += strlen(marker);
  if (!isdigit((unsigned char)*p))
    return 0;
  return strtoull(p, NULL, 10);
}

static size_t occurrences(const char *s, const char *what) {
  size_t n = 0;
  for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what))
    n++;
  return n;
}

static enum store_reason reason_of(const char *msg) {
  if (strcasestr(msg, "retention") != NULL)
    return STORE_REASON_RETENTION;
  if (strcasestr(msg, "field type conflict") != NULL)
    return STORE_REASON_TYPE_CONFLICT;
  if (strcasestr(msg, "max-values-per-tag") != NULL ||
      strcasestr(msg, "max-series") != NULL ||
      strcasestr(msg, "limit exceeded") != NULL)
    return STORE_REASON_LIMIT;
  if (strcasestr(msg, "parse") != NULL || strcasestr(msg, "parsing") != NULL)
    return STORE_REASON_UNPARSABLE;
  return STORE_REASON_OTHER;
}

/* The points a partial write dropped: "dropped=N" (1.x, 2.x), "dropped N
 * points" (2.7, whose dropped= may lie past the prefix read), 3.x's list
 * of lines, 1.x's lines it could not parse (reported with dropped=0). */
static uint64_t dropped_of(const char *s) {
  unsigned long long n = number_after(s, "dropped=");
  if (n == 0)
    n = number_after(s, "dropped ");
  if (n == 0)
    n = occurrences(s, "\"line_number\"");
  if (n == 0)
    n = occurrences(s, "unable to parse");
  return n > 0 ? (uint64_t)n : 1;
}

/* Words of a 400 that name a line the store could not read. */
static bool names_a_line(const char *msg) {
  /* "parsing": InfluxDB 3.x's "parsing failed for write_lp endpoint" */
  return strcasestr(msg, "parse") != NULL ||
         strcasestr(msg, "parsing") != NULL ||
         strcasestr(msg, "outside range") != NULL ||
         strcasestr(msg, "bad timestamp") != NULL ||
         strcasestr(msg, "malformed") != NULL ||
         strcasestr(msg, "line protocol") != NULL;
}

static const char *fix_of(long status, const char *msg) {
  switch (status) {
  case 401:
    return "the store refused the token: check --token-file (InfluxDB 2.x: "
           "an API token that may write to the bucket)";
  case 403:
    return "the token may not write there: give it write permission on the "
           "database or bucket";
  case 404:
    return "nothing to write to at that URL: check its path and the "
           "database or bucket and organization it names (db=, bucket=, "
           "org=)";
  case 405:
    return "that URL takes no writes: check its path";
  }
  if (strcasestr(msg, "precision") != NULL)
    return "the store does not take the URL's precision=: use s, ms, us or "
           "ns, or leave it out";
  if (status >= 300 && status < 400)
    return "the URL is redirected: give --to the URL it leads to";
  return "check the URL (its path and db=, bucket=, org=) and --format";
}

/* Retry-After: delta-seconds or an HTTP-date. */
static unsigned retry_after_of(const char *value, time_t now) {
  if (value == NULL)
    return 0;
  while (*value == ' ')
    value++;
  long long s;
  if (isdigit((unsigned char)*value)) {
    s = strtoll(value, NULL, 10);
  } else {
    struct tm tm = {0};
    const char *end = strptime(value, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (end == NULL)
      return 0;
    s = (long long)(timegm(&tm) - now);
  }
  /* now or past (a date 1 s ago too): again after the least wait */
  if (s < 1)
    return 1;
  return s > RETRY_AFTER_MAX ? RETRY_AFTER_MAX : (unsigned)s;
}

static enum store_verdict verdict_of(long status, const char *msg) {
  if (status >= 200 && status < 300)
    return STORE_TAKEN;
  if (status == 422 ||
      (status == 400 && strcasestr(msg, "partial write") != NULL))
    return STORE_PARTIAL;
  if (status == 413)
    return STORE_TOO_LARGE;
  if (status == 400 && names_a_line(msg) &&
      strcasestr(msg, "precision") == NULL)
    return STORE_BAD_LINE;
  if (status == 408 || status == 429 || status >= 500)
    return STORE_AWAY;
  return STORE_REFUSED;
}

void store_answer_read(long status, const char *body, size_t len,
                       const char *retry_after, time_t now,
                       struct store_answer *ret) {
  *ret = (struct store_answer){.status = status};
  char *s = body_text(body != NULL ? body : "", body != NULL ? len : 0);
  char *msg = malloc(STORE_ANSWER_BODY_MAX + 1);
  if (s == NULL || msg == NULL) {
    /* No memory to read it: what the status alone says. */
    free(s);
    free(msg);
    ret->verdict = verdict_of(status, "");
    ret->dropped = ret->verdict == STORE_PARTIAL ? 1 : 0;
    ret->reason = STORE_REASON_OTHER;
    ret->fix = ret->verdict == STORE_REFUSED ? fix_of(status, "") : NULL;
    snprintf(ret->words, sizeof(ret->words), "(no memory to read it)");
    return;
  }
  message_of(s, msg, STORE_ANSWER_BODY_MAX + 1);
  ret->verdict = verdict_of(status, msg);
  if (ret->verdict == STORE_PARTIAL) {
    ret->reason = reason_of(msg);
    ret->dropped = dropped_of(s);
  }
  if (ret->verdict == STORE_AWAY)
    ret->retry_after = retry_after_of(retry_after, now);
  if (ret->verdict == STORE_REFUSED)
    ret->fix = fix_of(status, msg);
  store_words_quote(msg, strlen(msg), ret->words, sizeof(ret->words));
  if (ret->words[0] == '\0')
    snprintf(ret->words, sizeof(ret->words), "(no message)");
  free(msg);
  free(s);
}

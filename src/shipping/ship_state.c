/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shipper's state file (see ship_state.h): its text, read strictly so
 * that a damaged file is noticed, never half-believed.
 */
#include "ship_state.h"

#include "pvecg/grow.h"
#include "pvecg/text_copy.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "pvecg-ship-state 4"
#define MAGIC_V3 "pvecg-ship-state 3" /* no samples line */
#define MAGIC_V2 "pvecg-ship-state 2" /* totals only in decimal */
#define MAGIC_V1 "pvecg-ship-state 1" /* and no answers, no refusal */
#define LINE_MAX_LEN 2048
#define TOTAL_SIZE 32 /* %.17g's longest: "-1.2345678901234567e-308" */
_Static_assert(sizeof(double) == sizeof(uint64_t), "a double's bits");

void ship_state_id(const char *identity, char id[SHIP_ID_SIZE]) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits */
  for (const unsigned char *p = (const unsigned char *)identity; *p; p++)
    h = (h ^ *p) * 0x100000001b3ull;
  snprintf(id, SHIP_ID_SIZE, "%016" PRIx64, h);
}

static int compare_key(const void *key, const void *entry) {
  return strcmp(key, ((const struct ship_entry *)entry)->key);
}

struct ship_entry *ship_state_find(struct ship_state *s, const char *key) {
  if (s->count == 0)
    return NULL;
  return bsearch(key, s->entry, s->count, sizeof(*s->entry), compare_key);
}

/* Where key belongs in the sorted entries. */
static size_t insertion_point(const struct ship_state *s, const char *key) {
  size_t lo = 0, hi = s->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(s->entry[mid].key, key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

struct ship_entry *ship_state_add(struct ship_state *s, const char *key) {
  struct ship_entry *e = ship_state_find(s, key);
  if (e != NULL)
    return e;
  if (strlen(key) >= SHIP_KEY_SIZE)
    return NULL;
  struct ship_entry *grown =
      grow_array(s->entry, s->count + 1, &s->capacity, sizeof(*s->entry), 64);
  if (grown == NULL)
    return NULL;
  s->entry = grown;
  size_t at = insertion_point(s, key);
  memmove(s->entry + at + 1, s->entry + at,
          (s->count - at) * sizeof(*s->entry));
  s->count++;
  e = &s->entry[at];
  *e = (struct ship_entry){0};
  snprintf(e->key, sizeof(e->key), "%s", key);
  return e;
}

void ship_state_retain(struct ship_state *s,
                       bool (*keep)(struct ship_entry *, void *), void *ctx) {
  size_t kept = 0;
  for (size_t i = 0; i < s->count; i++)
    if (keep(&s->entry[i], ctx))
      s->entry[kept++] = s->entry[i];
  s->count = kept;
}

/* v's decimal text at p; returns its length.  The state has a line per
 * file and is written at every pass that ships rows: made without printf. */
static size_t i64_text(int64_t v, char *p) {
  if (v >= 0)
    return text_u64(p, (uint64_t)v);
  p[0] = '-';
  return 1 + text_u64(p + 1, (uint64_t)0 - (uint64_t)v);
}

/* "x" and the 16 hex digits of the double's IEEE 754 bits: exact, and
 * made without printf, whose %.17g of a fraction costs a third of a
 * microsecond -- six of them for a guest's stall file every time the store
 * takes a batch. */
static int total_bits(double v, char text[TOTAL_SIZE]) {
  static const char hex[] = "0123456789abcdef";
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  text[0] = 'x';
  for (int i = 16; i >= 1; i--, bits >>= 4)
    text[i] = hex[bits & 0xf];
  text[17] = '\0';
  return 17;
}

/* A counter's total: a whole number of at most 17 digits (bytes, ticks)
 * as its digits, %.17g's text of it; any other as its bits.  Returns the
 * length. */
static int total_text(double v, char text[TOTAL_SIZE]) {
  if (!(isfinite(v) && v == floor(v) && fabs(v) < 1e17))
    return total_bits(v, text);
  size_t len = 0;
  if (signbit(v))
    text[len++] = '-';
  len += text_u64(text + len, (uint64_t)fabs(v));
  text[len] = '\0';
  return (int)len;
}

_Static_assert(RRD_LAYOUT_DS_MAX <= 100, "a column's index has two digits");

/* " 6=898006,7=269400" at text; returns its length. */
#define COUNTERS_SIZE (RRD_LAYOUT_DS_MAX * (TOTAL_SIZE + 4) + 4)
static size_t format_counters(const struct export_counter *c,
                              char text[COUNTERS_SIZE]) {
  size_t len = 0;
  for (size_t i = 0; i < RRD_LAYOUT_DS_MAX; i++)
    if (c->started[i]) {
      text[len] = len > 0 ? ',' : ' ';
      len++;
      if (i >= 10)
        text[len++] = (char)('0' + i / 10);
      text[len++] = (char)('0' + i % 10);
      text[len++] = '=';
      len += (size_t)total_text(c->total[i], text + len);
    }
  if (len == 0) {
    memcpy(text, " -", 2);
    len = 2;
  }
  return len;
}

/* A key in the file: a node's name may hold a space, which separates the
 * fields, so it is written "\\040"; a backslash never is in a file name
 * (rrd_file_name_problem), so the escape is unambiguous. */
static void format_key(const char *key, FILE *out) {
  if (strchr(key, ' ') == NULL) {
    fputs(key, out); /* nearly every key: not a character at a time */
    return;
  }
  for (; *key; key++)
    if (*key == ' ')
      fputs("\\040", out);
    else
      fputc(*key, out);
}

/* "file <key> <dev> <ino> <last update> <acked> <counters>\n": the key,
 * then the rest made in one buffer and written at once. */
static void format_entry(const struct ship_entry *e, FILE *out) {
  char text[4 * 21 + COUNTERS_SIZE + 2];
  size_t len = 0;
  fputs("file ", out);
  format_key(e->key, out);
  text[len++] = ' ';
  len += text_u64(text + len, e->dev);
  text[len++] = ' ';
  len += text_u64(text + len, e->ino);
  text[len++] = ' ';
  len += i64_text((int64_t)e->last_update, text + len);
  text[len++] = ' ';
  len += i64_text((int64_t)e->acked.t, text + len);
  len += format_counters(&e->acked.counter, text + len);
  text[len++] = '\n';
  fwrite(text, 1, len, out);
}

int ship_state_format(const struct ship_state *s, FILE *out) {
  const struct ship_stats *st = &s->stats;
  fprintf(out, MAGIC "\ntarget %s %s\n", s->id, s->target);
  fprintf(out,
          "stats %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
          " %lld %lld %lld\n",
          st->rows_sent, st->rows_failed, st->batches_failed, st->dropped,
          (long long)st->last_success, (long long)st->last_failure,
          (long long)st->lag);
  fprintf(out, "answers %" PRIu64, st->batch_cap);
  for (size_t i = 0; i < STORE_REASONS; i++)
    fprintf(out, " %" PRIu64, st->dropped_by[i]);
  fprintf(out, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n", st->skipped[0],
          st->skipped[1], st->refused, (int)st->condition);
  fprintf(out, "refusal %lld %d %s\n", (long long)st->refusal_at,
          st->refusal_status, st->refusal[0] ? st->refusal : "-");
  fprintf(out, "samples %" PRIu64, st->samples_sent);
  for (size_t i = 0; i < STORE_REFUSALS; i++)
    fprintf(out, " %" PRIu64, st->samples_refused_by[i]);
  fputc('\n', out);
  for (size_t i = 0; i < s->count; i++)
    format_entry(&s->entry[i], out);
  fprintf(out, "end %zu\n", s->count);
  return ferror(out) ? -EIO : 0;
}

/* ---- reading ----------------------------------------------------------- */

struct reader {
  const char *at, *end;
  unsigned line;
  char text[LINE_MAX_LEN];
  char *err;
  size_t err_size;
};

/* The next line into r->text; -EINVAL at the end, for a line without its
 * '\n' (a cut file), a NUL or an overlong line. */
static int next_line(struct reader *r) {
  r->line++;
  const char *nl = memchr(r->at, '\n', (size_t)(r->end - r->at));
  size_t len = nl != NULL ? (size_t)(nl - r->at) : 0;
  if (nl == NULL || len >= sizeof(r->text) || memchr(r->at, '\0', len)) {
    snprintf(r->err, r->err_size, "line %u: %s", r->line,
             nl == NULL ? "missing (the file is cut short)"
                        : "not a line of a state file");
    return -EINVAL;
  }
  memcpy(r->text, r->at, len);
  r->text[len] = '\0';
  r->at = nl + 1;
  return 0;
}

static int wrong(struct reader *r, const char *what) {
  snprintf(r->err, r->err_size, "line %u: %s", r->line, what);
  return -EINVAL;
}

/* A decimal number without sign from *p, which moves past it and one
 * following space or the end. */
static bool take_u64(char **p, uint64_t *ret) {
  char *end;
  if (**p < '0' || **p > '9')
    return false;
  errno = 0;
  unsigned long long v = strtoull(*p, &end, 10);
  /* one space between fields, none at the end */
  if (errno != 0 || (*end != ' ' && *end != '\0') ||
      (*end == ' ' && (end[1] == '\0' || end[1] == ' ')))
    return false;
  *ret = v;
  *p = *end == ' ' ? end + 1 : end;
  return true;
}

static bool take_time(char **p, time_t *ret) {
  uint64_t v;
  if (!take_u64(p, &v) || v > (uint64_t)INT64_MAX / 2)
    return false;
  *ret = (time_t)v;
  return true;
}

/* "x" and 16 lowercase hex digits: a finite double's bits. */
static bool parse_bits(const char *text, size_t len, double *ret) {
  if (len != 17 || strspn(text + 1, "0123456789abcdef") < 16)
    return false;
  uint64_t bits = 0;
  for (size_t i = 1; i < 17; i++)
    bits = bits << 4 |
           (uint64_t)(text[i] <= '9' ? text[i] - '0' : text[i] - 'a' + 10);
  double v;
  memcpy(&v, &bits, sizeof(v));
  if (!isfinite(v))
    return false;
  *ret = v;
  return true;
}

/* A total as format_counters() writes it: its bits (parse_bits), or a
 * finite double's decimal (%.17g's, as every total was before version 3),
 * so digits, '.', an exponent and a leading '-' only (no '+' in front, no
 * space).  An underflow (ERANGE with a subnormal or 0) is the number
 * itself; an overflow is damage. */
static bool parse_total(const char *text, size_t len, double *ret) {
  if (len > 0 && text[0] == 'x')
    return parse_bits(text, len, ret);
  if (len == 0 || (text[0] != '-' && (text[0] < '0' || text[0] > '9')) ||
      strspn(text, "0123456789.eE+-") < len)
    return false;
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if ((size_t)(end - text) != len || !isfinite(v) ||
      (errno == ERANGE && fabs(v) > DBL_MIN))
    return false;
  *ret = v;
  return true;
}

/* "-" or "<column>=<total>,..." with columns in increasing order. */
static bool parse_counters(const char *text, struct export_counter *ret) {
  *ret = (struct export_counter){0};
  if (strcmp(text, "-") == 0)
    return true;
  const char *p = text;
  long last = -1;
  for (;;) {
    char *end;
    if (*p < '0' || *p > '9')
      return false;
    long i = strtol(p, &end, 10);
    if (i <= last || i >= RRD_LAYOUT_DS_MAX || *end != '=')
      return false;
    const char *value = end + 1;
    size_t len = strcspn(value, ",");
    if (!parse_total(value, len, &ret->total[i]))
      return false;
    ret->started[i] = true;
    last = i;
    if (value[len] == '\0')
      return true;
    p = value + len + 1;
  }
}

static int parse_stats(struct reader *r, struct ship_stats *st) {
  char *p = r->text + strlen("stats ");
  if (strncmp(r->text, "stats ", 6) != 0 || !take_u64(&p, &st->rows_sent) ||
      !take_u64(&p, &st->rows_failed) || !take_u64(&p, &st->batches_failed) ||
      !take_u64(&p, &st->dropped) || !take_time(&p, &st->last_success) ||
      !take_time(&p, &st->last_failure) || !take_time(&p, &st->lag) || *p)
    return wrong(r, "not the target's totals");
  return 0;
}

static int parse_answers(struct reader *r, struct ship_stats *st) {
  char *p = r->text + strlen("answers ");
  uint64_t condition;
  bool ok =
      strncmp(r->text, "answers ", 8) == 0 && take_u64(&p, &st->batch_cap);
  for (size_t i = 0; ok && i < STORE_REASONS; i++)
    ok = take_u64(&p, &st->dropped_by[i]);
  if (!ok || !take_u64(&p, &st->skipped[0]) || !take_u64(&p, &st->skipped[1]) ||
      !take_u64(&p, &st->refused) || !take_u64(&p, &condition) || *p ||
      condition > SHIP_REFUSED)
    return wrong(r, "not the answers' totals");
  st->condition = (enum ship_condition)condition;
  return 0;
}

/* "refusal <time> <status> <words>": the words printable, as kept. */
static int parse_refusal(struct reader *r, struct ship_stats *st) {
  char *p = r->text + strlen("refusal ");
  uint64_t status;
  if (strncmp(r->text, "refusal ", 8) != 0 || !take_time(&p, &st->refusal_at) ||
      !take_u64(&p, &status) || status > 999 || *p == '\0' ||
      strlen(p) >= sizeof(st->refusal))
    return wrong(r, "not the latest refusal");
  for (const char *c = p; *c; c++)
    if (*c < 0x20 || *c >= 0x7f)
      return wrong(r, "not the latest refusal");
  st->refusal_status = (int)status;
  snprintf(st->refusal, sizeof(st->refusal), "%s", strcmp(p, "-") ? p : "");
  return 0;
}

/* "samples <sent> <refused: too_old> <out_of_order> <duplicate> <other>" */
static int parse_samples(struct reader *r, struct ship_stats *st) {
  char *p = r->text + strlen("samples ");
  bool ok =
      strncmp(r->text, "samples ", 8) == 0 && take_u64(&p, &st->samples_sent);
  for (size_t i = 0; ok && i < STORE_REFUSALS; i++)
    ok = take_u64(&p, &st->samples_refused_by[i]);
  return ok && *p == '\0' ? 0 : wrong(r, "not the samples' totals");
}

static int parse_target(struct reader *r, struct ship_state *s) {
  const char *p = r->text + strlen("target ");
  size_t idlen = SHIP_ID_SIZE - 1;
  if (strncmp(r->text, "target ", 7) != 0 || strlen(p) < idlen + 1 ||
      p[idlen] != ' ' || strspn(p, "0123456789abcdef") != idlen)
    return wrong(r, "not the target's line");
  if (s->id[0] != '\0' && strncmp(p, s->id, idlen) != 0)
    return wrong(r, "the state of another target");
  if (strlen(p + idlen + 1) >= sizeof(s->target))
    return wrong(r, "a target name too long");
  memcpy(s->id, p, idlen);
  s->id[idlen] = '\0';
  snprintf(s->target, sizeof(s->target), "%s", p + idlen + 1);
  return 0;
}

/* The key as format_key() wrote it, in place; false for any other
 * backslash. */
static bool unescape_key(char *key) {
  char *out = key;
  for (const char *in = key; *in; in++) {
    if (*in == '\\' && strncmp(in, "\\040", 4) != 0)
      return false;
    if (*in == '\\') {
      *out++ = ' ';
      in += 3;
    } else {
      *out++ = *in;
    }
  }
  *out = '\0';
  return true;
}

/* "file <key> <dev> <ino> <last update> <cursor> <counters>" */
static int parse_file(struct reader *r, struct ship_state *s) {
  char *p = r->text + strlen("file ");
  char *space = strchr(p, ' ');
  if (space == NULL || space == p)
    return wrong(r, "not a file's cursor");
  *space = '\0';
  if (!unescape_key(p))
    return wrong(r, "not a file's cursor");
  if (ship_state_find(s, p) != NULL)
    return wrong(r, "a file named twice");
  if (s->count > 0 && strcmp(s->entry[s->count - 1].key, p) > 0)
    return wrong(r, "files out of order");
  struct ship_entry e = {0};
  if (strlen(p) >= sizeof(e.key))
    return wrong(r, "a file name too long");
  snprintf(e.key, sizeof(e.key), "%s", p);
  p = space + 1;
  if (!take_u64(&p, &e.dev) || !take_u64(&p, &e.ino) ||
      !take_time(&p, &e.last_update) || !take_time(&p, &e.acked.t) ||
      !parse_counters(p, &e.acked.counter))
    return wrong(r, "not a file's cursor");
  struct ship_entry *added = ship_state_add(s, e.key);
  if (added == NULL)
    return -ENOMEM;
  *added = e;
  return 0;
}

static int parse_body(struct reader *r, struct ship_state *s) {
  int rc;
  if ((rc = next_line(r)) < 0)
    return rc;
  bool v1 = strcmp(r->text, MAGIC_V1) == 0;
  bool v4 = strcmp(r->text, MAGIC) == 0;
  if (!v1 && !v4 && strcmp(r->text, MAGIC_V2) != 0 &&
      strcmp(r->text, MAGIC_V3) != 0)
    return wrong(r, "not a pvecg ship state (or of another version)");
  if ((rc = next_line(r)) < 0 || (rc = parse_target(r, s)) < 0)
    return rc;
  if ((rc = next_line(r)) < 0 || (rc = parse_stats(r, &s->stats)) < 0)
    return rc;
  if (v1) /* its partial writes said no reason */
    s->stats.dropped_by[STORE_REASON_OTHER] = s->stats.dropped;
  else if ((rc = next_line(r)) < 0 || (rc = parse_answers(r, &s->stats)) < 0 ||
           (rc = next_line(r)) < 0 || (rc = parse_refusal(r, &s->stats)) < 0)
    return rc;
  if (v4 && ((rc = next_line(r)) < 0 || (rc = parse_samples(r, &s->stats)) < 0))
    return rc;
  for (;;) {
    if ((rc = next_line(r)) < 0)
      return rc;
    if (strncmp(r->text, "end ", 4) == 0)
      break;
    if (strncmp(r->text, "file ", 5) != 0)
      return wrong(r, "neither a file's cursor nor the end");
    if ((rc = parse_file(r, s)) < 0)
      return rc;
  }
  char *p = r->text + 4;
  uint64_t n;
  if (!take_u64(&p, &n) || *p || n != s->count)
    return wrong(r, "the end does not count the files above");
  if (r->at != r->end)
    return wrong(r, "text after the end");
  return 0;
}

int ship_state_parse(const char *text, size_t len, struct ship_state *ret,
                     char *err, size_t err_size) {
  struct reader r = {
      .at = text, .end = text + len, .err = err, .err_size = err_size};
  struct ship_state s = {0};
  memcpy(s.id, ret->id, sizeof(s.id));
  int rc = parse_body(&r, &s);
  if (rc < 0) {
    if (rc == -ENOMEM)
      snprintf(err, err_size, "out of memory");
    ship_state_free(&s);
    return rc;
  }
  ship_state_free(ret);
  *ret = s;
  return 0;
}

void ship_state_free(struct ship_state *s) {
  free(s->entry);
  s->entry = NULL;
  s->count = s->capacity = 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A streaming JSON writer (see json_writer.h). */
#include "pvecg/json_writer.h"

#include <inttypes.h>
#include <math.h>

void json_writer_init(struct json_writer *w, FILE *out) {
  *w = (struct json_writer){.out = out};
}

/* Before any value or key: the comma that separates it from the last. */
static void separate(struct json_writer *w) {
  if (w->after_key) {
    w->after_key = false;
    return;
  }
  if (w->has_item[w->depth])
    fputc(',', w->out);
  w->has_item[w->depth] = true;
}

static void open_level(struct json_writer *w, char c) {
  separate(w);
  fputc(c, w->out);
  if (w->depth + 1 < JSON_WRITER_DEPTH)
    w->depth++;
  w->has_item[w->depth] = false;
}

static void close_level(struct json_writer *w, char c) {
  fputc(c, w->out);
  if (w->depth > 0)
    w->depth--;
}

void json_begin_object(struct json_writer *w) { open_level(w, '{'); }
void json_end_object(struct json_writer *w) { close_level(w, '}'); }
void json_begin_array(struct json_writer *w) { open_level(w, '['); }
void json_end_array(struct json_writer *w) { close_level(w, ']'); }

static bool needs_escape(unsigned char c) {
  return c < 0x20 || c == 0x7f || c == '"' || c == '\\';
}

static void write_escape(FILE *out, unsigned char c) {
  switch (c) {
  case '"':
    fputs("\\\"", out);
    return;
  case '\\':
    fputs("\\\\", out);
    return;
  case '\n':
    fputs("\\n", out);
    return;
  case '\t':
    fputs("\\t", out);
    return;
  case '\r':
    fputs("\\r", out);
    return;
  }
  fprintf(out, "\\u%04x", c);
}

/* Runs of characters that need no escape go out in one fwrite: a key is
 * written for every value of every row, and character-wise stdio calls
 * (each taking the stream's lock) were most of an rrddata answer's cost. */
void json_write_escaped(FILE *out, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  fputc('"', out);
  while (*p != '\0') {
    const unsigned char *run = p;
    while (*p != '\0' && !needs_escape(*p))
      p++;
    if (p > run)
      fwrite(run, 1, (size_t)(p - run), out);
    if (*p != '\0')
      write_escape(out, *p++);
  }
  fputc('"', out);
}

void json_key(struct json_writer *w, const char *key) {
  separate(w);
  json_write_escaped(w->out, key);
  fputc(':', w->out);
  w->after_key = true;
}

void json_string(struct json_writer *w, const char *s) {
  separate(w);
  json_write_escaped(w->out, s);
}

/* The decimal digits of v, and a '-' when negative. */
static void write_integer(FILE *out, bool negative, uint64_t v) {
  char buf[24], *p = buf + sizeof(buf);
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (negative)
    *--p = '-';
  fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

/* Below 10^15 an integral double is what "%.15g" prints as plain digits
 * (its exponent is under the precision); -0 prints as "-0" and takes the
 * printf path.  Most of an rrddata answer is such numbers (bytes, counts),
 * and printf's floating-point formatting was most of its cost. */
#define PLAIN_INTEGER_LIMIT 1e15

void json_number(struct json_writer *w, double value) {
  separate(w);
  if (!isfinite(value)) {
    fputs("null", w->out);
  } else if (fabs(value) < PLAIN_INTEGER_LIMIT && value == trunc(value) &&
             !(value == 0 && signbit(value))) {
    write_integer(w->out, value < 0, (uint64_t)fabs(value));
  } else {
    fprintf(w->out, "%.15g", value);
  }
}

void json_uint(struct json_writer *w, uint64_t value) {
  separate(w);
  write_integer(w->out, false, value);
}

void json_int(struct json_writer *w, int64_t value) {
  separate(w);
  write_integer(w->out, value < 0,
                value < 0 ? 0 - (uint64_t)value : (uint64_t)value);
}

void json_bool(struct json_writer *w, bool value) {
  separate(w);
  fputs(value ? "true" : "false", w->out);
}

void json_null(struct json_writer *w) {
  separate(w);
  fputs("null", w->out);
}

void json_raw(struct json_writer *w, const char *text) {
  separate(w);
  fputs(text, w->out);
}

/* A streaming JSON writer (see json_writer.h). */
#include "json_writer.h"

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

void json_write_escaped(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
    switch (*p) {
    case '"':
      fputs("\\\"", out);
      break;
    case '\\':
      fputs("\\\\", out);
      break;
    case '\n':
      fputs("\\n", out);
      break;
    case '\t':
      fputs("\\t", out);
      break;
    case '\r':
      fputs("\\r", out);
      break;
    default:
      if (*p < 0x20 || *p == 0x7f)
        fprintf(out, "\\u%04x", *p);
      else
        fputc(*p, out);
    }
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

void json_number(struct json_writer *w, double value) {
  separate(w);
  if (isfinite(value))
    fprintf(w->out, "%.15g", value);
  else
    fputs("null", w->out);
}

void json_uint(struct json_writer *w, uint64_t value) {
  separate(w);
  fprintf(w->out, "%" PRIu64, value);
}

void json_int(struct json_writer *w, int64_t value) {
  separate(w);
  fprintf(w->out, "%" PRId64, value);
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small streaming JSON writer for the pvecg command's output: it keeps
 * track of commas and nesting so callers only say what comes next, escapes
 * strings, and prints numbers the way Proxmox's API does (Perl's "%.15g"),
 * so `pvecg rrddata` can match the API byte for byte.
 *
 * Output goes to a stdio stream; write errors are sticky in the stream and
 * checked once by the caller at the end (ferror/fflush).
 */
#ifndef PVECG_JSON_WRITER_H
#define PVECG_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITER_DEPTH 16

struct json_writer {
  FILE *out;
  int depth;
  /* Per level: whether something was written there already (a comma is
   * due before the next value) and whether a key is waiting for it. */
  bool has_item[JSON_WRITER_DEPTH];
  bool after_key;
};

void json_writer_init(struct json_writer *w, FILE *out);

void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);

/* An object member's name; the next value written is its value. */
void json_key(struct json_writer *w, const char *key);

/* A string, escaped (quotes, backslash, control characters as \u00XX;
 * bytes >= 0x80 are passed through, so UTF-8 stays UTF-8). */
void json_string(struct json_writer *w, const char *s);
/* A number as "%.15g" (how Perl, and so the PVE API, prints one); NaN and
 * infinities, which JSON cannot hold, as null. */
void json_number(struct json_writer *w, double value);
void json_uint(struct json_writer *w, uint64_t value);
void json_int(struct json_writer *w, int64_t value);
void json_bool(struct json_writer *w, bool value);
void json_null(struct json_writer *w);
/* Text that is already valid JSON (e.g. a number formatted elsewhere). */
void json_raw(struct json_writer *w, const char *text);

/* Writes s escaped as a JSON string, with its quotes, to out. */
void json_write_escaped(FILE *out, const char *s);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer to a BATCH exchange (see rrdcached_answer.h).  Every line is
 * checked strictly: a number is decimal digits without sign or leading
 * zero (but "0"), short enough not to overflow, followed by one space; a
 * line ends at '\n'.  Anything else is -EPROTO, so a stream that lost its
 * place is never read as answers to the wrong rows.
 */
#include "rrdcached_answer.h"

#include <errno.h>
#include <string.h>

/* The longest number accepted: a BATCH has far fewer commands. */
#define DIGITS_MAX 9

/* One line of buf starting at *pos: sets *line and *line_len (without the
 * '\n') and moves *pos past it.  Returns 0, or 1 when it is not whole. */
static int next_line(const char *buf, size_t len, size_t *pos,
                     const char **line, size_t *line_len) {
  if (*pos >= len) /* also before anything arrived: buf may be NULL */
    return 1;
  const char *start = buf + *pos;
  const char *nl = memchr(start, '\n', len - *pos);
  if (nl == NULL)
    return 1;
  *line = start;
  *line_len = (size_t)(nl - start);
  *pos += *line_len + 1;
  return 0;
}

/* "<number> <rest>": the number and where the rest begins; -EPROTO. */
static int leading_number(const char *line, size_t len, size_t *value,
                          size_t *rest) {
  size_t n = 0, v = 0;
  while (n < len && line[n] >= '0' && line[n] <= '9' && n <= DIGITS_MAX)
    v = v * 10 + (size_t)(line[n++] - '0');
  if (n == 0 || n > DIGITS_MAX || (n > 1 && line[0] == '0') || n >= len ||
      line[n] != ' ')
    return -EPROTO;
  *value = v;
  *rest = n + 1;
  return 0;
}

/* The answer to BATCH itself: "0 ..." to go ahead, "-1 ..." (or anything
 * else) when refused. */
static int go_ahead(const char *line, size_t len) {
  size_t value, rest;
  if (leading_number(line, len, &value, &rest) != 0 || value != 0)
    return -EOPNOTSUPP;
  return 0;
}

/* The word after the count: "errors" (rrdcached(1) shows "Errors"). */
static int errors_word(const char *word, size_t len) {
  return len == 6 && (word[0] == 'e' || word[0] == 'E') &&
         memcmp(word + 1, "rrors", 5) == 0;
}

static int error_line(const char *line, size_t len, size_t commands,
                      size_t previous, struct rrdcached_answer_error *e) {
  size_t command, rest;
  if (leading_number(line, len, &command, &rest) != 0 || command == 0 ||
      command > commands || command <= previous)
    return -EPROTO;
  e->command = command;
  e->message = line + rest;
  e->message_len = len - rest;
  return 0;
}

ssize_t rrdcached_answer_parse(const char *buf, size_t len, size_t commands,
                               struct rrdcached_answer_error *errors,
                               size_t *count) {
  size_t pos = 0, line_len, n, rest;
  const char *line;
  if (next_line(buf, len, &pos, &line, &line_len) != 0)
    return 0;
  if (go_ahead(line, line_len) != 0)
    return -EOPNOTSUPP;
  if (next_line(buf, len, &pos, &line, &line_len) != 0)
    return 0;
  if (leading_number(line, line_len, &n, &rest) != 0 || n > commands ||
      !errors_word(line + rest, line_len - rest))
    return -EPROTO;
  for (size_t i = 0; i < n; i++) {
    if (next_line(buf, len, &pos, &line, &line_len) != 0)
      return 0;
    int r = error_line(line, line_len, commands,
                       i > 0 ? errors[i - 1].command : 0, &errors[i]);
    if (r != 0)
      return r;
  }
  *count = n;
  return (ssize_t)pos;
}

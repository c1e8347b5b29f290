/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The token file's lines (see serve_token_file.h). */
#include "serve_token_file.h"

#include "serve_scope.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct line {
  const char *p;
  size_t n;
};

/* The line at *pos, without its LF or CRLF; moves *pos past it.  False at
 * the end. */
static bool next_line(const char **pos, const char *end, struct line *ret) {
  if (*pos >= end)
    return false;
  const char *nl = memchr(*pos, '\n', (size_t)(end - *pos));
  const char *stop = nl != NULL ? nl : end;
  ret->p = *pos;
  ret->n = (size_t)(stop - *pos);
  if (ret->n > 0 && ret->p[ret->n - 1] == '\r')
    ret->n--;
  *pos = nl != NULL ? nl + 1 : end;
  return true;
}

static bool ignored(struct line l) {
  if (l.n > 0 && l.p[0] == '#')
    return true;
  for (size_t i = 0; i < l.n; i++)
    if (l.p[i] != ' ' && l.p[i] != '\t')
      return false;
  return true;
}

/* Visible ASCII: fits a header unquoted, and no line end or space can
 * hide in it. */
static bool visible(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] <= ' ' || s[i] > '~')
      return false;
  return true;
}

static bool letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Proxmox's realm and token id: [A-Za-z][A-Za-z0-9.\-_]+ */
static bool proxmox_name(const char *s, size_t n) {
  if (n < 2 || !letter(s[0]))
    return false;
  for (size_t i = 1; i < n; i++)
    if (!letter(s[i]) && !(s[i] >= '0' && s[i] <= '9') && s[i] != '.' &&
        s[i] != '-' && s[i] != '_')
      return false;
  return true;
}

/* Proxmox's user name, of a line already known to be visible ASCII (so
 * without whitespace): no '@' (the first one ends it) and no ':'. */
static bool proxmox_user(const char *s, size_t n) {
  return n > 0 && memchr(s, ':', n) == NULL;
}

/* The length of USER@REALM!TOKENID when the line starts with exactly that
 * and an '=', else 0: then the whole line is the secret. */
static size_t token_id_len(struct line l) {
  const char *end = l.p + l.n;
  const char *at = memchr(l.p, '@', l.n);
  const char *bang = at != NULL ? memchr(at, '!', (size_t)(end - at)) : NULL;
  const char *eq =
      bang != NULL ? memchr(bang, '=', (size_t)(end - bang)) : NULL;
  if (eq == NULL || !proxmox_user(l.p, (size_t)(at - l.p)) ||
      !proxmox_name(at + 1, (size_t)(bang - at - 1)) ||
      !proxmox_name(bang + 1, (size_t)(eq - bang - 1)))
    return 0;
  return (size_t)(eq - l.p);
}

/* Fills t from a line's token (its first word); NULL, or why it is
 * refused. */
static const char *take(struct line l, struct serve_token *t) {
  if (l.n == 0 || !visible(l.p, l.n))
    return "it holds a space, a control character or a byte that is not "
           "ASCII";
  size_t id_len = token_id_len(l);
  size_t skip = id_len != 0 ? id_len + 1 : 0;
  size_t secret_len = l.n - skip;
  if (secret_len == 0)
    return "no secret after the '='";
  if (secret_len > SERVE_TOKEN_MAX || id_len > SERVE_TOKEN_MAX)
    return "it is too long (at most 256 bytes of secret)";
  if (secret_len < SERVE_SECRET_MIN)
    return "the secret is shorter than 16 bytes: make a longer one "
           "(openssl rand -hex 32)";
  memcpy(t->secret, l.p + skip, secret_len);
  t->secret_len = secret_len;
  memcpy(t->id, l.p, id_len);
  t->id_len = id_len;
  return NULL;
}

static size_t count_tokens(const char *text, size_t size) {
  const char *pos = text;
  struct line l;
  size_t count = 0;
  while (next_line(&pos, text + size, &l))
    count += !ignored(l);
  return count;
}

/* The line's token: up to its first space or tab; the rest is its scope
 * (serve_scope.h). */
static struct line token_of(struct line l, struct line *scope) {
  size_t n = 0;
  while (n < l.n && l.p[n] != ' ' && l.p[n] != '\t')
    n++;
  *scope = (struct line){l.p + n, l.n - n};
  return (struct line){l.p, n};
}

/* One line that is not ignored into t; 0, -ENOMEM, or -EINVAL with why
 * filled (without the line number). */
static int take_line(struct line l, struct serve_token *t, char *why,
                     size_t why_size) {
  struct line scope;
  const char *wrong = take(token_of(l, &scope), t);
  if (wrong != NULL) {
    snprintf(why, why_size, "%s", wrong);
    return -EINVAL;
  }
  return serve_scope_parse(scope.p, scope.n, &t->scope, why, why_size);
}

/* Two lines of one secret: a Bearer request would match both, and which
 * scope it has could not be told.  Not in constant time: the file is
 * read once, by its owner's choice. */
static unsigned same_secret(const struct serve_tokens *tokens) {
  const struct serve_token *last = &tokens->item[tokens->count - 1];
  for (size_t i = 0; i + 1 < tokens->count; i++)
    if (tokens->item[i].secret_len == last->secret_len &&
        memcmp(tokens->item[i].secret, last->secret, last->secret_len) == 0)
      return tokens->item[i].line;
  return 0;
}

/* Fills tokens->item (room for all) line by line. */
static int take_all(const char *text, size_t size, struct serve_tokens *tokens,
                    char *why, size_t why_size) {
  const char *pos = text;
  struct line l;
  unsigned number = 0;
  char wrong[160];
  while (next_line(&pos, text + size, &l)) {
    number++;
    if (ignored(l))
      continue;
    struct serve_token *t = &tokens->item[tokens->count];
    int r = take_line(l, t, wrong, sizeof(wrong));
    if (r == -ENOMEM)
      return r;
    if (r == 0) {
      t->line = number;
      tokens->count++;
    }
    unsigned earlier = r == 0 ? same_secret(tokens) : 0;
    if (earlier != 0)
      snprintf(wrong, sizeof(wrong),
               "the same secret as line %u: make each line's own", earlier);
    if (r != 0 || earlier != 0) {
      snprintf(why, why_size, "line %u: %s", number, wrong);
      return -EINVAL;
    }
  }
  return 0;
}

int serve_token_file_parse(const char *text, size_t size,
                           struct serve_tokens *ret, char *why,
                           size_t why_size) {
  size_t count = count_tokens(text, size);
  *ret = (struct serve_tokens){0};
  if (count == 0) {
    snprintf(why, why_size,
             "it holds no token (one a line: SECRET or "
             "USER@REALM!TOKENID=SECRET)");
    return -EINVAL;
  }
  if (count > SERVE_TOKENS_MAX) {
    snprintf(why, why_size, "it holds more than %d tokens", SERVE_TOKENS_MAX);
    return -EINVAL;
  }
  /* calloc: the zero padding serve_auth_equal relies on */
  ret->item = calloc(count, sizeof(*ret->item));
  if (ret->item == NULL)
    return -ENOMEM;
  int r = take_all(text, size, ret, why, why_size);
  if (r != 0)
    serve_tokens_free(ret);
  return r;
}

void serve_tokens_free(struct serve_tokens *tokens) {
  for (size_t i = 0; i < tokens->count; i++)
    serve_scope_free(tokens->item[i].scope);
  if (tokens->item != NULL) {
    explicit_bzero(tokens->item, tokens->count * sizeof(*tokens->item));
    free(tokens->item);
  }
  *tokens = (struct serve_tokens){0};
}

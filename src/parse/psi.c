/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for the kernel's pressure stall files (cpu/io/memory.pressure).
 *
 * Strict where a misread would go unnoticed (every known key exactly once,
 * numbers in the kernel's own form, averages within 0..100) and lenient where
 * the kernel may grow (unknown "key=value" fields and unknown lines are
 * skipped), in the manner of systemd's psi-util.
 */
#include "pvecg/psi.h"

#include <errno.h>
#include <string.h>

#include "pvecg/decimal.h"

#define PSI_AVG_MAX 100.0

enum psi_key { PSI_AVG10, PSI_AVG60, PSI_AVG300, PSI_TOTAL, PSI_UNKNOWN };

#define PSI_ALL_KEYS ((1u << PSI_UNKNOWN) - 1)

/* Whether key is k's name.  Constant lengths let the compiler compare in
 * place rather than call memcmp: three files per guest and interval pass
 * through here. */
static bool psi_key_is(const char *key, size_t len, enum psi_key k) {
  switch (k) {
  case PSI_AVG10:
    return len == 5 && memcmp(key, "avg10", 5) == 0;
  case PSI_AVG60:
    return len == 5 && memcmp(key, "avg60", 5) == 0;
  case PSI_AVG300:
    return len == 6 && memcmp(key, "avg300", 6) == 0;
  case PSI_TOTAL:
    return len == 5 && memcmp(key, "total", 5) == 0;
  default:
    return false;
  }
}

/* The key the kernel prints at this place in the line is tried first. */
static enum psi_key psi_key_lookup(const char *key, size_t len,
                                   enum psi_key next) {
  for (unsigned i = 0; i < PSI_UNKNOWN; i++) {
    enum psi_key k = (enum psi_key)((next + i) % PSI_UNKNOWN);
    if (psi_key_is(key, len, k))
      return k;
  }
  return PSI_UNKNOWN;
}

static double *psi_avg_slot(struct psi_line *line, enum psi_key k) {
  switch (k) {
  case PSI_AVG10:
    return &line->avg10;
  case PSI_AVG60:
    return &line->avg60;
  case PSI_AVG300:
    return &line->avg300;
  default:
    return NULL;
  }
}

/* Unknown keys are parsed too: a malformed number is a malformed file. */
static int psi_parse_value(enum psi_key k, const char **p, const char *eol,
                           struct psi_line *line) {
  double *slot = psi_avg_slot(line, k);
  double avg;
  int r;

  if (k == PSI_TOTAL) {
    r = decimal_parse_u64(p, eol, &line->total);
  } else {
    r = decimal_parse_fixed(p, eol, &avg);
    if (r == 0 && slot) {
      if (avg > PSI_AVG_MAX)
        return -ERANGE;
      *slot = avg;
    }
  }
  return r == -EINVAL ? -EBADMSG : r;
}

/* One "key=value" at *p, followed by a space or the end of the line; field
 * is its place in the line. */
static int psi_parse_field(const char **pos, const char *eol,
                           struct psi_line *line, unsigned *seen,
                           unsigned field) {
  const char *p = *pos, *key = p;
  enum psi_key k;
  int r;

  while (p < eol && *p != '=' && *p != ' ')
    p++;
  if (p == key || p == eol || *p != '=')
    return -EBADMSG;
  k = psi_key_lookup(key, (size_t)(p - key),
                     (enum psi_key)(field % PSI_UNKNOWN));
  if (k != PSI_UNKNOWN && (*seen & (1u << k)))
    return -EBADMSG;
  p++;
  r = psi_parse_value(k, &p, eol, line);
  if (r < 0)
    return r;
  if (p < eol && *p != ' ')
    return -EBADMSG;
  if (k != PSI_UNKNOWN)
    *seen |= 1u << k;
  *pos = p;
  return 0;
}

/* The fields after "some"/"full": " key=value" repeated to the end. */
static int psi_parse_fields(const char *p, const char *eol,
                            struct psi_line *line) {
  unsigned seen = 0, field = 0;
  int r;

  for (; p < eol; field++) {
    /* Only a space can be here: the prefix and each value were followed by
     * one; a second space makes an empty key, refused below. */
    p++;
    r = psi_parse_field(&p, eol, line, &seen, field);
    if (r < 0)
      return r;
  }
  return seen == PSI_ALL_KEYS ? 0 : -EBADMSG;
}

/* The rest of the line after its first word when that word is `word`. */
static const char *psi_after_word(const char *p, const char *eol,
                                  const char *word) {
  size_t n = strlen(word);

  if ((size_t)(eol - p) < n || memcmp(p, word, n) != 0)
    return NULL;
  if (p + n != eol && p[n] != ' ')
    return NULL;
  return p + n;
}

static int psi_parse_line(const char *p, const char *eol,
                          struct psi_stats *stats, bool *has_some) {
  struct psi_line *line;
  const char *rest;
  bool *seen;

  if ((rest = psi_after_word(p, eol, "some"))) {
    line = &stats->some;
    seen = has_some;
  } else if ((rest = psi_after_word(p, eol, "full"))) {
    line = &stats->full;
    seen = &stats->has_full;
  } else {
    return 0; /* a kind of stall this parser does not know yet */
  }
  if (*seen)
    return -EBADMSG;
  *seen = true;
  return psi_parse_fields(rest, eol, line);
}

int psi_parse(const char *buf, size_t len, struct psi_stats *ret) {
  struct psi_stats stats = {0};
  const char *p = buf, *end = buf + len, *nl, *eol;
  bool has_some = false;
  int r;

  while (p < end) {
    nl = memchr(p, '\n', (size_t)(end - p));
    eol = nl ? nl : end;
    r = psi_parse_line(p, eol, &stats, &has_some);
    if (r < 0)
      return r;
    p = nl ? nl + 1 : end;
  }
  if (!has_some)
    return -EBADMSG;
  *ret = stats;
  return 0;
}

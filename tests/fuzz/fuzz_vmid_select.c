/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for src/parse/vmid_select.c, the VMID select list of the
 * pve_cgroup config.  The input is one line per entry; the first byte picks
 * IgnoreSelected and the size of the error buffer.  Checks, beyond memory
 * safety (including no leak from a regular expression that does not
 * compile): an entry is accepted exactly when it is a canonical VMID (3 to
 * 9 digits, no leading zero) or "/RE/" with an RE that compiles as POSIX
 * extended, refusals are -EINVAL with a terminated message, and every
 * match agrees with an oracle that keeps its own unsorted list of VMIDs
 * and its own compiled expressions.
 *
 * glibc's regcomp takes time and memory exponential in stacked and nested
 * repetitions ("/a{99}{99}{99}{99}/" exhausts memory, "/^1****+++/" takes
 * minutes), so the module refuses patterns beyond documented limits before
 * compiling them; the oracle applies those limits its own way, and a
 * pattern the module lets through that glibc cannot compile quickly shows
 * as a timeout.
 */
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/vmid.h"
#include "pvecg/vmid_select.h"

#define ENTRIES_MAX 8
#define FILL 'Z'

struct oracle {
  uint32_t exact[ENTRIES_MAX];
  size_t exact_count;
  regex_t regexes[ENTRIES_MAX];
  size_t regex_count;
  bool ignore;
};

/* 3 to 9 digits without a leading zero, the value by strtoul. */
static bool canonical_vmid(const char *s, uint32_t *v) {
  size_t n = strlen(s);

  if (n < 3 || n > 9 || s[0] == '0')
    return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return false;
  *v = (uint32_t)strtoul(s, NULL, 10);
  return true;
}

/* Whether pattern[at] is a '}' that ends a count: the nearest brace
 * before it is a '{'. */
static bool closes_count(const char *pattern, size_t at) {
  if (at == (size_t)-1 || pattern[at] != '}')
    return false;
  while (at-- > 0)
    if (pattern[at] == '{' || pattern[at] == '}')
      return pattern[at] == '{';
  return false;
}

/* The documented limits on a pattern (vmid_select.h), read on their own:
 * length, repetition operators, never two in a row (a '}' after a '{'
 * ends one), counted repetitions, and no count of two or more digits
 * between a '{' and its '}'. */
static bool within_limits(const char *pattern) {
  size_t n = strlen(pattern), operators = 0, braces = 0;

  if (n > VMID_SELECT_PATTERN_MAX)
    return false;
  for (size_t i = 0; i < n; i++) {
    bool op = strchr("*+?{", pattern[i]) != NULL;

    if (op && i > 0 && strchr("*+?", pattern[i - 1]) != NULL)
      return false;
    if (op && closes_count(pattern, i - 1))
      return false;
    operators += op;
    if (pattern[i] != '{')
      continue;
    braces++;
    for (size_t j = i + 1; j + 1 < n && pattern[j] != '}'; j++)
      if (pattern[j] >= '0' && pattern[j] <= '9' && pattern[j + 1] >= '0' &&
          pattern[j + 1] <= '9')
        return false;
  }
  return operators <= VMID_SELECT_REPEATS_MAX &&
         braces <= VMID_SELECT_COUNTS_MAX;
}

/* The oracle's own reading of an entry: 0 when accepted, else -EINVAL. */
static int oracle_add(struct oracle *o, const char *entry) {
  size_t n = strlen(entry);

  if (n >= 2 && entry[0] == '/' && entry[n - 1] == '/') {
    char *pattern = malloc(n - 1);
    int rc;

    FUZZ_CHECK(pattern != NULL);
    memcpy(pattern, entry + 1, n - 2);
    pattern[n - 2] = '\0';
    if (!within_limits(pattern)) {
      free(pattern);
      return -EINVAL;
    }
    rc =
        regcomp(&o->regexes[o->regex_count], pattern, REG_EXTENDED | REG_NOSUB);
    free(pattern);
    if (rc != 0)
      return -EINVAL;
    o->regex_count++;
    return 0;
  }
  if (!canonical_vmid(entry, &o->exact[o->exact_count]))
    return -EINVAL;
  o->exact_count++;
  return 0;
}

static bool oracle_match(const struct oracle *o, uint32_t vmid) {
  char text[16];
  bool hit = false;

  if (o->exact_count == 0 && o->regex_count == 0)
    return true;
  for (size_t i = 0; i < o->exact_count; i++)
    hit = hit || o->exact[i] == vmid;
  snprintf(text, sizeof(text), "%u", (unsigned)vmid);
  for (size_t i = 0; i < o->regex_count; i++)
    hit = hit || regexec(&o->regexes[i], text, 0, NULL, 0) == 0;
  return hit != o->ignore;
}

static void check_add(struct vmid_select *s, struct oracle *o,
                      const char *entry, size_t error_size) {
  char error[256];
  int want = oracle_add(o, entry);
  int r;

  memset(error, FILL, sizeof(error));
  r = vmid_select_add(s, entry, error, error_size);
  FUZZ_CHECK(r == want);
  if (r == 0) {
    /* The message is written only for a refusal. */
    FUZZ_CHECK(error[0] == FILL);
  } else {
    FUZZ_CHECK(memchr(error, '\0', error_size) != NULL);
    FUZZ_CHECK(error_size == 1 || error[0] != '\0');
  }
  FUZZ_CHECK(error[error_size] == FILL);
}

/* The VMIDs whose match is checked: the bounds, each exact entry and its
 * neighbours, and a few that short expressions tend to hit. */
static void check_matches(const struct vmid_select *s, const struct oracle *o) {
  static const uint32_t fixed[] = {
      VMID_MIN, VMID_MIN + 1, 101, 110, 199, 999, 1000, 123456789, VMID_MAX};

  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
    FUZZ_CHECK(vmid_select_match(s, fixed[i]) == oracle_match(o, fixed[i]));
  for (size_t i = 0; i < o->exact_count; i++)
    for (uint32_t v = o->exact[i] - 1; v <= o->exact[i] + 1; v++)
      FUZZ_CHECK(vmid_select_match(s, v) == oracle_match(o, v));
}

static void oracle_free(struct oracle *o) {
  for (size_t i = 0; i < o->regex_count; i++)
    regfree(&o->regexes[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const size_t error_sizes[] = {128, 1, 16, 200};
  struct vmid_select *s = NULL;
  struct oracle o = {.exact_count = 0};
  char *text, *line, *save = NULL;
  size_t error_size, entries = 0;

  if (size == 0)
    return 0;
  o.ignore = data[0] & 1;
  error_size = error_sizes[(data[0] >> 1) & 3];
  text = malloc(size);
  FUZZ_CHECK(text != NULL);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  FUZZ_CHECK(vmid_select_new(&s) == 0);
  vmid_select_set_ignore_selected(s, o.ignore);
  /* strtok_r skips empty lines; the empty entry is checked on its own. */
  check_add(s, &o, "", error_size);
  for (line = strtok_r(text, "\n", &save); line && entries < ENTRIES_MAX;
       line = strtok_r(NULL, "\n", &save)) {
    check_add(s, &o, line, error_size);
    entries++;
  }
  check_matches(s, &o);
  vmid_select_free(s);
  oracle_free(&o);
  free(text);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * VMID select list (see vmid_select.h): exact entries in a sorted array for
 * bsearch, regular expressions tried in order.  Consulted once per newly
 * discovered guest, never on the per-interval path.
 */
#include "pvecg/vmid_select.h"

#include "pvecg/vmid.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vmid_select {
  uint32_t *exact;
  size_t exact_count;
  regex_t *regexes;
  size_t regex_count;
  bool ignore_selected;
};

int vmid_select_new(struct vmid_select **ret) {
  struct vmid_select *s = calloc(1, sizeof(*s));
  if (!s)
    return -ENOMEM;
  *ret = s;
  return 0;
}

void vmid_select_free(struct vmid_select *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->regex_count; i++)
    regfree(&s->regexes[i]);
  free(s->regexes);
  free(s->exact);
  free(s);
}

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static int add_exact(struct vmid_select *s, uint32_t vmid) {
  uint32_t *grown = realloc(s->exact, (s->exact_count + 1) * sizeof(*grown));
  if (!grown)
    return -ENOMEM;
  s->exact = grown;
  s->exact[s->exact_count++] = vmid;
  qsort(s->exact, s->exact_count, sizeof(*s->exact), compare_u32);
  return 0;
}

/*
 * Why a pattern is refused before regcomp, or NULL.  glibc's regcomp takes
 * time and memory exponential in stacked and nested repetitions
 * ("/a{99}{99}{99}/" takes gigabytes, "/^1****+++/" minutes, eight nested
 * "(...*)+" seconds), and collectd's config must not be able to stall it.
 * Adjacent repetition operators are undefined in POSIX EREs anyway, and a
 * VMID has at most 9 digits, so these limits cost no useful pattern.
 */
static const char *pattern_problem(const char *pattern, size_t len) {
  size_t repeats = 0, counts = 0, digits = 0;
  bool in_count = false, after_repeat = false;
  if (len > VMID_SELECT_PATTERN_MAX)
    return "longer than 64 characters";
  for (size_t i = 0; i < len; i++) {
    char c = pattern[i];
    bool repeat = strchr("*+?{", c) != NULL;
    if (repeat && after_repeat)
      return "a repetition operator right after another";
    repeats += repeat;
    counts += c == '{';
    after_repeat = (repeat && c != '{') || (in_count && c == '}');
    in_count = c == '{' || (in_count && c != '}');
    digits = in_count && c >= '0' && c <= '9' ? digits + 1 : 0;
    if (digits > 1)
      return "a repetition count above 9";
  }
  if (repeats > VMID_SELECT_REPEATS_MAX)
    return "more than 6 repetition operators";
  if (counts > VMID_SELECT_COUNTS_MAX)
    return "more than 2 counted repetitions";
  return NULL;
}

static int add_regex(struct vmid_select *s, const char *entry, size_t len,
                     char *error, size_t error_size) {
  const char *problem = pattern_problem(entry + 1, len - 2);
  if (problem != NULL) {
    snprintf(error, error_size, "regular expression %s refused: %s", entry,
             problem);
    return -EINVAL;
  }
  char *pattern = strndup(entry + 1, len - 2);
  regex_t *grown =
      realloc(s->regexes, (s->regex_count + 1) * sizeof(*s->regexes));
  if (!pattern || !grown) {
    free(pattern);
    if (grown)
      s->regexes = grown;
    return -ENOMEM;
  }
  s->regexes = grown;
  int rc =
      regcomp(&s->regexes[s->regex_count], pattern, REG_EXTENDED | REG_NOSUB);
  free(pattern);
  if (rc != 0) {
    char why[128];
    regerror(rc, &s->regexes[s->regex_count], why, sizeof(why));
    regfree(&s->regexes[s->regex_count]);
    snprintf(error, error_size, "invalid regular expression %s: %s", entry,
             why);
    return -EINVAL;
  }
  s->regex_count++;
  return 0;
}

int vmid_select_add(struct vmid_select *s, const char *entry, char *error,
                    size_t error_size) {
  size_t len = strlen(entry);
  if (len >= 2 && entry[0] == '/' && entry[len - 1] == '/')
    return add_regex(s, entry, len, error, error_size);
  uint32_t vmid;
  if (vmid_parse_string(entry, &vmid) < 0) {
    snprintf(error, error_size,
             "\"%s\" is neither a VMID (%u..%u, no leading zero) nor a "
             "\"/regex/\"",
             entry, VMID_MIN, VMID_MAX);
    return -EINVAL;
  }
  return add_exact(s, vmid);
}

void vmid_select_set_ignore_selected(struct vmid_select *s, bool ignore) {
  s->ignore_selected = ignore;
}

static bool matches_entry(const struct vmid_select *s, uint32_t vmid) {
  if (s->exact_count > 0 &&
      bsearch(&vmid, s->exact, s->exact_count, sizeof(*s->exact), compare_u32))
    return true;
  char text[VMID_STRING_SIZE + 1];
  snprintf(text, sizeof(text), "%u", (unsigned)vmid);
  for (size_t i = 0; i < s->regex_count; i++)
    if (regexec(&s->regexes[i], text, 0, NULL, 0) == 0)
      return true;
  return false;
}

bool vmid_select_match(const struct vmid_select *s, uint32_t vmid) {
  if (s->exact_count == 0 && s->regex_count == 0)
    return true;
  return matches_entry(s, vmid) != s->ignore_selected;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for the words the pvecg command takes as option values:
 * export_format_parse and export_prefix_problem
 * (src/exporting/export_format.c), export_names_parse
 * (src/exporting/export_names.c), rrddata_timeframe_parse
 * (src/reading/rrddata.c) and graph_what_parse (src/reading/graph_def.c).
 * Checks, beyond memory safety: each parser accepts exactly the words its
 * header documents, listed here again, and returns the matching enumerator; a
 * refusal is -EINVAL with *ret untouched; a metric prefix is refused exactly
 * when it is empty, longer than 64 bytes, has a byte other than letters,
 * digits, '_', '-' and '.', or an empty part between dots.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pvecg/export_format.h"
#include "fuzz_check.h"
#include "pvecg/graph_def.h"
#include "pvecg/rrddata.h"

#define SENTINEL 0x5a5a

struct word {
  const char *text;
  int value;
};

#define WORD_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct word formats[] = {{"graphite", EXPORT_GRAPHITE},
                                      {"influx", EXPORT_INFLUX},
                                      {"csv", EXPORT_CSV},
                                      {"json", EXPORT_JSON},
                                      {"openmetrics", EXPORT_OPENMETRICS},
                                      {"prometheus", EXPORT_PROMETHEUS},
                                      {"remote-write", EXPORT_REMOTE_WRITE}};

static const struct word names[] = {{"pve", EXPORT_NAMES_PVE},
                                    {"pvecg", EXPORT_NAMES_PVECG}};

static const struct word timeframes[] = {
    {"hour", RRDDATA_HOUR}, {"day", RRDDATA_DAY},
    {"week", RRDDATA_WEEK}, {"month", RRDDATA_MONTH},
    {"year", RRDDATA_YEAR}, {"decade", RRDDATA_DECADE}};

static const struct word whats[] = {{"memory", GRAPH_MEMORY},
                                    {"pressure", GRAPH_PRESSURE},
                                    {"cpu", GRAPH_CPU},
                                    {"net", GRAPH_NET},
                                    {"disk", GRAPH_DISK}};

/* The listed value of s, or SENTINEL when it is not a listed word. */
static int lookup(const struct word *words, size_t count, const char *s) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(words[i].text, s) == 0)
      return words[i].value;
  return SENTINEL;
}

static void check_result(int r, int got, int want) {
  if (want != SENTINEL)
    FUZZ_CHECK(r == 0 && got == want);
  else
    FUZZ_CHECK(r == -EINVAL && got == SENTINEL);
}

static void check_words(const char *s) {
  enum export_format format = (enum export_format)SENTINEL;
  enum rrddata_timeframe timeframe = (enum rrddata_timeframe)SENTINEL;
  enum graph_what what = (enum graph_what)SENTINEL;
  enum export_names naming = (enum export_names)SENTINEL;
  int r;

  r = export_format_parse(s, &format);
  check_result(r, (int)format, lookup(formats, WORD_COUNT(formats), s));
  r = rrddata_timeframe_parse(s, &timeframe);
  check_result(r, (int)timeframe,
               lookup(timeframes, WORD_COUNT(timeframes), s));
  r = graph_what_parse(s, &what);
  check_result(r, (int)what, lookup(whats, WORD_COUNT(whats), s));
  r = export_names_parse(s, &naming);
  check_result(r, (int)naming, lookup(names, WORD_COUNT(names), s));
}

static bool prefix_acceptable(const char *s) {
  size_t n = strlen(s);

  if (n == 0 || n > 64 || s[0] == '.' || s[n - 1] == '.' ||
      strstr(s, "..") != NULL)
    return false;
  return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789_-.") == n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  const char *problem;

  FUZZ_CHECK(s != NULL);
  memcpy(s, data, size);
  s[size] = '\0';
  check_words(s);
  problem = export_prefix_problem(s);
  FUZZ_CHECK((problem == NULL) == prefix_acceptable(s));
  FUZZ_CHECK(problem == NULL || problem[0] != '\0');
  free(s);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A state directory's targets, for a person or for Prometheus (see
 * ship_status.h).
 */
#include "pvecg/ship_status.h"

#include "ship_state.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WHY_SIZE 512

static bool is_state_name(const char *name) {
  size_t len = strlen(name), suffix = strlen(".state");
  return len == SHIP_ID_SIZE - 1 + suffix &&
         strcmp(name + len - suffix, ".state") == 0 &&
         strspn(name, "0123456789abcdef") == SHIP_ID_SIZE - 1;
}

static void print_time(FILE *out, const char *what, time_t t, time_t now) {
  char when[64] = "never";
  struct tm tm;
  if (t > 0 && localtime_r(&t, &tm) != NULL)
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
  fprintf(out, "  %-14s %s", what, when);
  if (t > 0)
    fprintf(out, " (%lld s ago)", (long long)(now - t));
  fputc('\n', out);
}

static void print_person(const struct ship_state *s, FILE *out) {
  const struct ship_stats *st = &s->stats;
  time_t now = time(NULL);
  fprintf(out, "%s (state %s)\n", s->target, s->id);
  fprintf(out, "  %-14s %zu\n", "files", s->count);
  fprintf(out, "  %-14s %lld s\n", "lag", (long long)st->lag);
  print_time(out, "last success", st->last_success, now);
  print_time(out, "last failure", st->last_failure, now);
  fprintf(out,
          "  %-14s %" PRIu64 " sent, %" PRIu64 " in failed batches (%" PRIu64
          " batches), %" PRIu64 " points dropped by the store\n",
          "rows", st->rows_sent, st->rows_failed, st->batches_failed,
          st->dropped);
}

/* A label value as the text format wants it. */
static void print_label(FILE *out, const char *v) {
  for (; *v; v++) {
    if (*v == '\\' || *v == '"')
      fputc('\\', out);
    if (*v == '\n')
      fputs("\\n", out);
    else
      fputc(*v, out);
  }
}

struct family {
  const char *name, *type, *help;
};

static const struct family families[] = {
    {"pvecg_ship_lag_seconds", "gauge",
     "Seconds of rows the files held that the store had not acknowledged, "
     "at the last pass."},
    {"pvecg_ship_rows_sent_total", "counter", "Rows the store acknowledged."},
    {"pvecg_ship_rows_failed_total", "counter",
     "Rows of batches the store did not take (sent again later)."},
    {"pvecg_ship_batches_failed_total", "counter",
     "Batches the store did not take."},
    {"pvecg_ship_points_dropped_total", "counter",
     "Points the store said it dropped of batches it took."},
    {"pvecg_ship_last_success_timestamp_seconds", "gauge",
     "When the store last acknowledged rows."},
    {"pvecg_ship_files", "gauge", "Files with a cursor."},
};

static double value_of(const struct ship_state *s, size_t family) {
  const struct ship_stats *st = &s->stats;
  double v[] = {(double)st->lag,         (double)st->rows_sent,
                (double)st->rows_failed, (double)st->batches_failed,
                (double)st->dropped,     (double)st->last_success,
                (double)s->count};
  return v[family];
}

/* OpenMetrics names a counter's family without its samples' "_total". */
static void write_meta(const struct family *f, bool openmetrics, FILE *out) {
  size_t len = strlen(f->name), suffix = strlen("_total");
  bool counter = strcmp(f->type, "counter") == 0;
  int n = openmetrics && counter ? (int)(len - suffix) : (int)len;
  fprintf(out, "# HELP %.*s %s\n# TYPE %.*s %s\n", n, f->name, f->help, n,
          f->name, f->type);
}

static void print_prometheus(const struct ship_state *states, size_t n,
                             bool openmetrics, FILE *out) {
  for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
    write_meta(&families[f], openmetrics, out);
    for (size_t i = 0; i < n; i++) {
      fprintf(out, "%s{target=\"", families[f].name);
      print_label(out, states[i].target);
      fprintf(out, "\",state=\"%s\"} %.17g\n", states[i].id,
              value_of(&states[i], f));
    }
  }
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The state files' names, sorted. */
static int list_states(const char *dir, char ***ret, size_t *n) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return -errno;
  char **names = NULL;
  size_t count = 0;
  struct dirent *e;
  int r = 0;
  while (r == 0 && (e = readdir(d)) != NULL) {
    if (!is_state_name(e->d_name))
      continue;
    char **grown = realloc(names, (count + 1) * sizeof(*names));
    if (grown == NULL || (grown[count] = strdup(e->d_name)) == NULL)
      r = -ENOMEM;
    if (grown != NULL)
      names = grown;
    if (r == 0)
      count++;
  }
  closedir(d);
  if (r < 0) {
    for (size_t i = 0; i < count; i++)
      free(names[i]);
    free(names);
    return r;
  }
  if (count > 1)
    qsort(names, count, sizeof(*names), compare_names);
  *ret = names;
  *n = count;
  return r;
}

/* Every state of dir (names sorted); *loaded of them read.  Problems to
 * err (NULL: not said).  Returns 0, 1 when one could not be read, or -1
 * when the directory cannot be. */
static int read_states(const char *dir, struct ship_state **ret, size_t *loaded,
                       FILE *err) {
  char **names = NULL;
  size_t n = 0;
  int r = list_states(dir, &names, &n);
  if (r < 0) {
    if (err != NULL)
      fprintf(err, "pvecg ship: %s: %s\n", dir, strerror(-r));
    return -1;
  }
  struct ship_state *states = calloc(n ? n : 1, sizeof(*states));
  int status = states == NULL ? 1 : 0;
  *loaded = 0;
  for (size_t i = 0; states != NULL && i < n; i++) {
    char path[PATH_MAX], why[WHY_SIZE];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    if (ship_state_read(path, &states[*loaded], why, sizeof(why)) == 0)
      (*loaded)++;
    else {
      if (err != NULL)
        fprintf(err, "pvecg ship: %s: %s\n", path, why);
      status = 1;
    }
  }
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  *ret = states;
  return status;
}

static void free_states(struct ship_state *states, size_t n) {
  for (size_t i = 0; i < n; i++)
    ship_state_free(&states[i]);
  free(states);
}

int ship_status_print(const char *dir, bool prometheus, FILE *out, FILE *err) {
  struct ship_state *states = NULL;
  size_t loaded = 0;
  int status = read_states(dir, &states, &loaded, err);
  if (status < 0)
    return 1;
  if (prometheus)
    print_prometheus(states, loaded, false, out);
  else if (loaded == 0 && status == 0)
    fprintf(out, "no target has been shipped to from %s\n", dir);
  for (size_t i = 0; !prometheus && i < loaded; i++)
    print_person(&states[i], out);
  free_states(states, loaded);
  return status;
}

void ship_status_metrics(const char *dir, bool openmetrics, FILE *out) {
  struct ship_state *states = NULL;
  size_t loaded = 0;
  if (read_states(dir, &states, &loaded, NULL) < 0)
    loaded = 0; /* the families, without samples */
  print_prometheus(states, loaded, openmetrics, out);
  free_states(states, loaded);
}

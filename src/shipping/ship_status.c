/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A state directory's targets, for a person or for Prometheus (see
 * ship_status.h).
 */
#include "pvecg/ship_status.h"

#include "ship_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

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

/* ---- clusters ----------------------------------------------------------- */

/* A key's cluster: "prod" of "prod/pve-vm-9.0/196", "" of
 * "pve-vm-9.0/196" (names hold no '/'); its length in *len. */
static const char *key_cluster(const char *key, size_t *len) {
  const char *first = strchr(key, '/');
  bool named = first != NULL && strchr(first + 1, '/') != NULL;
  *len = named ? (size_t)(first - key) : 0;
  return key;
}

static bool has_named(const struct ship_state *s) {
  for (size_t i = 0; i < s->count; i++) {
    size_t len;
    key_cluster(s->entry[i].key, &len);
    if (len > 0)
      return true;
  }
  return false;
}

/* What the state says of one cluster's files: how many, and the lag as
 * the shipper reckons it (ship.c), over them alone. */
struct cluster_sum {
  char name[SHIP_KEY_SIZE];
  size_t files;
  time_t lag;
};

static void add_entry(struct cluster_sum *sums, size_t *n,
                      const struct ship_entry *e) {
  size_t len, i;
  const char *c = key_cluster(e->key, &len);
  for (i = 0; i < *n; i++)
    if (strlen(sums[i].name) == len && strncmp(sums[i].name, c, len) == 0)
      break;
  if (i == *n)
    snprintf(sums[(*n)++].name, sizeof(sums->name), "%.*s", (int)len, c);
  time_t newest = e->last_update / 60 * 60; /* the layouts' step */
  sums[i].files++;
  if (e->acked.t < newest && newest - e->acked.t > sums[i].lag)
    sums[i].lag = newest - e->acked.t;
}

static int by_cluster(const void *a, const void *b) {
  return strcmp(((const struct cluster_sum *)a)->name,
                ((const struct cluster_sum *)b)->name);
}

/* The state's clusters ("" first, then by name) with their sums; NULL
 * (none) without named clusters or memory.  Freed by the caller. */
static struct cluster_sum *sum_clusters(const struct ship_state *s, size_t *n) {
  *n = 0;
  if (!has_named(s))
    return NULL;
  struct cluster_sum *sums = calloc(s->count, sizeof(*sums));
  for (size_t i = 0; sums != NULL && i < s->count; i++)
    add_entry(sums, n, &s->entry[i]);
  if (sums != NULL)
    qsort(sums, *n, sizeof(*sums), by_cluster);
  return sums;
}

static void print_clusters(const struct ship_state *s, FILE *out) {
  size_t n;
  struct cluster_sum *sums = sum_clusters(s, &n);
  for (size_t i = 0; i < n; i++)
    fprintf(out, "  cluster %-6s %zu files, lag %lld s\n",
            sums[i].name[0] ? sums[i].name : "\"\"", sums[i].files,
            (long long)sums[i].lag);
  free(sums);
}

/* ---- the forms ---------------------------------------------------------- */

static const char *const condition_name[] = {"taking", "away", "refused"};
static const char *const skip_name[] = {"too_large", "unparsable"};

/* Remote write's samples: taken, and refused (a file's rows the store
 * refused alone), whose rows were passed (logged only where there were
 * samples). */
static void print_samples(const struct ship_stats *st, FILE *out) {
  uint64_t refused = 0;
  for (size_t r = 0; r < STORE_REFUSALS; r++)
    refused += st->samples_refused_by[r];
  if (st->samples_sent == 0 && refused == 0)
    return;
  fprintf(out, "  %-14s %" PRIu64 " taken, %" PRIu64 " refused:", "samples",
          st->samples_sent, refused);
  for (size_t r = 0; r < STORE_REFUSALS; r++)
    fprintf(out, "%s %s %" PRIu64, r ? "," : "",
            store_refusal_name((enum store_refusal)r),
            st->samples_refused_by[r]);
  fprintf(out, " (refused rows are passed)\n");
}

/* What the store answered: its condition, the latest refusal, what it
 * dropped and would not take, the request size it takes. */
static void print_answers(const struct ship_stats *st, time_t now, FILE *out) {
  static const char *const says[] = {
      "takes the rows", "away (the rows wait, sent when it is back)",
      "refuses the target (the rows wait: see the refusal)"};
  fprintf(out, "  %-14s %s\n", "store", says[st->condition]);
  if (st->refusal_at > 0) {
    print_time(out, "last refusal", st->refusal_at, now);
    fprintf(out, "  %-14s HTTP %d: %s\n", "", st->refusal_status, st->refusal);
  }
  fprintf(out, "  %-14s", "dropped");
  for (size_t r = 0; r < STORE_REASONS; r++)
    fprintf(out, "%s %s %" PRIu64, r ? "," : "",
            store_reason_name((enum store_reason)r), st->dropped_by[r]);
  fprintf(out, " (points, by the store, of batches it took)\n");
  fprintf(out,
          "  %-14s too_large %" PRIu64 ", unparsable %" PRIu64
          " (points the store would not take alone)\n",
          "skipped", st->skipped[0], st->skipped[1]);
  if (st->batch_cap > 0)
    fprintf(out,
            "  %-14s at most %" PRIu64 " bytes a request (the store "
            "answered 413 for more)\n",
            "batches", st->batch_cap);
  fprintf(out, "  %-14s %" PRIu64 " refused as the target's fault\n", "",
          st->refused);
  print_samples(st, out);
}

static void print_person(const struct ship_state *s, FILE *out) {
  const struct ship_stats *st = &s->stats;
  time_t now = time(NULL);
  fprintf(out, "%s (state %s)\n", s->target, s->id);
  fprintf(out, "  %-14s %zu\n", "files", s->count);
  print_clusters(s, out);
  fprintf(out, "  %-14s %lld s\n", "lag", (long long)st->lag);
  print_time(out, "last success", st->last_success, now);
  print_time(out, "last failure", st->last_failure, now);
  fprintf(out,
          "  %-14s %" PRIu64 " sent, %" PRIu64 " in failed batches (%" PRIu64
          " batches), %" PRIu64 " points dropped by the store\n",
          "rows", st->rows_sent, st->rows_failed, st->batches_failed,
          st->dropped);
  print_answers(st, now, out);
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
    {"pvecg_ship_last_success_timestamp_seconds", "gauge",
     "When the store last acknowledged rows."},
    {"pvecg_ship_files", "gauge", "Files with a cursor."},
    {"pvecg_ship_batches_refused_total", "counter",
     "Batches the store refused as the target's fault (token, URL)."},
    {"pvecg_ship_request_bytes_limit", "gauge",
     "The largest request the store takes, learned from a 413 (0: none "
     "met)."},
    {"pvecg_ship_samples_sent_total", "counter",
     "Remote write: samples of requests the store took."},
};

static double value_of(const struct ship_state *s, size_t family) {
  const struct ship_stats *st = &s->stats;
  double v[] = {(double)st->lag,          (double)st->rows_sent,
                (double)st->rows_failed,  (double)st->batches_failed,
                (double)st->last_success, (double)s->count,
                (double)st->refused,      (double)st->batch_cap,
                (double)st->samples_sent};
  return v[family];
}

/* Families with a label of their own beside target and state: one
 * sample per reason, kind or condition. */
static const struct family labelled[] = {
    {"pvecg_ship_points_dropped_total", "counter",
     "Points the store said it dropped of batches it took, by reason."},
    {"pvecg_ship_points_skipped_total", "counter",
     "Points the store would not take even alone, skipped, by reason."},
    {"pvecg_ship_store_condition", "gauge",
     "1 for the store's condition at the last pass (taking, away, "
     "refused), 0 for the others."},
    {"pvecg_ship_last_refusal_timestamp_seconds", "gauge",
     "When the store last answered other than taking, with its status "
     "(0: no answer)."},
    {"pvecg_ship_samples_refused_total", "counter",
     "Remote write: samples the store refused (a file's rows refused "
     "alone, passed), by reason."},
};

/* The label and value of a labelled family's i-th sample; false past
 * the last. */
static bool labelled_sample(const struct ship_stats *st, size_t family,
                            size_t i, char *label, size_t size, double *v) {
  switch (family) {
  case 0:
    snprintf(label, size, "reason=\"%s\"",
             store_reason_name((enum store_reason)i));
    *v = (double)st->dropped_by[i < STORE_REASONS ? i : 0];
    return i < STORE_REASONS;
  case 1:
    snprintf(label, size, "reason=\"%s\"", skip_name[i < 2 ? i : 0]);
    *v = (double)st->skipped[i < 2 ? i : 0];
    return i < 2;
  case 2:
    snprintf(label, size, "condition=\"%s\"", condition_name[i < 3 ? i : 0]);
    *v = (unsigned)st->condition == i;
    return i < 3;
  case 3:
    snprintf(label, size, "status=\"%d\"", st->refusal_status);
    *v = (double)st->refusal_at;
    return i == 0 && st->refusal_at > 0;
  default:
    snprintf(
        label, size, "reason=\"%s\"",
        store_refusal_name((enum store_refusal)(i < STORE_REFUSALS ? i : 0)));
    *v = (double)st->samples_refused_by[i < STORE_REFUSALS ? i : 0];
    return i < STORE_REFUSALS;
  }
}

static void print_labelled(const struct ship_state *states, size_t n,
                           bool openmetrics, FILE *out);

/* OpenMetrics names a counter's family without its samples' "_total". */
static void write_meta(const struct family *f, bool openmetrics, FILE *out) {
  size_t len = strlen(f->name), suffix = strlen("_total");
  bool counter = strcmp(f->type, "counter") == 0;
  int n = openmetrics && counter ? (int)(len - suffix) : (int)len;
  fprintf(out, "# HELP %.*s %s\n# TYPE %.*s %s\n", n, f->name, f->help, n,
          f->name, f->type);
}

/* Per cluster, only for states with named clusters (so that a data
 * directory without them gives exactly the families above). */
static const struct family cluster_families[] = {
    {"pvecg_ship_cluster_files", "gauge", "Files with a cursor, per cluster."},
    {"pvecg_ship_cluster_lag_seconds", "gauge",
     "Seconds of rows the cluster's files held that the store had not "
     "acknowledged, at the last pass."},
};

static void print_cluster_samples(const struct family *f, size_t which,
                                  const struct ship_state *s, FILE *out) {
  size_t n;
  struct cluster_sum *sums = sum_clusters(s, &n);
  for (size_t i = 0; i < n; i++) {
    fprintf(out, "%s{target=\"", f->name);
    print_label(out, s->target);
    fprintf(out, "\",state=\"%s\",cluster=\"", s->id);
    print_label(out, sums[i].name);
    fprintf(out, "\"} %.17g\n",
            which == 0 ? (double)sums[i].files : (double)sums[i].lag);
  }
  free(sums);
}

static void print_cluster_families(const struct ship_state *states, size_t n,
                                   bool openmetrics, FILE *out) {
  bool any = false;
  for (size_t i = 0; i < n; i++)
    any |= has_named(&states[i]);
  for (size_t f = 0; any && f < 2; f++) {
    write_meta(&cluster_families[f], openmetrics, out);
    for (size_t i = 0; i < n; i++)
      print_cluster_samples(&cluster_families[f], f, &states[i], out);
  }
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
  print_labelled(states, n, openmetrics, out);
  print_cluster_families(states, n, openmetrics, out);
}

static void print_labelled(const struct ship_state *states, size_t n,
                           bool openmetrics, FILE *out) {
  for (size_t f = 0; f < sizeof(labelled) / sizeof(labelled[0]); f++) {
    write_meta(&labelled[f], openmetrics, out);
    for (size_t s = 0; s < n; s++) {
      char label[64];
      double v;
      for (size_t i = 0;
           labelled_sample(&states[s].stats, f, i, label, sizeof(label), &v);
           i++) {
        fprintf(out, "%s{target=\"", labelled[f].name);
        print_label(out, states[s].target);
        fprintf(out, "\",state=\"%s\",%s} %.17g\n", states[s].id, label, v);
      }
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
 * err (NULL: not logged).  Returns 0, 1 when one could not be read, or -1
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

bool ship_status_running(const char *dir, char *pid, size_t size) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/lock", dir);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ssize_t n = held ? pread(fd, pid, size - 1, 0) : 0;
  pid[n > 0 ? n : 0] = '\0';
  pid[strcspn(pid, "\n")] = '\0';
  close(fd); /* a shared lock taken goes with it */
  return held;
}

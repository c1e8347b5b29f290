/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg export: the history in RRD files (ours or Proxmox's pve-vm-9.0 and
 * pve-node-9.0 files, and the legacy pve2 ones before them) in Proxmox's
 * InfluxDB, Graphite or Prometheus names (or the RRD's own), CSV or JSON
 * lines, one point per stored row, to stdout, a line listener or an HTTP
 * write endpoint.  This file opens the sender and runs the export over the
 * chosen files; the options are export_args.c's, the rows, formats and
 * senders src/exporting's and src/sending's.
 */
#include "commands.h"
#include "export_args.h"
#include "export_progress.h"
#include "pvecg/data_clusters.h"
#include "pvecg/export_run.h"
#include "pvecg/guest_directories.h"
#include "pvecg/http_sender.h"
#include "pvecg/net_sender.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "pvecg export"
#define EXPORT_DEFAULT_TIMEOUT 10.0
#define DEFAULT_CONFIG_DIR "/etc/pve"
#define ERR_SIZE 1024
#define SKIPS_LOGGED_MAX 10 /* lines skipped logged one by one */

/* Lines the receiver took so far. */
static size_t lines_sent(struct export_args *a) {
  struct http_sender_stats st = {0};
  if (a->run.http == NULL)
    return net_sender_lines_sent(a->run.net);
  http_sender_stats(a->run.http, &st);
  return a->run.format == EXPORT_REMOTE_WRITE ? st.samples : st.lines;
}

/* Lines the server would not take alone, each logged (the first few). */
static void report_skipped(struct export_args *a,
                           const struct http_sender_stats *st) {
  struct http_sender_skip skip[SKIPS_LOGGED_MAX];
  size_t n = http_sender_take_skips(a->run.http, 0, skip, SKIPS_LOGGED_MAX);
  size_t printed = 0;
  for (size_t i = 0; i < n; i++) {
    if (skip[i].why == STORE_REFUSED)
      continue; /* remote write's: the samples refused are logged below */
    printed++;
    fprintf(stderr,
            CMD ": batch %zu: a line %s was skipped (time %s): %s: %s\n",
            skip[i].batch,
            skip[i].why == STORE_BAD_LINE ? "the server cannot parse"
                                          : "too large for the server",
            skip[i].time, skip[i].line, skip[i].words);
  }
  size_t all = st->skipped[0] + st->skipped[1];
  if (all > printed)
    fprintf(stderr, CMD ": and %zu more lines skipped\n", all - printed);
}

/* What the server kept back from batches it otherwise took (InfluxDB's
 * "partial write", by reason), the lines it would not take, the size it
 * takes: logged once at the end. */
static void report_dropped(struct export_args *a) {
  struct http_sender_stats st = {0};
  if (a->run.http == NULL)
    return;
  http_sender_stats(a->run.http, &st);
  if (st.partial > 0) {
    fprintf(stderr,
            CMD ": the server dropped %zu points of %zu batches it took "
                "otherwise: %s\n",
            st.dropped, st.partial, st.partial_answer);
    for (int r = 0; r < STORE_REASONS; r++)
      if (st.dropped_by[r] > 0)
        fprintf(stderr, CMD ": dropped as %s: %zu\n",
                store_reason_name((enum store_reason)r), st.dropped_by[r]);
  }
  report_skipped(a, &st);
  size_t cap = http_sender_cap(a->run.http);
  if (cap >= 1024)
    fprintf(stderr,
            CMD ": the server refused larger requests (HTTP 413): batches "
                "were cut to %zu bytes; --batch-bytes %zu does so from the "
                "start\n",
            cap, cap);
  else if (cap > 0) /* below --batch-bytes' least: only the limit helps */
    fprintf(stderr,
            CMD ": the server refused larger requests (HTTP 413): batches "
                "were cut to %zu bytes, less than --batch-bytes takes; raise "
                "the limit of the server or of the proxy in front of it\n",
            cap);
}

/* A target the server refuses: what fixes it. */
static void report_refusal(struct export_args *a) {
  struct store_answer f;
  if (a->run.http == NULL)
    return;
  http_sender_failure(a->run.http, &f);
  if (f.verdict == STORE_REFUSED && f.fix != NULL)
    fprintf(stderr, CMD ": %s\n", f.fix);
  else if (f.verdict == STORE_AWAY && f.retry_after > 0)
    fprintf(stderr, CMD ": the server asked to wait %u s before trying again\n",
            f.retry_after);
}

/* What fixes a refusal of old samples, per engine. */
#define FIX_TOO_OLD                                                            \
  "the engine takes samples older than its newest only within its "            \
  "out-of-order window: Prometheus' storage: tsdb: out_of_order_time_window "  \
  "(prometheus.yml, e.g. 30d, with a longer --storage.tsdb.retention.time), "  \
  "Mimir's -ingester.out-of-order-time-window, or import them into an "        \
  "empty one"

/* Remote write: the samples taken and refused, by refusal.  Samples
 * refused make the export's status 1: the history is not all in. */
static int report_remote(struct export_args *a, const char *shown) {
  struct http_sender_stats st = {0};
  http_sender_stats(a->run.http, &st);
  fprintf(stderr, CMD ": sent %zu samples in %zu request%s to %s", st.samples,
          st.requests, st.requests == 1 ? "" : "s", shown);
  if (st.refused == 0) {
    fputs("\n", stderr);
    return PVECG_EXIT_OK;
  }
  fprintf(stderr, "; %zu samples refused:", st.refused);
  for (int r = 0; r < STORE_REFUSALS; r++)
    if (st.refused_by[r] > 0)
      fprintf(stderr, " %s %zu", store_refusal_name((enum store_refusal)r),
              st.refused_by[r]);
  fprintf(stderr, "\n" CMD ": the server said: %s\n", st.refused_answer);
  if (st.refused_by[STORE_REFUSAL_TOO_OLD] +
          st.refused_by[STORE_REFUSAL_OUT_OF_ORDER] >
      0)
    fprintf(stderr, CMD ": " FIX_TOO_OLD "\n");
  return PVECG_EXIT_FAILURE;
}

/* The URL as messages show it: without user:password@. */
static void shown_url(const char *url, char *buf, size_t size) {
  const char *host = strstr(url, "://");
  host = host != NULL ? host + 3 : url;
  const char *at = strchr(host, '@');
  size_t len = strcspn(host, "/?#");
  if (at != NULL && (size_t)(at - host) < len)
    snprintf(buf, size, "%.*s%s", (int)(host - url), url, at + 1);
  else
    snprintf(buf, size, "%s", url);
}

static int report_end(struct export_args *a) {
  char shown[ERR_SIZE];
  shown_url(a->to != NULL ? a->to : "", shown, sizeof(shown));
  if (a->run.format == EXPORT_REMOTE_WRITE)
    return report_remote(a, shown);
  report_dropped(a);
  if (a->run.net != NULL || a->run.http != NULL)
    fprintf(stderr, CMD ": sent %zu lines (%zu values) to %s\n", lines_sent(a),
            a->run.total.values, shown);
  else if (fflush(stdout) != 0 || ferror(stdout)) {
    perror(CMD ": writing the output");
    return PVECG_EXIT_FAILURE;
  }
  return PVECG_EXIT_OK;
}

/* Every file in turn; a file that fails is reported and skipped, a
 * network error ends the export. */
static int export_all(struct export_args *a) {
  int status = PVECG_EXIT_OK;
  char err[ERR_SIZE] = "";
  struct export_progress progress;
  export_progress_begin(&progress, stderr, a->quiet, a->files.count);
  for (size_t i = 0; i < a->files.count && !a->run.net_failed; i++) {
    err[0] = '\0';
    if (export_run_file(&a->run, &a->files.file[i], err, sizeof(err)) != 0) {
      status = PVECG_EXIT_FAILURE;
      export_progress_end(&progress);
      if (!a->run.net_failed)
        fprintf(stderr, CMD ": %s\n", err);
    }
    export_progress_update(&progress, i + 1, a->run.total.values);
  }
  export_progress_end(&progress);
  if (export_run_end(&a->run, err, sizeof(err)) < 0 || a->run.net_failed) {
    char shown[ERR_SIZE];
    shown_url(a->to, shown, sizeof(shown));
    fprintf(stderr, CMD ": sending to %s: %s; %zu of %zu %s sent before\n",
            shown, err, lines_sent(a), a->run.total.lines,
            a->run.format == EXPORT_REMOTE_WRITE ? "samples" : "lines");
    report_refusal(a);
    return PVECG_EXIT_FAILURE;
  }
  int end = report_end(a);
  return status != PVECG_EXIT_OK ? status : end;
}

static int open_sender(struct export_args *a) {
  char err[ERR_SIZE];
  int r = 0;
  signal(SIGPIPE, SIG_IGN);
  if (a->http) {
    struct http_sender_options o;
    export_args_http_options(a, &o);
    r = http_sender_open(&o, &a->run.http, err, sizeof(err));
  } else {
    r = net_sender_open(&a->target, a->timeout, NULL, &a->run.net, err,
                        sizeof(err));
  }
  if (r < 0) {
    char shown[ERR_SIZE];
    shown_url(a->to, shown, sizeof(shown));
    fprintf(stderr, CMD ": %s: %s\n", shown, err);
  }
  return r;
}

static void close_senders(struct export_args *a) {
  net_sender_free(a->run.net);
  http_sender_free(a->run.http);
  a->run.net = NULL;
  a->run.http = NULL;
}

/* --cluster must name one of the data directory's clusters. */
static int check_cluster(const struct export_args *a,
                         const struct data_clusters *c) {
  if (a->cluster == NULL || c->count == 0 ||
      data_clusters_find(c, a->cluster) != NULL)
    return 0;
  fprintf(stderr, CMD ": --cluster %s: %s has no such cluster (", a->cluster,
          a->run.data_dir);
  for (size_t i = 0; i < c->count; i++)
    fprintf(stderr, "%s%s%s%s", i ? ", " : "",
            c->cluster[i].name[0] ? "" : "\"", c->cluster[i].name,
            c->cluster[i].name[0] ? "" : "\"");
  fputs(")\n", stderr);
  return -EINVAL;
}

/* Each --vmid/--node file's cluster: --cluster's, else the one that has
 * it (export_files_pick_cluster). */
static int place_files(struct export_args *a, const struct data_clusters *c) {
  char err[ERR_SIZE];
  for (size_t i = 0; i < a->files.count; i++) {
    struct export_file *f = &a->files.file[i];
    if (a->cluster != NULL)
      snprintf(f->cluster, sizeof(f->cluster), "%s", a->cluster);
    else if (c->count > 0 && data_clusters_named(c) &&
             export_files_pick_cluster(f, a->run.data_dir, c, err,
                                       sizeof(err)) < 0) {
      fprintf(stderr, CMD ": %s\n", err);
      return -EINVAL;
    }
  }
  return 0;
}

/* Which files: the clusters of a local data directory (none through a
 * daemon over TCP without --data-dir: then only --cluster names one). */
static int choose_files(struct export_args *a) {
  struct data_clusters c = {0};
  int r = a->run.data_dir != NULL ? data_clusters_scan(a->run.data_dir, &c) : 0;
  if (r < 0) {
    fprintf(stderr, CMD ": %s: %s\n", a->run.data_dir, strerror(-r));
    return PVECG_EXIT_FAILURE;
  }
  a->run.clusters_named = a->cluster != NULL || data_clusters_named(&c);
  if ((r = check_cluster(a, &c)) == 0) {
    if (!a->all) {
      r = place_files(a, &c);
      /* a guest's or node's pvecg files go with it */
      if (r == 0 && a->run.data_dir != NULL)
        r = export_files_add_extras(&a->files, a->run.data_dir);
    } else if (a->cluster != NULL)
      r = export_files_scan_cluster(&a->files, a->run.data_dir, a->cluster);
    else
      r = export_files_scan_all(&a->files, a->run.data_dir, &c);
    if (r < 0 && r != -EINVAL)
      fprintf(stderr, CMD ": %s: %s\n", a->run.data_dir, strerror(-r));
  }
  data_clusters_free(&c);
  return r == -EINVAL ? PVECG_EXIT_USAGE
         : r < 0      ? PVECG_EXIT_FAILURE
                      : PVECG_EXIT_OK;
}

static int run(struct export_args *a) {
  int r = choose_files(a);
  if (r != PVECG_EXIT_OK)
    return r;
  struct guest_directories *guests = NULL;
  if (a->run.names == EXPORT_NAMES_PVE &&
      (guests = guest_directories_new(a->config_dir)) == NULL) {
    fprintf(stderr, CMD ": out of memory\n");
    return PVECG_EXIT_FAILURE;
  }
  a->run.guest_dirs = guests;
  int status = PVECG_EXIT_FAILURE;
  if (a->to == NULL || open_sender(a) == 0) {
    if (export_run_begin(&a->run) < 0)
      fprintf(stderr, CMD ": cannot start: out of memory or bad --daemon\n");
    else
      status = export_all(a);
  }
  close_senders(a);
  guest_directories_free(guests);
  return status;
}

int cmd_export(int argc, char **argv) {
  struct export_args *a = calloc(1, sizeof(*a));
  if (a == NULL)
    return PVECG_EXIT_FAILURE;
  a->timeout = EXPORT_DEFAULT_TIMEOUT;
  a->config_dir = DEFAULT_CONFIG_DIR;
  a->run.cf = RRD_CF_AVERAGE;
  int r = export_args_parse(argc, argv, a);
  int status = r > 0 ? PVECG_EXIT_OK : r < 0 ? PVECG_EXIT_USAGE : run(a);
  if (r < 0)
    fputs(export_usage_text, stderr);
  export_files_free(&a->files);
  memset(a->token, 0, sizeof(a->token));
  free(a);
  return status;
}

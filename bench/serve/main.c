/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg-bench-serve: how fast a running `pvecg serve` answers, and what
 * it costs in memory (docs/performance.md).  serve-bench.sh makes
 * the files and starts the server; this program is the load:
 *
 *   pvecg-bench-serve --port P --path /api2/json/... [--clients N]
 *                     [--requests M] [--pid SERVER_PID] [--gzip]
 *
 * prints one line: requests answered and failed, the body's size,
 * requests per second, latency percentiles, and with --pid the server's
 * CPU time per request and its peak resident memory (VmHWM).
 */
#include "http_load.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out) {
  fputs("usage: pvecg-bench-serve --port P --path PATH [--clients N]\n"
        "                         [--requests M] [--pid SERVER_PID] [--gzip]\n",
        out);
}

/* The server's peak resident memory in KiB, or -1. */
static long peak_rss_kib(long pid) {
  char path[64], line[256];
  long kib = -1;
  snprintf(path, sizeof(path), "/proc/%ld/status", pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  while (fgets(line, sizeof(line), f) != NULL)
    if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
      break;
  fclose(f);
  return kib;
}

/* The server's CPU time (user + system) in seconds, or -1. */
static double cpu_seconds(long pid) {
  char path[64], text[1024];
  snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[n] = '\0';
  /* the fields after the command's name, which may hold spaces */
  const char *p = strrchr(text, ')');
  unsigned long utime, stime;
  if (p == NULL || sscanf(p + 2,
                          "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
                          "%*u %lu %lu",
                          &utime, &stime) != 2)
    return -1;
  return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static double percentile(const struct http_load_result *r, double p) {
  if (r->count == 0)
    return 0;
  size_t i = (size_t)(p / 100.0 * (double)(r->count - 1) + 0.5);
  return r->latency_ms[i];
}

static void report(const struct http_load *l, const struct http_load_result *r,
                   long pid, double cpu) {
  printf("clients %u  answered %zu  failed %zu  body %llu B  %.0f req/s  "
         "latency ms p50 %.2f p90 %.2f p99 %.2f max %.2f",
         l->clients, r->count, r->failed, (unsigned long long)r->body_bytes,
         r->seconds > 0 ? (double)r->count / r->seconds : 0, percentile(r, 50),
         percentile(r, 90), percentile(r, 99), percentile(r, 100));
  if (pid > 0 && cpu >= 0 && r->count > 0)
    printf("  server CPU %.2f ms/req", cpu * 1000 / (double)r->count);
  if (pid > 0)
    printf("  server VmHWM %ld KiB", peak_rss_kib(pid));
  putchar('\n');
}

int main(int argc, char **argv) {
  static const struct option options[] = {
      {"port", required_argument, NULL, 'p'},
      {"path", required_argument, NULL, 'u'},
      {"clients", required_argument, NULL, 'c'},
      {"requests", required_argument, NULL, 'n'},
      {"pid", required_argument, NULL, 'P'},
      {"gzip", no_argument, NULL, 'g'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  struct http_load l = {.clients = 1, .requests = 200};
  long pid = 0;
  int opt;
  while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    switch (opt) {
    case 'p':
      l.port = (unsigned short)strtoul(optarg, NULL, 10);
      break;
    case 'u':
      l.path = optarg;
      break;
    case 'c':
      l.clients = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'n':
      l.requests = (unsigned)strtoul(optarg, NULL, 10);
      break;
    case 'P':
      pid = strtol(optarg, NULL, 10);
      break;
    case 'g':
      l.gzip = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (l.port == 0 || l.path == NULL || l.path[0] != '/' || l.clients == 0 ||
      l.requests == 0 || optind != argc) {
    usage(stderr);
    return 2;
  }
  struct http_load_result r;
  double cpu = pid > 0 ? cpu_seconds(pid) : -1;
  if (http_load_run(&l, &r) != 0) {
    fputs("pvecg-bench-serve: no client could start\n", stderr);
    return 1;
  }
  double after = pid > 0 ? cpu_seconds(pid) : -1;
  report(&l, &r, pid, cpu >= 0 && after >= 0 ? after - cpu : -1);
  int failed = r.failed != 0;
  http_load_result_free(&r);
  return failed;
}

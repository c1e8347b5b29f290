/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collectd mode (see collectd_run.h).
 *
 * A round starts collectd five times (baseline; calibration, N rows back to
 * back; spaced calibration, N rows each after as much CPU as the sampler
 * spends on a guest; floor_rows, the floor's preads of the same files and
 * then N rows back to back, in the same collectd; pve_cgroup), in an order
 * rotating by round, and measures the floor and the sampler in this process
 * in between, back to back and at collectd's pace (intervals 1 s apart,
 * caches gone cold as they are for pve_cgroup in collectd); the ratio uses
 * the latter.  Each collectd runs --warmup seconds first (the sampler opens
 * its files, pve_rrd checks its files), then its CPU time is taken over K
 * intervals from a quiet moment between two intervals to the same moment K
 * seconds later, from the per-thread schedstat run times (ns), also split by
 * collectd's thread names (read threads, write threads, the rest) to show
 * which part costs more; utime+stime of /proc/<pid>/stat (10 ms ticks) is
 * reported beside it.  Per-guest figures are (run - baseline) / N, medians
 * over rounds.  With --writer rrdcached one daemon serves every run, and its
 * CPU over the same window counts with collectd's: the pipeline is both
 * processes.
 */
#include "collectd_run.h"

#include "batch_client.h"
#include "collectd_conf.h"
#include "collectd_proc.h"
#include "csv.h"
#include "daemon_proc.h"
#include "guest_procs.h"
#include "guest_tree.h"
#include "interrupt.h"
#include "readers.h"
#include "small_file.h"
#include "temp_dir.h"
#include "timing.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ROUNDS 3
#define DEFAULT_INTERVALS 30
#define DEFAULT_WARMUP 5
#define PRIME_TIMEOUT_S 600
/* The floor and the sampler at collectd's pace: intervals 1 s apart, over
 * long enough that the ratio's denominator is not the noisiest of its
 * terms (with 5 intervals it moved by a quarter from round to round). */
#define COLD_INTERVALS 20
#define COLD_GAP_MS 1000
/* Longer than any run of this mode (one round of 1,000 guests takes about
 * 7 minutes). */
#define DAEMON_WRITE_TIMEOUT_S (24 * 3600)

enum run_kind {
  RUN_BASELINE,
  RUN_CALIBRATION, /* N rows back to back */
  RUN_SPACED,      /* N rows, each after spacing_us of CPU */
  RUN_FLOOR_ROWS,  /* the floor's preads, then N rows back to back */
  RUN_PVE_CGROUP,
  RUN_KIND_COUNT,
};

static const char *const run_names[RUN_KIND_COUNT] = {
    [RUN_BASELINE] = "baseline",     [RUN_CALIBRATION] = "calibration",
    [RUN_SPACED] = "spaced",         [RUN_FLOOR_ROWS] = "floor_rows",
    [RUN_PVE_CGROUP] = "pve_cgroup",
};

struct collectd_bench {
  const struct bench_options *options;
  size_t guests;
  unsigned intervals, rounds, warmup, reader_intervals;
  unsigned spacing_us; /* the sampler's µs per guest, rounded */
  struct guest_tree tree;
  /* --ksm, --guest-procs: one idle process per guest */
  struct guest_procs procs;
  struct readers *readers;
  char dir[PATH_MAX], empty_root[PATH_MAX + 8];
  char floor_files[PATH_MAX + 16]; /* the floor's paths, for floor_rows */
  /* Per round: CPU µs per interval by schedstat and by ticks, and thread
   * timeslices (wake-ups) per interval. */
  double *cpu_us[RUN_KIND_COUNT], *tick_us[RUN_KIND_COUNT];
  double *daemon_us[RUN_KIND_COUNT]; /* of cpu_us: the daemon's share */
  struct daemon_proc daemon;         /* --writer rrdcached */
  char data_dir[PATH_MAX + 16];      /* pve_rrd's DataDir */
  double *slices[RUN_KIND_COUNT];
  /* Of cpu_us, collectd's threads by role: where the pipeline's CPU goes */
  double *role_us[PROC_THREAD_ROLE_COUNT][RUN_KIND_COUNT];
  double *role_slices[PROC_THREAD_ROLE_COUNT][RUN_KIND_COUNT];
  size_t fds[RUN_KIND_COUNT]; /* collectd's descriptors, last round */
  /* Per guest and interval, per round: back to back (warm caches) and one
   * interval per second (collectd's pace, as pve_cgroup reads). */
  double *floor_us, *sampler_us, *floor_cold_us, *sampler_cold_us;
  /* --writer rrdcached: the same rows handed over by a minimal client */
  struct batch_client_result handoff;
  bool has_handoff;
};

static const char *writer_name(enum bench_writer w) {
  return w == WRITER_RRD         ? "pve_rrd"
         : w == WRITER_RRDCACHED ? "pve_rrd through rrdcached"
                                 : "none";
}

static int start_run(struct collectd_bench *b, enum run_kind kind, pid_t *pid) {
  char conf_path[PATH_MAX], out[PATH_MAX + 32];
  struct collectd_conf conf = {
      .dir = b->dir,
      .name = run_names[kind],
      .cgroup_root = kind == RUN_PVE_CGROUP ? b->tree.root : b->empty_root,
      .memory_root = kind == RUN_PVE_CGROUP ? b->tree.memory_root : "",
      .dispatch_rows = kind == RUN_CALIBRATION || kind == RUN_SPACED ||
                               kind == RUN_FLOOR_ROWS
                           ? b->guests
                           : 0,
      .spacing_us = kind == RUN_SPACED ? b->spacing_us : 0,
      .floor_files = kind == RUN_FLOOR_ROWS ? b->floor_files : NULL,
      .options = b->options,
      .data_dir = b->data_dir,
      .daemon_address = b->daemon.pid > 0 ? b->daemon.address : NULL,
  };
  int err = collectd_conf_write(&conf, conf_path);
  if (err < 0)
    return err;
  snprintf(out, sizeof(out), "%s/%s.out", b->dir, run_names[kind]);
  *pid = collectd_proc_start(b->options->collectd, conf_path, out);
  return *pid < 0 ? (int)*pid : 0;
}

static int check_alive(const struct collectd_bench *b, enum run_kind kind,
                       pid_t pid) {
  if (collectd_proc_alive(pid))
    return 0;
  fprintf(stderr,
          "pvecg-bench: collectd (%s) exited early; see %s/%s.out "
          "and %s/%s.log\n",
          run_names[kind], b->dir, run_names[kind], b->dir, run_names[kind]);
  return -ECHILD;
}

/* The daemon's CPU ns so far (0 without one). */
static uint64_t daemon_ns(const struct collectd_bench *b) {
  struct proc_cpu c;
  return b->daemon.pid > 0 && proc_cpu_read(b->daemon.pid, &c) == 0
             ? c.runtime_ns
             : 0;
}

/* CPU µs per interval over K intervals of a running collectd (and of the
 * daemon it writes through). */
static int measure_cpu(struct collectd_bench *b, pid_t pid, unsigned round,
                       enum run_kind kind) {
  struct proc_cpu c0, c1;
  int err = collectd_proc_quiet_cpu(pid, &c0);
  if (err < 0)
    return err;
  uint64_t d0 = daemon_ns(b);
  uint64_t t0 = monotonic_ns();
  uint64_t end = t0 + (uint64_t)b->intervals * 1000000000u;
  for (uint64_t now = t0; now < end; now = monotonic_ns())
    if (!interruptible_sleep((double)(end - now) / 1e9))
      return -EINTR;
  if ((err = proc_cpu_read(pid, &c1)) < 0)
    return err;
  double seconds = (double)(monotonic_ns() - t0) / 1e9;
  long hz = sysconf(_SC_CLK_TCK);
  b->daemon_us[kind][round] = (double)(daemon_ns(b) - d0) / 1e3 / seconds;
  b->cpu_us[kind][round] =
      (double)(c1.runtime_ns - c0.runtime_ns) / 1e3 / seconds +
      b->daemon_us[kind][round];
  b->tick_us[kind][round] =
      (double)(c1.ticks - c0.ticks) * 1e6 / (double)hz / seconds;
  b->slices[kind][round] = (double)(c1.timeslices - c0.timeslices) / seconds;
  for (int t = 0; t < PROC_THREAD_ROLE_COUNT; t++) {
    b->role_us[t][kind][round] =
        (double)(c1.role_ns[t] - c0.role_ns[t]) / 1e3 / seconds;
    b->role_slices[t][kind][round] =
        (double)(c1.role_slices[t] - c0.role_slices[t]) / seconds;
  }
  proc_fd_count(pid, &b->fds[kind]);
  return 0;
}

static int collectd_once(struct collectd_bench *b, enum run_kind kind,
                         unsigned round) {
  pid_t pid;
  int err = start_run(b, kind, &pid);
  if (err < 0)
    return err;
  if (!interruptible_sleep(b->warmup))
    err = -EINTR;
  if (err == 0)
    err = check_alive(b, kind, pid);
  if (err == 0)
    err = measure_cpu(b, pid, round, kind);
  if (err == 0)
    err = check_alive(b, kind, pid);
  collectd_proc_stop(pid);
  return err;
}

static int measure_readers(struct collectd_bench *b, unsigned round) {
  int err = 0;
  struct readers *r = b->readers;
  b->floor_us[round] =
      readers_time(r, METHOD_FLOOR, b->reader_intervals, 0, &err);
  if (err == 0)
    b->sampler_us[round] =
        readers_time(r, METHOD_SAMPLER, b->reader_intervals, 0, &err);
  if (err == 0)
    b->floor_cold_us[round] =
        readers_time(r, METHOD_FLOOR, COLD_INTERVALS, COLD_GAP_MS, &err);
  if (err == 0)
    b->sampler_cold_us[round] =
        readers_time(r, METHOD_SAMPLER, COLD_INTERVALS, COLD_GAP_MS, &err);
  return err;
}

static size_t count_rrd_files(const struct collectd_bench *b) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof(path), "%s/pve-vm-9.0", b->data_dir);
  return temp_dir_entries(path);
}

/* pve_rrd creates a file per guest on first sight (~1.3 MiB each): done
 * once before the rounds, so that no measured run pays for creation. */
static int prime_rrd_files(struct collectd_bench *b) {
  pid_t pid;
  int err = start_run(b, RUN_CALIBRATION, &pid);
  if (err < 0)
    return err;
  uint64_t start = monotonic_ns();
  while (err == 0 && count_rrd_files(b) < b->guests) {
    if (!interruptible_sleep(0.5))
      err = -EINTR;
    else if ((err = check_alive(b, RUN_CALIBRATION, pid)) == 0 &&
             monotonic_ns() - start > PRIME_TIMEOUT_S * 1000000000ull)
      err = -ETIMEDOUT;
  }
  collectd_proc_stop(pid);
  printf("# pve_rrd: %zu RRD files created in %.0f s before the rounds\n",
         count_rrd_files(b), (double)(monotonic_ns() - start) / 1e9);
  return err;
}

/* The round's own figures and ratio: how far the summary's medians are
 * from each round's. */
static void report_round(const struct collectd_bench *b, unsigned r) {
  double base = b->cpu_us[RUN_BASELINE][r];
  double n = (double)b->guests;
  double pvecg = (b->cpu_us[RUN_PVE_CGROUP][r] - base) / n;
  double calib = (b->cpu_us[RUN_CALIBRATION][r] - base) / n;
  double floor_rows = (b->cpu_us[RUN_FLOOR_ROWS][r] - base) / n;
  printf("# round %u: baseline %.0f, calibration %.0f, spaced %.0f, "
         "floor_rows %.0f, pve_cgroup %.0f us CPU/interval; floor %.3f (1 s "
         "apart %.3f) us/guest; ratio %.2f, to floor_rows %.2f\n",
         r + 1, base, b->cpu_us[RUN_CALIBRATION][r], b->cpu_us[RUN_SPACED][r],
         b->cpu_us[RUN_FLOOR_ROWS][r], b->cpu_us[RUN_PVE_CGROUP][r],
         b->floor_us[r], b->floor_cold_us[r],
         pvecg / (b->floor_cold_us[r] + calib), pvecg / floor_rows);
}

static int run_rounds(struct collectd_bench *b) {
  int err = 0;
  if (b->options->writer != WRITER_NONE)
    err = prime_rrd_files(b);
  for (unsigned r = 0; err == 0 && r < b->rounds; r++) {
    for (int j = 0; err == 0 && j < RUN_KIND_COUNT; j++) {
      enum run_kind kind = (enum run_kind)((r + (unsigned)j) % RUN_KIND_COUNT);
      if (kind == RUN_FLOOR_ROWS && !b->floor_files[0])
        b->cpu_us[kind][r] = NAN; /* the files do not fit: not measured */
      else
        err = collectd_once(b, kind, r);
    }
    if (err == 0)
      err = measure_readers(b, r);
    if (err == 0)
      report_round(b, r);
    fflush(stdout);
  }
  return err;
}

/* Per round (run - baseline) / N, summarised. */
static void per_guest(const struct collectd_bench *b, double *const *cpu,
                      enum run_kind kind, struct summary *ret) {
  double *v = calloc(b->rounds ? b->rounds : 1, sizeof(double));
  if (!v) {
    summarize(NULL, 0, ret);
    return;
  }
  for (unsigned r = 0; r < b->rounds; r++)
    v[r] = (cpu[kind][r] - cpu[RUN_BASELINE][r]) / (double)b->guests;
  summarize(v, b->rounds, ret);
  free(v);
}

/* collectd's logs: problems counted (and shown when verbose) for every
 * run; its stdout too when a run failed. */
static unsigned scan_logs(const struct collectd_bench *b, bool verbose) {
  unsigned problems = 0;
  for (int k = 0; k < RUN_KIND_COUNT; k++) {
    for (int out = 0; out < 2; out++) {
      char path[PATH_MAX + 32];
      snprintf(path, sizeof(path), "%s/%s.%s", b->dir, run_names[k],
               out ? "out" : "log");
      FILE *f = fopen(path, "re");
      if (!f)
        continue;
      char line[1024];
      while (fgets(line, sizeof(line), f)) {
        bool bad = strstr(line, "[error]") || strstr(line, "[warning]");
        problems += !out && bad;
        if (verbose && (bad || out))
          fprintf(stderr, "%s: %s", run_names[k], line);
      }
      fclose(f);
    }
  }
  return problems;
}

static void append_csv(const struct collectd_bench *b, const char *method,
                       const struct summary *s, const char *note) {
  if (!b->options->csv)
    return;
  struct csv_row row = {
      method, b->guests, s->median,    s->min,
      s->max, b->rounds, b->intervals, guest_tree_kind_name(b->tree.kind),
      note};
  csv_append(b->options->csv, &row);
}

static void report_runs(struct collectd_bench *b) {
  printf("%-12s %16s %10s %10s %12s %12s %8s %10s\n", "collectd",
         "CPU us/interval", "min", "max", "ticks-based", "wakeups/intv", "fds",
         "of it daemon");
  for (int k = 0; k < RUN_KIND_COUNT; k++) {
    struct summary run, t, w, d;
    summarize(b->cpu_us[k], b->rounds, &run);
    summarize(b->tick_us[k], b->rounds, &t);
    summarize(b->slices[k], b->rounds, &w);
    summarize(b->daemon_us[k], b->rounds, &d);
    printf("%-12s %16.0f %10.0f %10.0f %12.0f %12.0f %8zu %10.0f\n",
           run_names[k], run.median, run.min, run.max, t.median, w.median,
           b->fds[k], d.median);
  }
}

/* Per guest and interval above the baseline, by thread role and the
 * daemon: which part of the pipeline costs more than its calibration. */
static void report_roles(const struct collectd_bench *b) {
  static const char *const roles[PROC_THREAD_ROLE_COUNT] = {
      "read threads", "write threads", "other threads"};
  printf("per guest and interval above the baseline, by thread:\n"
         "  %-14s %12s %12s %12s %12s\n",
         "", "calibration", "spaced", "floor_rows", "pve_cgroup");
  for (int t = 0; t <= PROC_THREAD_ROLE_COUNT; t++) {
    printf("  %-14s", t < PROC_THREAD_ROLE_COUNT ? roles[t] : "daemon");
    for (int k = RUN_CALIBRATION; k <= RUN_PVE_CGROUP; k++) {
      struct summary s;
      per_guest(b, t < PROC_THREAD_ROLE_COUNT ? b->role_us[t] : b->daemon_us,
                (enum run_kind)k, &s);
      printf(" %12.3f", s.median);
    }
    printf("\n");
  }
  printf("thread wake-ups an interval (not above the baseline):\n");
  for (int t = 0; t < PROC_THREAD_ROLE_COUNT; t++) {
    printf("  %-14s", roles[t]);
    for (int k = RUN_CALIBRATION; k <= RUN_PVE_CGROUP; k++) {
      struct summary s;
      summarize(b->role_slices[t][k], b->rounds, &s);
      printf(" %12.0f", s.median);
    }
    printf("\n");
  }
}

static void report(struct collectd_bench *b) {
  struct summary pvecg, calib, spaced, pvecg_t, calib_t, fl, sm, flc, smc,
      frows;
  report_runs(b);
  report_roles(b);
  per_guest(b, b->cpu_us, RUN_PVE_CGROUP, &pvecg);
  per_guest(b, b->cpu_us, RUN_CALIBRATION, &calib);
  per_guest(b, b->cpu_us, RUN_SPACED, &spaced);
  per_guest(b, b->cpu_us, RUN_FLOOR_ROWS, &frows);
  per_guest(b, b->tick_us, RUN_PVE_CGROUP, &pvecg_t);
  per_guest(b, b->tick_us, RUN_CALIBRATION, &calib_t);
  summarize(b->floor_us, b->rounds, &fl);
  summarize(b->sampler_us, b->rounds, &sm);
  summarize(b->floor_cold_us, b->rounds, &flc);
  summarize(b->sampler_cold_us, b->rounds, &smc);
  /* The spin itself is spacing_us of CPU per row. */
  spaced.median -= b->spacing_us;
  spaced.min -= b->spacing_us;
  spaced.max -= b->spacing_us;
  double ratio = pvecg.median / (flc.median + calib.median);
  double ratio_warm = pvecg.median / (fl.median + calib.median);
  printf("per guest and interval (medians of %u rounds, writer %s):\n",
         b->rounds, writer_name(b->options->writer));
  printf("  pve_cgroup in collectd      %9.3f us  (ticks: %.3f)\n",
         pvecg.median, pvecg_t.median);
  printf("  calibration, back to back   %9.3f us  (ticks: %.3f)\n",
         calib.median, calib_t.median);
  printf("  calibration, spaced %3u us  %9.3f us  (spacing subtracted)\n",
         b->spacing_us, spaced.median);
  printf("  kernel floor, 1 s apart     %9.3f us  (back to back %.3f; "
         "thread CPU)\n",
         flc.median, fl.median);
  printf("  sampler, 1 s apart          %9.3f us  (back to back %.3f; "
         "thread CPU)\n",
         smc.median, sm.median);
  printf("  floor's reads + rows in one collectd %9.3f us\n", frows.median);
  printf("ratio pve_cgroup / (floor 1 s apart + calibration) = %.2f (target "
         "<= 1.15)\n",
         ratio);
  printf("  with the back-to-back floor %.2f; with the spaced calibration "
         "%.2f\n",
         ratio_warm, pvecg.median / (flc.median + spaced.median));
  printf("ratio pve_cgroup / (floor's reads + rows, in one collectd) = %.2f\n",
         pvecg.median / frows.median);
  if (b->has_handoff)
    printf("  batched hand-off, minimal   %9.3f us  (client %.3f + daemon "
           "%.3f; refused %zu)\n",
           b->handoff.client_us + b->handoff.daemon_us, b->handoff.client_us,
           b->handoff.daemon_us, b->handoff.refused);
  printf("collectd log warnings and errors: %u\n", scan_logs(b, false));
  char note[160];
  snprintf(note, sizeof(note),
           "writer=%s write_threads=%u ratio=%.3f ratio_warm_floor=%.3f "
           "spacing_us=%u",
           writer_name(b->options->writer), b->options->write_threads, ratio,
           ratio_warm, b->spacing_us);
  append_csv(b, "collectd_pve_cgroup", &pvecg, note);
  append_csv(b, "collectd_calibration", &calib, note);
  append_csv(b, "collectd_calibration_spaced", &spaced, note);
  append_csv(b, "collectd_floor_1s", &flc, note);
  append_csv(b, "collectd_floor_rows", &frows, note);
  append_csv(b, "collectd_floor", &fl, note);
  append_csv(b, "collectd_sampler_1s", &smc, note);
  append_csv(b, "collectd_sampler", &sm, note);
}

/* pve_rrd's DataDir, below the daemon's base directory when there is one
 * (it refuses paths outside it, -B). */
static int start_writer(struct collectd_bench *b) {
  snprintf(b->data_dir, sizeof(b->data_dir), "%s/data", b->dir);
  if (b->options->writer != WRITER_RRDCACHED)
    return 0;
  /* No file written to disk within the rounds: the daemon's CPU in a run
   * is that of taking its rows, the same for every run, not a burst of
   * writes that falls into one run or another. */
  b->daemon.write_timeout = DAEMON_WRITE_TIMEOUT_S;
  if (daemon_proc_start(&b->daemon, b->dir) != 0)
    return -EIO;
  snprintf(b->data_dir, sizeof(b->data_dir), "%s/pvecg", b->daemon.db);
  return 0;
}

static int setup(struct collectd_bench *b) {
  int err = temp_dir_create("pvecg-bench-collectd", b->dir, sizeof(b->dir));
  if (err < 0)
    return err;
  snprintf(b->empty_root, sizeof(b->empty_root), "%s/empty", b->dir);
  if (mkdir(b->empty_root, 0755) < 0)
    return -errno;
  for (int k = 0; k < RUN_KIND_COUNT; k++) {
    b->cpu_us[k] = calloc(b->rounds, sizeof(double));
    b->tick_us[k] = calloc(b->rounds, sizeof(double));
    b->slices[k] = calloc(b->rounds, sizeof(double));
    b->daemon_us[k] = calloc(b->rounds, sizeof(double));
    if (!b->cpu_us[k] || !b->tick_us[k] || !b->slices[k] || !b->daemon_us[k])
      return -ENOMEM;
    for (int t = 0; t < PROC_THREAD_ROLE_COUNT; t++)
      if (!(b->role_us[t][k] = calloc(b->rounds, sizeof(double))) ||
          !(b->role_slices[t][k] = calloc(b->rounds, sizeof(double))))
        return -ENOMEM;
  }
  if ((err = start_writer(b)) < 0)
    return err;
  b->floor_us = calloc(b->rounds, sizeof(double));
  b->sampler_us = calloc(b->rounds, sizeof(double));
  b->floor_cold_us = calloc(b->rounds, sizeof(double));
  b->sampler_cold_us = calloc(b->rounds, sizeof(double));
  if (!b->floor_us || !b->sampler_us || !b->floor_cold_us ||
      !b->sampler_cold_us)
    return -ENOMEM;
  if ((err = guest_tree_create_best(&b->tree, b->guests, b->options->fixture)) <
      0)
    return err;
  if ((b->options->ksm || b->options->guest_procs) &&
      (err = guest_procs_start(&b->procs, &b->tree, b->guests)) < 0)
    return err;
  if ((err = readers_new(&b->tree, &b->readers)) < 0)
    return err;
  /* Only where the floor keeps every file open at once (not at N = 10,000
   * here): collectd would need them all too. */
  struct readers_info info;
  readers_get_info(b->readers, &info);
  snprintf(b->floor_files, sizeof(b->floor_files), "%s/floor-files", b->dir);
  if (info.floor_chunk < b->guests)
    b->floor_files[0] = '\0';
  else if ((err = readers_write_floor_paths(b->readers, b->floor_files)) < 0)
    return err;
  /* The spaced calibration spends what the sampler spends per guest. */
  double us =
      readers_time(b->readers, METHOD_SAMPLER, b->reader_intervals, 0, &err);
  b->spacing_us = us < 1 ? 1 : (unsigned)(us + 0.5);
  return err;
}

static void teardown(struct collectd_bench *b) {
  daemon_proc_stop(&b->daemon);
  readers_free(b->readers);
  guest_procs_stop(&b->procs);
  guest_tree_remove(&b->tree);
  if (b->dir[0])
    temp_dir_remove(b->dir);
  for (int k = 0; k < RUN_KIND_COUNT; k++) {
    free(b->cpu_us[k]);
    free(b->tick_us[k]);
    free(b->slices[k]);
    free(b->daemon_us[k]);
    for (int t = 0; t < PROC_THREAD_ROLE_COUNT; t++) {
      free(b->role_us[t][k]);
      free(b->role_slices[t][k]);
    }
  }
  free(b->floor_us);
  free(b->sampler_us);
  free(b->floor_cold_us);
  free(b->sampler_cold_us);
}

/* After every round (its rows are newer than any collectd wrote), the
 * same files get `intervals` rows each from a minimal BATCH client. */
static void measure_handoff(struct collectd_bench *b) {
  if (b->options->writer != WRITER_RRDCACHED)
    return;
  const char *socket = b->daemon.address + strlen("unix:");
  int err = batch_client_run(socket, b->daemon.pid, b->data_dir, b->intervals,
                             time(NULL) + 5, &b->handoff);
  if (err < 0)
    fprintf(stderr, "pvecg-bench: minimal BATCH client: %s\n", strerror(-err));
  b->has_handoff = err == 0;
}

static void print_setup(const struct collectd_bench *b) {
  char load[128] = "", threads[16] = "5 (default)";
  if (b->options->write_threads)
    snprintf(threads, sizeof(threads), "%u", b->options->write_threads);
  small_file_read("/proc/loadavg", load, sizeof(load));
  printf("# collectd: N=%zu guests as %s below %s, writer %s, WriteThreads "
         "%s, %u intervals after %u s warm-up, %u rounds, spacing %u us%s\n"
         "# load average: %s",
         b->guests,
         b->tree.kind == GUEST_TREE_CGROUP ? "real cgroups" : "a fixture tree",
         b->tree.root, writer_name(b->options->writer), threads, b->intervals,
         b->warmup, b->rounds, b->spacing_us,
         b->options->ksm           ? ", KSM true (an idle process per guest)"
         : b->options->guest_procs ? ", KSM false, an idle process per guest"
                                   : "",
         load);
  fflush(stdout);
}

int collectd_mode(const struct bench_options *o) {
  if (access(o->collectd, X_OK) < 0) {
    fprintf(stderr, "pvecg-bench: no collectd at %s\n", o->collectd);
    return BENCH_EXIT_SKIPPED;
  }
  struct collectd_bench b = {
      .options = o,
      .guests = o->guests,
      .intervals = o->intervals ? o->intervals : DEFAULT_INTERVALS,
      .rounds = o->rounds ? o->rounds : DEFAULT_ROUNDS,
      .warmup = o->warmup ? o->warmup : DEFAULT_WARMUP,
      .reader_intervals = readers_default_intervals(o->guests),
  };
  int err = setup(&b);
  if (err == 0) {
    print_setup(&b);
    err = run_rounds(&b);
  }
  if (err == 0)
    measure_handoff(&b);
  if (err == 0)
    report(&b);
  else if (err != -EINTR) {
    fprintf(stderr, "pvecg-bench: collectd mode failed: %s\n", strerror(-err));
    scan_logs(&b, true);
  }
  teardown(&b);
  if (err == -EINTR || interrupted())
    return BENCH_EXIT_INTERRUPTED;
  return err < 0 ? 1 : 0;
}

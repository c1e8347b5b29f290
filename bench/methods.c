/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mode "methods" (see methods.h).  Each round runs every method for K
 * intervals back to back, in an order that rotates from round to round so
 * that no method always follows the same one; the figure per method is the
 * median over rounds of (time / K / N).
 */
#include "methods.h"

#include "csv.h"
#include "guest_procs.h"
#include "guest_tree.h"
#include "interrupt.h"
#include "readers.h"
#include "small_file.h"
#include "timing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ROUNDS 9
/* With a gap between intervals each one is timed alone: fewer suffice. */
#define DEFAULT_GAP_INTERVALS 5

struct methods_run {
  const struct bench_options *options;
  size_t guests;
  unsigned intervals, rounds;
  bool with_pss;
  struct guest_tree tree;
  struct guest_procs procs;
  struct readers *readers;
  double *per_guest[METHOD_COUNT]; /* µs per guest and interval, per round */
};

static void print_loadavg(const char *when) {
  char buf[128];
  if (small_file_read("/proc/loadavg", buf, sizeof(buf)) > 0)
    printf("# load average %s: %s", when, buf);
}

static bool method_wanted(const struct methods_run *run, enum method m) {
  return m != METHOD_PSS || run->with_pss;
}

static int measure(struct methods_run *run) {
  for (unsigned r = 0; r < run->rounds; r++) {
    for (int j = 0; j < METHOD_COUNT; j++) {
      enum method m = (enum method)((r + (unsigned)j) % METHOD_COUNT);
      if (!method_wanted(run, m))
        continue;
      if (interrupted())
        return -EINTR;
      int err = 0;
      run->per_guest[m][r] = readers_time(run->readers, m, run->intervals,
                                          run->options->gap_ms, &err);
      if (err < 0) {
        fprintf(stderr, "pvecg-bench: %s failed: %s\n", method_name(m),
                strerror(-err));
        return err;
      }
    }
  }
  return 0;
}

static void print_setup(const struct methods_run *run) {
  const struct guest_tree *t = &run->tree;
  struct readers_info info;
  readers_get_info(run->readers, &info);
  printf("# methods: N=%zu guests as %s (%s%s%s), %u intervals x %u rounds, "
         "%s\n",
         run->guests,
         t->kind == GUEST_TREE_CGROUP ? "real cgroups" : "a fixture tree",
         t->root, t->memory_root[0] ? ", v1 memory " : "", t->memory_root,
         run->intervals, run->rounds,
         run->options->gap_ms ? "intervals apart" : "back to back");
  if (run->options->gap_ms)
    printf("# each interval timed alone after a %u ms sleep\n",
           run->options->gap_ms);
  printf("# files per guest, as the sampler keeps them open:");
  for (size_t f = 0; f < info.files_per_guest; f++)
    printf(" %s", info.file_names[f]);
  printf("\n# sampler holds %zu descriptors for %zu guests (with its "
         "cgroup.stat per type directory)\n",
         info.sampler_fds, info.sampler_guests);
  if (info.floor_chunk < run->guests)
    printf("# RLIMIT_NOFILE %lu cannot hold every file twice: floor measured "
           "in chunks of %zu guests; sampler with pve_cgroup's descriptor "
           "budget: %zu of %zu guests kept open, the rest read by "
           "open/read/close\n",
           info.fd_limit, info.floor_chunk,
           info.sampler_guests - info.sampler_unkept, info.sampler_guests);
  if (!run->with_pss)
    printf("# pss: not measured for N > %d (it needs one process per "
           "guest)\n",
           METHODS_PSS_MAX_GUESTS);
}

/* The CSV note: how the descriptors were held, files per guest. */
static void method_note(const struct methods_run *run, enum method m, char *buf,
                        size_t size) {
  struct readers_info info;
  readers_get_info(run->readers, &info);
  int n = snprintf(buf, size, "gap_ms=%u files=%zu", run->options->gap_ms,
                   info.files_per_guest);
  if (n < 0 || (size_t)n >= size)
    return;
  if (m == METHOD_SAMPLER)
    snprintf(buf + n, size - (size_t)n, " kept=%zu/%zu",
             info.sampler_guests - info.sampler_unkept, info.sampler_guests);
  else if (m == METHOD_FLOOR && info.floor_chunk < run->guests)
    snprintf(buf + n, size - (size_t)n, " chunks_of=%zu", info.floor_chunk);
  else if (m == METHOD_PSS)
    snprintf(buf + n, size - (size_t)n, " procs_per_guest=1");
}

static void report(struct methods_run *run) {
  struct summary s[METHOD_COUNT];
  for (int m = 0; m < METHOD_COUNT; m++)
    summarize(run->per_guest[m],
              method_wanted(run, (enum method)m) ? run->rounds : 0, &s[m]);
  double floor_us = s[METHOD_FLOOR].median;
  printf("%-8s %8s %14s %10s %10s %9s\n", "method", "N", "us/guest/intv", "min",
         "max", "x floor");
  for (int m = 0; m < METHOD_COUNT; m++) {
    if (!method_wanted(run, (enum method)m)) {
      printf("%-8s %8zu %14s\n", method_name((enum method)m), run->guests,
             "n/a");
      continue;
    }
    printf("%-8s %8zu %14.3f %10.3f %10.3f %9.2f\n",
           method_name((enum method)m), run->guests, s[m].median, s[m].min,
           s[m].max, s[m].median / floor_us);
    const char *tree = guest_tree_kind_name(run->tree.kind);
    char note[96];
    method_note(run, (enum method)m, note, sizeof(note));
    struct csv_row row = {method_name((enum method)m),
                          run->guests,
                          s[m].median,
                          s[m].min,
                          s[m].max,
                          run->rounds,
                          run->intervals,
                          tree,
                          note};
    if (run->options->csv && csv_append(run->options->csv, &row) < 0)
      fprintf(stderr, "pvecg-bench: cannot append to %s\n", run->options->csv);
  }
  double sampler_us = s[METHOD_SAMPLER].median;
  printf("sampler/floor %.2f (target <= 1.25), naive/sampler %.2f (target >= "
         "2)",
         sampler_us / floor_us, s[METHOD_NAIVE].median / sampler_us);
  if (run->with_pss)
    printf(", pss/sampler %.1f", s[METHOD_PSS].median / sampler_us);
  printf("\n");
}

/* The floor file by file (median of the rounds), after the main table. */
static void report_files(struct methods_run *run) {
  struct readers_info info;
  readers_get_info(run->readers, &info);
  printf("floor by file (back to back), us/guest/intv:");
  for (size_t f = 0; f < info.files_per_guest; f++) {
    double *us = calloc(run->rounds, sizeof(double));
    if (!us)
      return;
    int err = 0;
    for (unsigned r = 0; err == 0 && r < run->rounds; r++)
      us[r] = readers_time_floor_file(run->readers, f, run->intervals, &err);
    struct summary s;
    summarize(us, run->rounds, &s);
    free(us);
    printf(" %s %.3f", info.file_names[f], s.median);
  }
  printf("\n");
}

static int setup(struct methods_run *run) {
  int err =
      guest_tree_create_best(&run->tree, run->guests, run->options->fixture);
  if (err < 0) {
    fprintf(stderr, "pvecg-bench: cannot make %zu guests: %s\n", run->guests,
            strerror(-err));
    return err;
  }
  /* The processes first: forked before thousands of descriptors exist. */
  if (run->with_pss &&
      (err = guest_procs_start(&run->procs, &run->tree, run->guests)) < 0) {
    fprintf(stderr, "pvecg-bench: cannot start the guest processes: %s\n",
            strerror(-err));
    return err;
  }
  for (int m = 0; m < METHOD_COUNT; m++)
    if (!(run->per_guest[m] = calloc(run->rounds, sizeof(double))))
      return -ENOMEM;
  if ((err = readers_new(&run->tree, &run->readers)) < 0)
    fprintf(stderr, "pvecg-bench: cannot set the readers up: %s\n",
            strerror(-err));
  return err;
}

static void teardown(struct methods_run *run) {
  readers_free(run->readers);
  guest_procs_stop(&run->procs);
  guest_tree_remove(&run->tree);
  for (int m = 0; m < METHOD_COUNT; m++)
    free(run->per_guest[m]);
}

int methods_mode(const struct bench_options *o) {
  struct methods_run run = {
      .options = o,
      .guests = o->guests,
      .intervals = o->intervals ? o->intervals
                   : o->gap_ms  ? DEFAULT_GAP_INTERVALS
                                : readers_default_intervals(o->guests),
      .rounds = o->rounds ? o->rounds : DEFAULT_ROUNDS,
      .with_pss = o->guests <= METHODS_PSS_MAX_GUESTS,
  };
  print_loadavg("before");
  int err = setup(&run);
  if (err == 0) {
    print_setup(&run);
    err = measure(&run);
  }
  if (err == 0) {
    report(&run);
    report_files(&run);
    print_loadavg("after");
  }
  teardown(&run);
  if (err == -EINTR || interrupted())
    return BENCH_EXIT_INTERRUPTED;
  return err < 0 ? 1 : 0;
}

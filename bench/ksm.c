/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The KSM mode (see ksm.h).
 *
 * Merging is sped up for the run (pages_to_scan raised, sleep_millisecs
 * lowered) and considered finished when pages_sharing has stopped growing
 * over two full scans; ksmd is then stopped with run=0, which keeps the
 * merged pages, so that the timings are not taken next to a busy ksmd.
 * Every KSM setting touched is restored on every way out (ksm_settings.h).
 */
#include "ksm.h"

#include "csv.h"
#include "guest_tree.h"
#include "interrupt.h"
#include "ksm_settings.h"
#include "memory_holder.h"
#include "pss_path.h"
#include "pvecg/sampler.h"
#include "sampler_setup.h"
#include "small_file.h"
#include "timing.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCAN_PAGES 20000
#define SCAN_SLEEP_MS 5
#define MERGE_TIMEOUT_S 240
#define PSS_REPEATS 21
#define SAMPLER_REPEATS 501

struct ksm_phase {
  const char *name; /* "off" or "on" */
  struct smaps_rollup rollup;
  uint64_t memhost;
  bool memhost_valid;
  unsigned long pages_sharing, pages_shared, merging_pages;
  struct summary pss_us, sampler_us;
};

struct ksm_run {
  const struct bench_options *options;
  struct guest_tree tree;
  struct memory_holder holder;
  struct ksm_settings settings;
  struct sampler *sampler;
  char guest_dir[PATH_MAX];
  struct ksm_phase phase[2];
};

static void keep_sample(const struct guest_sample *s, void *ctx) {
  struct ksm_phase *p = ctx;
  p->memhost = s->memory_used;
  p->memhost_valid = s->memory_valid;
}

static int time_pss(struct ksm_run *run, struct ksm_phase *p) {
  double us[PSS_REPEATS];
  for (int i = 0; i < PSS_REPEATS; i++) {
    uint64_t pss, start = monotonic_ns();
    size_t procs;
    int err = pss_path_cgroup(run->guest_dir, &pss, &procs);
    us[i] = (double)(monotonic_ns() - start) / 1e3;
    if (err < 0)
      return err;
  }
  summarize(us, PSS_REPEATS, &p->pss_us);
  return 0;
}

static int time_sampler(struct ksm_run *run, struct ksm_phase *p) {
  static double us[SAMPLER_REPEATS];
  for (int i = 0; i < SAMPLER_REPEATS; i++) {
    uint64_t start = monotonic_ns();
    int err = sampler_run(run->sampler, keep_sample, p);
    us[i] = (double)(monotonic_ns() - start) / 1e3;
    if (err < 0)
      return err;
  }
  summarize(us, SAMPLER_REPEATS, &p->sampler_us);
  return 0;
}

static void read_merge_counters(const struct ksm_run *run,
                                struct ksm_phase *p) {
  char path[64];
  ksm_read("pages_sharing", &p->pages_sharing);
  ksm_read("pages_shared", &p->pages_shared);
  snprintf(path, sizeof(path), "/proc/%d/ksm_merging_pages",
           (int)run->holder.pid);
  small_file_read_ulong(path, &p->merging_pages);
}

static int measure_phase(struct ksm_run *run, struct ksm_phase *p) {
  read_merge_counters(run, p);
  int err = pss_path_process(run->holder.pid, &p->rollup);
  if (err == 0)
    err = time_sampler(run, p);
  if (err == 0)
    err = time_pss(run, p);
  return err;
}

/* Waits until pages_sharing has not grown over two full scans. */
static int wait_for_merge(void) {
  unsigned long scans0, scans, sharing, last = 0, stable_since = 0;
  if (ksm_read("full_scans", &scans0) < 0)
    return -EIO;
  uint64_t start = monotonic_ns();
  for (;;) {
    if (!interruptible_sleep(1.0))
      return -EINTR;
    if (ksm_read("full_scans", &scans) < 0 ||
        ksm_read("pages_sharing", &sharing) < 0)
      return -EIO;
    double elapsed = (double)(monotonic_ns() - start) / 1e9;
    if (sharing != last || stable_since == 0) {
      last = sharing;
      stable_since = scans;
    }
    printf("# %5.0f s: full_scans %lu, pages_sharing %lu\n", elapsed,
           scans - scans0, sharing);
    fflush(stdout);
    if (sharing > 0 && scans >= stable_since + 2)
      return 0;
    if (elapsed > MERGE_TIMEOUT_S) {
      fprintf(stderr,
              "pvecg-bench: KSM still merging after %d s; measuring "
              "as it is\n",
              MERGE_TIMEOUT_S);
      return 0;
    }
  }
}

static int merge(struct ksm_run *run) {
  struct ksm_settings *s = &run->settings;
  int err = ksm_settings_set(s, "pages_to_scan", SCAN_PAGES);
  if (err == 0)
    err = ksm_settings_set(s, "sleep_millisecs", SCAN_SLEEP_MS);
  if (err == 0)
    err = memory_holder_mergeable(&run->holder);
  if (err == 0)
    err = ksm_settings_set(s, "run", 1);
  if (err == 0)
    err = wait_for_merge();
  /* Stop ksmd, keep the merged pages. */
  if (err == 0)
    err = ksm_settings_set(s, "run", 0);
  return err;
}

static double mib(uint64_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

static void report_phase(const struct ksm_run *run, const struct ksm_phase *p) {
  printf("%4u %-4s %10.1f %10.1f %12.1f %14lu %12.3f %12.3f %10.0f\n",
         run->options->gib, p->name, mib(p->rollup.rss), mib(p->rollup.pss),
         p->memhost_valid ? mib(p->memhost) : -1.0, p->merging_pages,
         p->pss_us.median / 1e3, p->sampler_us.median,
         p->pss_us.median / p->sampler_us.median);
  if (!run->options->csv)
    return;
  char note[160];
  snprintf(note, sizeof(note),
           "gib=%u ksm=%s rss_mib=%.1f pss_mib=%.1f memhost_mib=%.1f "
           "ksm_merging_pages=%lu",
           run->options->gib, p->name, mib(p->rollup.rss), mib(p->rollup.pss),
           mib(p->memhost), p->merging_pages);
  struct csv_row pss = {
      "ksm_pss_path", 1, p->pss_us.median, p->pss_us.min, p->pss_us.max,
      PSS_REPEATS,    1, "cgroup",         note};
  struct csv_row smp = {"ksm_sampler",
                        1,
                        p->sampler_us.median,
                        p->sampler_us.min,
                        p->sampler_us.max,
                        SAMPLER_REPEATS,
                        1,
                        "cgroup",
                        note};
  csv_append(run->options->csv, &pss);
  csv_append(run->options->csv, &smp);
}

static void report(const struct ksm_run *run) {
  printf("%4s %-4s %10s %10s %12s %14s %12s %12s %10s\n", "GiB", "KSM",
         "RSS MiB", "PSS MiB", "memhost MiB", "merged pages", "PSS path ms",
         "sampler us", "ratio");
  for (int i = 0; i < 2; i++)
    report_phase(run, &run->phase[i]);
  printf("# medians of %d PSS-path and %d sampler extractions; ratio = PSS "
         "path / sampler (target >= 1000 for 4 GiB with KSM)\n",
         PSS_REPEATS, SAMPLER_REPEATS);
}

static int setup(struct ksm_run *run) {
  int err = guest_tree_create(&run->tree, 1, GUEST_TREE_CGROUP);
  if (err < 0) {
    fprintf(stderr, "pvecg-bench: ksm needs a real guest cgroup: %s\n",
            strerror(-err));
    return err;
  }
  guest_tree_dir(&run->tree, 0, run->guest_dir, sizeof(run->guest_dir));
  if ((err = sampler_setup_new(&run->tree, &run->sampler)) < 0)
    return err;
  printf("# ksm: %u GiB of identical pages in %s\n", run->options->gib,
         run->guest_dir);
  fflush(stdout);
  return memory_holder_start(&run->holder, &run->tree, 0,
                             (size_t)run->options->gib << 30);
}

static int run_phases(struct ksm_run *run) {
  run->phase[0].name = "off";
  run->phase[1].name = "on";
  int err = measure_phase(run, &run->phase[0]);
  if (err == 0)
    err = merge(run);
  if (err == 0)
    err = measure_phase(run, &run->phase[1]);
  return err;
}

int ksm_mode(const struct bench_options *o) {
  if (geteuid() != 0) {
    fprintf(stderr, "pvecg-bench: ksm needs root (cgroups and KSM)\n");
    return BENCH_EXIT_SKIPPED;
  }
  static struct ksm_run run;
  memset(&run, 0, sizeof(run));
  run.options = o;
  run.holder.pid = -1;
  run.holder.to_child = run.holder.from_child = -1;
  int err = ksm_settings_save(&run.settings);
  if (err < 0) {
    fprintf(stderr, "pvecg-bench: no KSM here (%s): %s\n", KSM_DIR,
            strerror(-err));
    return BENCH_EXIT_SKIPPED;
  }
  bool skipped = false;
  err = setup(&run);
  if (err == -EPERM || err == -EACCES || err == -ENOENT || err == -EROFS)
    skipped = true;
  else if (err == 0)
    err = run_phases(&run);
  /* The child first: with it gone there is nothing left to unmerge. */
  memory_holder_stop(&run.holder);
  int restore = ksm_settings_restore(&run.settings);
  sampler_free(run.sampler);
  guest_tree_remove(&run.tree);
  if (err == 0)
    report(&run);
  else if (!skipped && err != -EINTR)
    fprintf(stderr, "pvecg-bench: ksm failed: %s\n", strerror(-err));
  if (restore < 0)
    return 1;
  if (err == -EINTR || interrupted())
    return BENCH_EXIT_INTERRUPTED;
  if (skipped)
    return BENCH_EXIT_SKIPPED;
  return err < 0 ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg sample: one sample of every guest with the plugin's own sampler
 * (same discovery, same files, same formulas), shown as a table or JSON;
 * with --watch, again every few seconds like top until SIGINT/SIGTERM.
 * Needs no collectd.  The guests' files are found like pve_cgroup finds
 * them: the cgroup2 mount and the v1 memory hierarchy from mountinfo,
 * unless given.
 */
#include "pvecg/cgroup_roots.h"
#include "cli_number.h"
#include "cli_options.h"
#include "commands.h"
#include "pvecg/fd_budget.h"
#include "pvecg/monotonic.h"
#include "sample_view.h"
#include "pvecg/sampler.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CMD "pvecg sample"
#define DEFAULT_PVE_CONFIG_DIR "/etc/pve"
#define SETTINGS_REFRESH_SECONDS 30.0
#define WATCH_MAX_SECONDS 86400.0
/* Home the cursor and clear the screen, as top does before a redraw. */
#define CLEAR_SCREEN "\033[H\033[2J"

static const char usage_text[] =
    "usage: pvecg sample [--cgroup-root DIR] [--memory-cgroup-root DIR]\n"
    "                    [--pve-config-dir DIR] [--json] [--watch SECONDS]\n"
    "\n"
    "Samples every guest's cgroup once (as the pve_cgroup plugin does) and\n"
    "prints VMID, type, name, memhost, the some/full avg10 of cpu, io and\n"
    "memory pressure, and swap.\n"
    "  --cgroup-root DIR         cgroup2 root (default: from mountinfo)\n"
    "  --memory-cgroup-root DIR  cgroup v1 memory root, \"\" for none\n"
    "                            (default: from mountinfo)\n"
    "  --pve-config-dir DIR      guest names from here (/etc/pve), \"\" for "
    "none\n"
    "  --json                    one JSON object per sample\n"
    "  --watch SECONDS           sample again every SECONDS until "
    "interrupted\n"
    "See pvecg-sample(1).\n";

enum {
  OPT_CGROUP_ROOT = 0x100,
  OPT_MEMORY_ROOT,
  OPT_PVE_CONFIG_DIR,
  OPT_JSON,
  OPT_WATCH,
};

struct sample_args {
  struct sampler_config config;
  bool cgroup_root_set, memory_root_set;
  bool json;
  double watch; /* 0: once */
};

static int copy_dir(const char *opt, const char *value, char *dst, size_t size,
                    bool may_be_empty) {
  if ((value[0] != '/' && !(may_be_empty && value[0] == '\0')) ||
      strlen(value) >= size) {
    fprintf(stderr, CMD ": %s must be an absolute path%s: '%s'\n", opt,
            may_be_empty ? " or \"\"" : "", value);
    return -EINVAL;
  }
  memcpy(dst, value, strlen(value) + 1);
  return 0;
}

static int parse_watch(const char *value, double *ret) {
  double v;
  if (cli_seconds(value, 0.1, WATCH_MAX_SECONDS, &v) < 0) {
    fprintf(stderr, CMD ": --watch is seconds from 0.1 to 86400: '%s'\n",
            value);
    return -EINVAL;
  }
  *ret = v;
  return 0;
}

static int set_option(struct sample_args *a, int opt, const char *value) {
  struct sampler_config *c = &a->config;
  switch (opt) {
  case OPT_CGROUP_ROOT:
    a->cgroup_root_set = true;
    return copy_dir("--cgroup-root", value, c->cgroup_root,
                    sizeof(c->cgroup_root), false);
  case OPT_MEMORY_ROOT:
    a->memory_root_set = true;
    return copy_dir("--memory-cgroup-root", value, c->memory_root,
                    sizeof(c->memory_root), true);
  case OPT_PVE_CONFIG_DIR:
    return copy_dir("--pve-config-dir", value, c->pve_config_dir,
                    sizeof(c->pve_config_dir), true);
  case OPT_JSON:
    a->json = true;
    return 0;
  case OPT_WATCH:
    return parse_watch(value, &a->watch);
  }
  return -EINVAL;
}

static int take_option(void *a, int opt, const char *value) {
  return set_option(a, opt, value) < 0 ? -EINVAL : 0;
}

/* Returns 1 after --help, 0 to go on, -EINVAL for a usage error. */
static int parse_args(int argc, char **argv, struct sample_args *a) {
  static const struct option options[] = {
      {"cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT},
      {"memory-cgroup-root", required_argument, NULL, OPT_MEMORY_ROOT},
      {"pve-config-dir", required_argument, NULL, OPT_PVE_CONFIG_DIR},
      {"json", no_argument, NULL, OPT_JSON},
      {"watch", required_argument, NULL, OPT_WATCH},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  static const struct cli_command command = {CMD, usage_text, options, false};
  return cli_options_read(&command, argc, argv, take_option, a);
}

/* The roots not given, from mountinfo, as pve_cgroup finds them. */
static int detect_roots(struct sample_args *a) {
  if (a->cgroup_root_set && a->memory_root_set)
    return 0;
  struct cgroup_mounts mounts;
  int r = cgroup_roots_detect("/proc/self/mountinfo", &mounts);
  if (r < 0 && !a->cgroup_root_set) {
    fprintf(stderr,
            CMD ": cannot read /proc/self/mountinfo: %s; give "
                "--cgroup-root\n",
            strerror(-r));
    return r;
  }
  if (r < 0)
    return 0; /* no v1 memory root then */
  if (!a->cgroup_root_set && mounts.unified[0] == '\0') {
    fprintf(stderr, CMD ": no cgroup2 file system is mounted; give "
                        "--cgroup-root\n");
    return -ENOENT;
  }
  if (!a->cgroup_root_set)
    memcpy(a->config.cgroup_root, mounts.unified, sizeof(mounts.unified));
  if (!a->memory_root_set)
    memcpy(a->config.memory_root, mounts.memory_v1, sizeof(mounts.memory_v1));
  return 0;
}

static void visit(const struct guest_sample *s, void *ctx) {
  struct sample_view *view = ctx;
  if (sample_view_add(view, s) < 0)
    fprintf(stderr, CMD ": out of memory: guest %u left out\n",
            (unsigned)s->vmid);
}

/* One run into view.  A cgroup root without qemu.slice/ and lxc/ has no
 * guests: an empty view, not an error. */
static int take_sample(struct sampler *sampler, const char *root,
                       struct sample_view *view) {
  sample_view_clear(view);
  view->time = time(NULL);
  double t0 = monotonic_seconds();
  int r = sampler_run(sampler, visit, view);
  view->took_us = (uint64_t)((monotonic_seconds() - t0) * 1e6);
  if (r < 0 && r != -ENOENT) {
    fprintf(stderr, CMD ": cannot list the guests below %s: %s\n", root,
            strerror(-r));
    return r;
  }
  sample_view_sort(view);
  return 0;
}

static void show(const struct sample_args *a, const struct sample_view *view) {
  if (a->watch > 0 && !a->json)
    fputs(CLEAR_SCREEN, stdout);
  if (a->json)
    sample_view_json(view, stdout);
  else
    sample_view_table(view, stdout);
  fflush(stdout);
}

/* Waits seconds; true when SIGINT or SIGTERM (blocked, so none is lost
 * between two waits) came instead. */
static bool interrupted_during(double seconds, const sigset_t *stop) {
  struct timespec ts = {.tv_sec = (time_t)seconds,
                        .tv_nsec =
                            (long)((seconds - (double)(time_t)seconds) * 1e9)};
  double until = monotonic_seconds() + seconds;
  for (;;) {
    if (sigtimedwait(stop, NULL, &ts) >= 0)
      return true;
    if (errno == EAGAIN)
      return false;
    double left = until - monotonic_seconds(); /* EINTR: another signal */
    if (left <= 0)
      return false;
    ts.tv_sec = (time_t)left;
    ts.tv_nsec = (long)((left - (double)(time_t)left) * 1e9);
  }
}

static int sample_loop(const struct sample_args *a, struct sampler *sampler) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  if (a->watch > 0)
    sigprocmask(SIG_BLOCK, &stop, NULL);
  struct sample_view view = {0};
  int status = PVECG_EXIT_OK;
  do {
    if (take_sample(sampler, a->config.cgroup_root, &view) < 0) {
      status = PVECG_EXIT_FAILURE;
      break;
    }
    show(a, &view);
    if (ferror(stdout)) {
      perror(CMD ": writing the output");
      status = PVECG_EXIT_FAILURE;
      break;
    }
  } while (a->watch > 0 && !interrupted_during(a->watch, &stop));
  sample_view_free(&view);
  return status;
}

int cmd_sample(int argc, char **argv) {
  struct sample_args a = {
      .config = {.types = {[GUEST_QEMU] = true, [GUEST_LXC] = true},
                 .pve_config_dir = DEFAULT_PVE_CONFIG_DIR,
                 .settings_refresh_seconds = SETTINGS_REFRESH_SECONDS,
                 .extra_stats = true}};
  int r = parse_args(argc, argv, &a);
  if (r != 0) {
    if (r < 0)
      fputs(usage_text, stderr);
    return r > 0 ? PVECG_EXIT_OK : PVECG_EXIT_USAGE;
  }
  if (detect_roots(&a) < 0)
    return PVECG_EXIT_FAILURE;
  struct fd_budget budget;
  a.config.fd_budget = fd_budget_prepare(&budget) == 0
                           ? budget.budget
                           : fd_budget_for_limit(1024);
  struct sampler *sampler;
  r = sampler_new(&a.config, &sampler);
  if (r < 0) {
    fprintf(stderr, CMD ": cannot set up the sampler: %s\n", strerror(-r));
    return PVECG_EXIT_FAILURE;
  }
  int status = sample_loop(&a, sampler);
  sampler_free(sampler);
  return status;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest sampler (see sampler.h for the contract).
 *
 * State per guest is a small struct with its kept-open descriptors, in an
 * array sorted by (type, vmid).  Each run lists qemu.slice/ and lxc/, which
 * costs one getdents per directory and also tells us inode numbers: a name
 * whose inode changed is a re-created cgroup and is reopened.  The hot path
 * is then a pread per file and a parse; nothing is allocated per guest per
 * run once the set of guests is stable.
 *
 * This file is the API and the run loop.  The loop calls down, never the
 * other way round: sampler_discovery.c finds the guests, sampler_guest.c
 * gets a guest's files ready, sampler_read.c reads them.
 */
#include "sampler_discovery.h"
#include "sampler_read.h"

#include "pvecg/monotonic.h"
#include "pvecg/sampler.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALL_FILES ((1u << GUEST_FILE_COUNT) - 1)

struct sampler {
  struct sampler_config config;
  struct sampler_discovery discovery; /* the guests */
  struct sampler_reader reader;
  unsigned run_gen;
};

/* Reads one guest.  Returns -ENODEV when it turned out to be gone. */
static int read_guest(struct sampler *s, struct guest *g, double now,
                      struct guest_sample *out) {
  int err = sampler_guest_ready(&s->discovery.dirs, g, now);
  if (err == 0)
    err = sampler_read_guest(&s->reader, g, now, out);
  if (!g->kept)
    sampler_guest_close_files(g);
  return err;
}

/* Samples every guest not yet sampled in this run.  Returns true when one
 * turned out to be gone, so the caller lists the directories again. */
static bool sample_all(struct sampler *s, double now, sampler_visit_fn visit,
                       void *ctx) {
  bool any_gone = false;
  struct guest_sample sample;
  for (size_t i = 0; i < s->discovery.count; i++) {
    struct guest *g = &s->discovery.guests[i];
    if (g->sampled == s->run_gen)
      continue;
    g->sampled = s->run_gen;
    if (read_guest(s, g, now, &sample) < 0) {
      g->gone = true;
      any_gone = true;
      continue;
    }
    visit(&sample, ctx);
  }
  return any_gone;
}

int sampler_run(struct sampler *s, sampler_visit_fn visit, void *ctx) {
  double now = s->config.clock ? s->config.clock() : monotonic_seconds();
  s->run_gen++;
  sampler_reader_begin_run(&s->reader);
  int err = sampler_discovery_scan(&s->discovery, now);
  if (err < 0)
    return err;
  /* One rescan is enough: it picks up a guest re-created since the first
   * listing; anything later is the next run's business. */
  if (sample_all(s, now, visit, ctx)) {
    sampler_discovery_forget(&s->discovery);
    err = sampler_discovery_scan(&s->discovery, now);
    if (err < 0)
      return err;
    sample_all(s, now, visit, ctx);
  }
  return 0;
}

static bool valid_root(const char *root, bool may_be_empty) {
  size_t len = strnlen(root, PATH_MAX);
  if (len == 0)
    return may_be_empty;
  return root[0] == '/' && len < PATH_MAX;
}

int sampler_new(const struct sampler_config *config, struct sampler **ret) {
  if (!valid_root(config->cgroup_root, false) ||
      !valid_root(config->memory_root, true) ||
      !valid_root(config->pve_config_dir, true) ||
      !valid_root(config->proc_root, true) ||
      !valid_root(config->run_dir, true) || strlen(config->proc_root) > 200)
    return -EINVAL;
  struct sampler *s = calloc(1, sizeof(*s));
  if (!s)
    return -ENOMEM;
  s->config = *config;
  unsigned wanted =
      config->extra_stats ? ALL_FILES : ALL_FILES & ~GUEST_FILES_EXTRA;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned host_cpus =
      config->host_cpus ? config->host_cpus : (unsigned)(cpus > 0 ? cpus : 1);
  /* Both keep a pointer to s->config, which lives as long as they do. */
  sampler_discovery_init(&s->discovery, &s->config, wanted);
  sampler_reader_init(&s->reader, &s->config, host_cpus);
  *ret = s;
  return 0;
}

void sampler_free(struct sampler *s) {
  if (!s)
    return;
  sampler_discovery_free(&s->discovery);
  sampler_reader_free(&s->reader);
  free(s);
}

void sampler_plan_next(struct sampler *s, const struct sampler_plan *plan) {
  s->reader.ksm_active = s->config.ksm && plan->ksm_active;
  s->reader.ksm_due = s->reader.ksm_active && plan->ksm_due;
  s->reader.stall_due = plan->stall_due;
  s->reader.wall = plan->wall;
}

size_t sampler_guest_count(const struct sampler *s) {
  return s->discovery.count;
}

size_t sampler_unkept_count(const struct sampler *s) {
  return s->discovery.count - s->discovery.kept_count;
}

size_t sampler_fd_count(const struct sampler *s) {
  return sampler_discovery_fd_count(&s->discovery);
}

void sampler_get_stats(const struct sampler *s, struct sampler_stats *ret) {
  ret->guests = s->discovery.count;
  ret->unkept_guests = sampler_unkept_count(s);
  ret->fds = sampler_fd_count(s);
  ret->listings = s->discovery.listings;
  ret->listings_skipped = s->discovery.listings_skipped;
}

enum sampler_scope sampler_scope(const struct sampler *s) {
  return s->discovery.local.scope;
}

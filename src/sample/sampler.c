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
 * This file holds the API, the run loop and the guest array's lifetime;
 * sampler_guest.c opens a guest's files, sampler_discovery.c finds the
 * guests, sampler_read.c reads them (see sampler_internal.h).
 */
#include "sampler_internal.h"

#include "pvecg/monotonic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALL_FILES ((1u << GUEST_FILE_COUNT) - 1)

/* Samples every guest not yet sampled in this run.  Returns true when one
 * turned out to be gone, so the caller lists the directories again. */
static bool sample_all(struct sampler *s, double now, sampler_visit_fn visit,
                       void *ctx) {
  bool any_gone = false;
  struct guest_sample sample;
  for (size_t i = 0; i < s->count; i++) {
    struct guest *g = &s->guests[i];
    if (g->sampled == s->run_gen)
      continue;
    g->sampled = s->run_gen;
    if (sampler_sample_guest(s, g, now, &sample) < 0) {
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
  guest_net_refresh(&s->net);
  int err = sampler_scan(s, now);
  if (err < 0)
    return err;
  /* One rescan is enough: it picks up a guest re-created since the first
   * listing; anything later is the next run's business. */
  if (sample_all(s, now, visit, ctx)) {
    for (int t = 0; t < GUEST_TYPE_COUNT; t++)
      dir_change_forget(&s->changes[t]);
    err = sampler_scan(s, now);
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
  s->wanted_files =
      config->extra_stats ? ALL_FILES : ALL_FILES & ~GUEST_FILES_EXTRA;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  s->host_cpus =
      config->host_cpus ? config->host_cpus : (unsigned)(cpus > 0 ? cpus : 1);
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    dir_change_init(&s->changes[t]);
  guest_net_init(&s->net, config->proc_root);
  *ret = s;
  return 0;
}

void sampler_free(struct sampler *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->count; i++)
    sampler_guest_close_files(&s->guests[i]);
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    dir_change_close(&s->changes[t]);
  guest_net_free(&s->net);
  free(s->guests);
  free(s->pending);
  free(s);
}

size_t sampler_guest_count(const struct sampler *s) { return s->count; }

size_t sampler_fd_count(const struct sampler *s) {
  size_t n = 0;
  for (size_t i = 0; i < s->count; i++)
    for (int f = 0; f < GUEST_FILE_COUNT; f++)
      n += s->guests[i].fd[f] >= 0;
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    n += s->changes[t].fd >= 0;
  return n;
}

void sampler_get_stats(const struct sampler *s, struct sampler_stats *ret) {
  ret->guests = s->count;
  ret->unkept_guests = s->count - s->kept_count;
  ret->fds = sampler_fd_count(s);
  ret->listings = s->listings;
  ret->listings_skipped = s->listings_skipped;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The benchmark's sampler configuration (see sampler_setup.h).
 */
#include "sampler_setup.h"

#include "pvecg/fd_budget.h"

#include <stdio.h>
#include <sys/resource.h>

/* pve_cgroup's default refresh period of guest settings (plugin/
 * pve_cgroup.c, SETTINGS_REFRESH_SECONDS): the sampler's public header
 * offers no default configuration to take it from. */
#define PLUGIN_SETTINGS_REFRESH_SECONDS 30.0

int sampler_setup_new(const struct guest_tree *tree, struct sampler **ret) {
  struct sampler_config config = {
      .types = {true, true},
      .settings_refresh_seconds = PLUGIN_SETTINGS_REFRESH_SECONDS,
  };
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    config.fd_budget = fd_budget_for_limit(rl.rlim_cur);
  snprintf(config.cgroup_root, sizeof(config.cgroup_root), "%s", tree->root);
  snprintf(config.memory_root, sizeof(config.memory_root), "%s",
           tree->memory_root);
  return sampler_new(&config, ret);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the guest sampler share: the sampler's state and the
 * per-guest struct (sampler.c: the API, the run loop and the guest array;
 * sampler_guest.c: a guest's directory and descriptors;
 * sampler_discovery.c: listing the type directories into the array;
 * sampler_read.c: reading a guest's files into a guest_sample).
 */
#ifndef PVECG_SAMPLER_INTERNAL_H
#define PVECG_SAMPLER_INTERNAL_H

#include "pvecg/sampler.h"

#include "dir_change.h"
#include "guest_net.h"
#include "guest_settings.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* memory.stat is the largest file read (~1.5 KiB v1, ~2 KiB on 6.x v2). */
#define SAMPLER_BUF_SIZE 16384
/* How often a guest's missing files are looked for again (a controller can
 * be enabled after the cgroup was made). */
#define SAMPLER_MISSING_RETRY_SECONDS 30.0

struct guest {
  uint64_t key; /* type << 32 | vmid: the sort order */
  ino_t ino;    /* of the cgroup2 directory */
  int fd[GUEST_FILE_COUNT];
  enum cgroup_memory_version memory_version;
  unsigned failed;  /* guest_file bits that failed in the last sample */
  unsigned missing; /* guest_file bits that could not be opened */
  double retry_at;  /* monotonic time of the next attempt to open them */
  unsigned listed;  /* scan generation in which the directory was seen */
  unsigned sampled; /* run generation in which it was sampled */
  bool gone;
  bool kept; /* files stay open; otherwise opened for each sample */
  bool cpu_have_prev;
  uint64_t cpu_prev_usec; /* cpu.stat usage_usec at cpu_prev_time */
  double cpu_prev_time;
  struct guest_settings settings;
};

/* A directory found by a scan that is not tracked yet. */
struct pending {
  uint64_t key;
  ino_t ino;
};

struct sampler {
  struct sampler_config config;
  struct guest *guests;
  size_t count, cap;
  struct pending *pending;
  size_t pending_count, pending_cap;
  unsigned scan_gen, run_gen;
  size_t kept_count; /* guests whose files stay open */
  struct dir_change changes[GUEST_TYPE_COUNT];
  unsigned long listings, listings_skipped;
  unsigned host_cpus;
  unsigned wanted_files; /* guest_file bits to open */
  struct guest_net net;
  char config_buf[65536];
  char usage_buf[SAMPLER_BUF_SIZE];
  char buf[SAMPLER_BUF_SIZE];
};

/* The halves of a guest's key (see guest_key()). */
static inline enum guest_type sampler_key_type(uint64_t key) {
  return (enum guest_type)(key >> 32);
}

static inline uint32_t sampler_key_vmid(uint64_t key) { return (uint32_t)key; }

/* sampler_guest.c */
extern const char *const sampler_type_dirs[GUEST_TYPE_COUNT];
int sampler_guest_dir_path(const char *root, uint64_t key, char *buf,
                           size_t size);
void sampler_guest_close_files(struct guest *g);
int sampler_guest_open_missing(const struct sampler *s, struct guest *g,
                               ino_t *ino);
int sampler_guest_init(struct sampler *s, struct guest *g, uint64_t key,
                       double now);
int sampler_open_unkept(const struct sampler *s, struct guest *g);

/* sampler_discovery.c: lists the type directories, drops the guests that
 * are gone and opens the new ones. */
int sampler_scan(struct sampler *s, double now);

/* sampler_read.c: fills out for g.  Returns -ENODEV when the guest has
 * disappeared. */
int sampler_sample_guest(struct sampler *s, struct guest *g, double now,
                         struct guest_sample *out);

#endif

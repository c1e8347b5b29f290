/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One guest as the sampler tracks it: its key (type, vmid), the inode of
 * its cgroup directory, its descriptors, and what reading it carries from
 * one sample to the next.  sampler_guest.c opens and closes the files; it
 * calls nothing else of the sampler's.  Above it, sampler_discovery.c
 * makes and drops guests, sampler_read.c reads them, and the run loop in
 * sampler.c drives both.
 */
#ifndef PVECG_SAMPLER_GUEST_H
#define PVECG_SAMPLER_GUEST_H

#include "guest_settings.h"

#include "pvecg/guest.h"
#include "pvecg/stall_counter.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How often a guest's missing files are looked for again (a controller can
 * be enabled after the cgroup was made): after 30 s, then twice as long
 * each time they are still missing, up to 8 minutes.  A host without an io
 * controller in cgroup2 never has io.stat, and looking for it (with the
 * v1 memory.swap.current then also looked for) in every guest every 30 s
 * was 5 % of collectd's CPU in a profile at 1,000 guests. */
#define SAMPLER_MISSING_RETRY_SECONDS 30.0
#define SAMPLER_MISSING_RETRY_MAX_SECONDS 480.0

struct guest {
  uint64_t key; /* type << 32 | vmid: the sort order */
  ino_t ino;    /* of the cgroup2 directory */
  int fd[GUEST_FILE_COUNT];
  enum cgroup_memory_version memory_version;
  unsigned failed;   /* guest_file bits that failed in the last sample */
  unsigned missing;  /* guest_file bits that could not be opened */
  double retry_at;   /* monotonic time of the next attempt to open them */
  double retry_wait; /* ...and the wait before it */
  unsigned listed;   /* scan generation in which the directory was seen */
  unsigned sampled;  /* run generation in which it was sampled */
  bool gone;
  bool kept; /* files stay open; otherwise opened for each sample */
  bool cpu_have_prev;
  uint64_t cpu_prev_usec; /* cpu.stat usage_usec at cpu_prev_time */
  double cpu_prev_time;
  struct guest_settings settings;
  /* The QEMU process's ksm_stat (guest_ksm.h), open from the first read
   * after its pid was found until the process is gone; -1 when not open. */
  int ksm_fd;
  struct stall_counter stall; /* of this cgroup: a new one starts afresh */
};

/* Where the guests' files are, and which of them to open. */
struct guest_dirs {
  const char *cgroup_root; /* holds qemu.slice/ and lxc/ */
  const char *memory_root; /* the v1 memory hierarchy, "" for none */
  unsigned wanted;         /* guest_file bits */
};

/* The type directories below a cgroup root: "qemu.slice", "lxc". */
extern const char *const sampler_type_dirs[GUEST_TYPE_COUNT];

/* The halves of a guest's key (see guest_key()). */
static inline enum guest_type sampler_key_type(uint64_t key) {
  return (enum guest_type)(key >> 32);
}

static inline uint32_t sampler_key_vmid(uint64_t key) { return (uint32_t)key; }

/* <root>/qemu.slice/<vmid>.scope or <root>/lxc/<vmid>.  Returns 0 or
 * -ENAMETOOLONG. */
int sampler_guest_dir_path(const char *root, uint64_t key, char *buf,
                           size_t size);

/*
 * Sets g up for key and opens its wanted files (those that do not exist
 * yet are looked for again later).  Returns 0, or a negative errno when
 * its cgroup2 directory cannot be opened: it has vanished since the
 * listing.  The files stay open until sampler_guest_close_files().
 */
int sampler_guest_open(const struct guest_dirs *dirs, struct guest *g,
                       uint64_t key, double now);

/*
 * Makes g's files ready to read: every wanted file of a guest beyond the
 * descriptor budget (!g->kept), the missing ones of a kept guest when it
 * is time to look again.  Returns 0, or -ENODEV when the guest's
 * directory is gone or is another one (a new inode).
 */
int sampler_guest_ready(const struct guest_dirs *dirs, struct guest *g,
                        double now);

void sampler_guest_close_files(struct guest *g);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading one guest whose files are open into a guest_sample
 * (sampler_read.c): its memory, pressure, CPU and IO files, its settings,
 * KSM and its network counters.  The run loop (sampler.c) opens the files
 * first; the reader opens none of them and keeps only its buffers and the
 * host's network counters.
 */
#ifndef PVECG_SAMPLER_READ_H
#define PVECG_SAMPLER_READ_H

#include "guest_net.h"
#include "sampler_guest.h"

#include "pvecg/sampler.h"

/* memory.stat is the largest file read (~1.5 KiB v1, ~2 KiB on 6.x v2). */
#define SAMPLER_BUF_SIZE 16384

struct sampler_reader {
  const struct sampler_config *config;
  unsigned host_cpus;
  struct guest_net net;
  /* The run's plan (sampler_plan_next()): KSM statistics, the VMs' QEMU
   * processes found and their ksm_stat kept open, read in this run; the
   * stall counters advanced at wall-clock time wall. */
  bool ksm_active;
  bool ksm_due;
  bool stall_due;
  double wall;
  char config_buf[65536];
  char usage_buf[SAMPLER_BUF_SIZE];
  char buf[SAMPLER_BUF_SIZE];
};

/* config must outlive r. */
void sampler_reader_init(struct sampler_reader *r,
                         const struct sampler_config *config,
                         unsigned host_cpus);
void sampler_reader_free(struct sampler_reader *r);

/* Once per run, before the guests: re-reads the network counters. */
void sampler_reader_begin_run(struct sampler_reader *r);

/* Fills out for g.  Returns 0, or -ENODEV when the guest's cgroup has
 * disappeared (a file read failed with ENODEV or ENOENT). */
int sampler_read_guest(struct sampler_reader *r, struct guest *g, double now,
                       struct guest_sample *out);

#endif

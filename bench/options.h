/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The benchmark's command line, parsed by main.c and read by the modes.
 */
#ifndef PVECG_BENCH_OPTIONS_H
#define PVECG_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

enum bench_writer {
  WRITER_NONE, /* no write plugin: dispatch ends in collectd's cache */
  WRITER_RRD,  /* pve_rrd into a temporary DataDir */
  /* pve_rrd through an rrdcached started for the benchmark, whose CPU
   * counts with collectd's */
  WRITER_RRDCACHED,
};

struct bench_options {
  size_t guests;            /* --guests N */
  bool fixture;             /* --fixture: never real cgroups */
  unsigned intervals;       /* --intervals K; 0: a default for the mode */
  unsigned rounds;          /* --rounds R; 0: a default for the mode */
  unsigned soak;            /* --soak INTERVALS (methods mode) */
  unsigned gap_ms;          /* --gap-ms: sleep between timed intervals */
  unsigned gib;             /* --gib G (ksm mode) */
  unsigned warmup;          /* --warmup SECONDS (collectd mode) */
  enum bench_writer writer; /* --writer none|rrd (collectd mode) */
  unsigned write_threads;   /* --write-threads (collectd); 0: its default */
  /* --ksm (collectd mode): pve_cgroup with KSM true, one idle process in
   * each guest for it to find and read */
  bool ksm;
  /* --guest-procs (collectd mode): the same idle process in each guest
   * with KSM left false, so that a KSM-off run is made on --ksm's machine
   * (1,000 more processes) and the two differ by the plugin's reads only */
  bool guest_procs;
  const char *csv;          /* --csv FILE; NULL: no CSV */
  const char *collectd;     /* --collectd PATH */
  const char *plugin_dir;   /* where pve_cgroup.so and pve_rrd.so are */
  const char *dispatch_dir; /* where bench_dispatch.so is */
  const char *types_db;     /* pvecg-types.db */
};

/* Exit statuses of the modes besides 0 and 1. */
#define BENCH_EXIT_SKIPPED 77      /* cannot be measured here */
#define BENCH_EXIT_INTERRUPTED 130 /* SIGINT/SIGTERM/SIGHUP */

#endif

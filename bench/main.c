/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg-bench: the benchmark behind docs/performance.md.
 *
 *   pvecg-bench methods  --guests N [--fixture] [--intervals K] [--rounds R]
 *                        [--gap-ms MS] [--soak INTERVALS] [--csv FILE]
 *   pvecg-bench ksm      --gib G [--csv FILE]
 *   pvecg-bench collectd --guests N [--fixture] [--intervals K] [--rounds R]
 *                        [--warmup S] [--writer none|rrd|rrdcached]
 *                        [--write-threads T] [--ksm] [--guest-procs]
 *                        [--csv FILE] [--collectd PATH] [--plugin-dir DIR]
 *   pvecg-bench peers    --guests N [--intervals K] [--rounds R] [--warmup S]
 *                        [--csv FILE] [--collectd PATH] [--plugin-dir DIR]
 *
 * This file parses the command line, raises the descriptor limit for N
 * guests and runs the mode; the modes are methods.c (with soak.c), ksm.c,
 * collectd_run.c and peers.c.
 */
#include "collectd_run.h"
#include "pvecg/guest.h"
#include "interrupt.h"
#include "ksm.h"
#include "methods.h"
#include "options.h"
#include "peers.h"
#include "small_file.h"
#include "soak.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MAX_GUESTS 100000

static void usage(FILE *f) {
  fputs("usage: pvecg-bench methods  --guests N [--fixture] [--intervals K] "
        "[--rounds R]\n"
        "                            [--gap-ms MS] [--soak INTERVALS] "
        "[--csv FILE]\n"
        "       pvecg-bench ksm      --gib G [--csv FILE]\n"
        "       pvecg-bench collectd --guests N [--fixture] [--intervals K] "
        "[--rounds R]\n"
        "                            [--warmup S] "
        "[--writer none|rrd|rrdcached] "
        "[--write-threads T] [--ksm] [--guest-procs]\n"
        "                            [--csv FILE] [--collectd PATH] "
        "[--plugin-dir DIR]\n"
        "       pvecg-bench peers    --guests N [--intervals K] [--rounds R] "
        "[--warmup S]\n"
        "                            [--csv FILE] [--collectd PATH] "
        "[--plugin-dir DIR]\n",
        f);
}

static int parse_unsigned(const char *arg, unsigned long max,
                          unsigned long *ret) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(arg, &end, 10);
  if (errno || end == arg || *end || arg[0] == '-' || v > max)
    return -1;
  *ret = v;
  return 0;
}

static const struct option long_options[] = {
    {"guests", required_argument, NULL, 'n'},
    {"fixture", no_argument, NULL, 'f'},
    {"intervals", required_argument, NULL, 'k'},
    {"rounds", required_argument, NULL, 'r'},
    {"soak", required_argument, NULL, 's'},
    {"gap-ms", required_argument, NULL, 'G'},
    {"gib", required_argument, NULL, 'g'},
    {"warmup", required_argument, NULL, 'w'},
    {"writer", required_argument, NULL, 'W'},
    {"write-threads", required_argument, NULL, 'T'},
    {"ksm", no_argument, NULL, 'K'},
    {"guest-procs", no_argument, NULL, 'p'},
    {"csv", required_argument, NULL, 'c'},
    {"collectd", required_argument, NULL, 'C'},
    {"plugin-dir", required_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_option(int c, struct bench_options *o) {
  unsigned long v = 0;
  switch (c) {
  case 'f':
    o->fixture = true;
    return 0;
  case 'K':
    o->ksm = true;
    return 0;
  case 'p':
    o->guest_procs = true;
    return 0;
  case 'W':
    if (strcmp(optarg, "none") && strcmp(optarg, "rrd") &&
        strcmp(optarg, "rrdcached"))
      return -1;
    o->writer = strcmp(optarg, "rrd") == 0         ? WRITER_RRD
                : strcmp(optarg, "rrdcached") == 0 ? WRITER_RRDCACHED
                                                   : WRITER_NONE;
    return 0;
  case 'c':
    o->csv = optarg;
    return 0;
  case 'C':
    o->collectd = optarg;
    return 0;
  case 'P':
    o->plugin_dir = optarg;
    return 0;
  case 'n':
  case 'k':
  case 'r':
  case 's':
  case 'g':
  case 'w':
  case 'G':
  case 'T':
    break;
  default:
    return -1;
  }
  if (parse_unsigned(optarg, c == 'n' ? MAX_GUESTS : 10000000, &v) < 0 ||
      v == 0)
    return -1;
  if (c == 'n')
    o->guests = v;
  else if (c == 'k')
    o->intervals = (unsigned)v;
  else if (c == 'r')
    o->rounds = (unsigned)v;
  else if (c == 's')
    o->soak = (unsigned)v;
  else if (c == 'g')
    o->gib = (unsigned)v;
  else if (c == 'G')
    o->gap_ms = (unsigned)v;
  else if (c == 'T')
    o->write_threads = (unsigned)v;
  else
    o->warmup = (unsigned)v;
  return 0;
}

/* N guests need their files open twice (sampler and floor) here, and once
 * in collectd, which inherits the limit. */
static void raise_nofile(size_t guests) {
  rlim_t need = (rlim_t)guests * (GUEST_FILE_COUNT * 2 + 4) + 1024;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
    return;
  if (rl.rlim_max < need) {
    unsigned long nr_open = 0;
    small_file_read_ulong("/proc/sys/fs/nr_open", &nr_open);
    struct rlimit more = {need, need < nr_open ? need : (rlim_t)nr_open};
    if (more.rlim_max > rl.rlim_max && setrlimit(RLIMIT_NOFILE, &more) == 0)
      return;
  }
  rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < need)
    fprintf(stderr, "pvecg-bench: RLIMIT_NOFILE is %llu, %llu wanted\n",
            (unsigned long long)rl.rlim_cur, (unsigned long long)need);
}

int main(int argc, char **argv) {
  struct bench_options o = {
      .collectd = PVECG_BENCH_COLLECTD,
      .plugin_dir = PVECG_BENCH_PLUGIN_DIR,
      .dispatch_dir = PVECG_BENCH_DISPATCH_DIR,
      .types_db = PVECG_BENCH_TYPES_DB,
  };
  if (argc < 2 || argv[1][0] == '-') {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *mode = argv[1];
  int c;
  optind = 2;
  while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
    if (c == 'h') {
      usage(stdout);
      return 0;
    }
    if (parse_option(c, &o) < 0) {
      usage(stderr);
      return 2;
    }
  }
  bool needs_guests = strcmp(mode, "ksm") != 0;
  if (optind != argc || (needs_guests && o.guests == 0) ||
      (!needs_guests && o.gib == 0)) {
    usage(stderr);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  interrupt_install();
  raise_nofile(o.guests);
  if (strcmp(mode, "methods") == 0)
    return o.soak ? soak_mode(&o) : methods_mode(&o);
  if (strcmp(mode, "ksm") == 0)
    return ksm_mode(&o);
  if (strcmp(mode, "collectd") == 0)
    return collectd_mode(&o);
  if (strcmp(mode, "peers") == 0)
    return peers_mode(&o);
  usage(stderr);
  return 2;
}

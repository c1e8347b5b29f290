/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The peers mode's checks (see peers_check.h).
 */
#include "peers_check.h"

#include "child_proc.h"
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int peers_check_programs(const char *collectd) {
  if (geteuid() != 0) {
    fprintf(stderr, "pvecg-bench: peers needs root (cgroups, netdata)\n");
    return BENCH_EXIT_SKIPPED;
  }
  const char *const need[][2] = {
      {collectd, "collectd"},
      {PVECG_BENCH_RRDCACHED, "rrdcached (apt-get install rrdcached)"},
      {PVECG_BENCH_PERL, "perl"},
      {PVECG_BENCH_PERL_SCRIPT, "bench/peers/pve_read.pl"},
      {PVECG_BENCH_NETDATA, "netdata (apt-get install netdata)"},
  };
  for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
    if (access(need[i][0], R_OK) == 0)
      continue;
    fprintf(stderr, "pvecg-bench: peers: no %s at %s\n", need[i][1],
            need[i][0]);
    return BENCH_EXIT_SKIPPED;
  }
  return 0;
}

static void print_first_line(const char *label, char *const argv[]) {
  char out[512] = "";
  child_proc_capture(argv, out, sizeof(out));
  out[strcspn(out, "\n")] = '\0';
  printf("# %s: %s\n", label, out);
}

void peers_check_print_versions(void) {
  char *perl[] = {PVECG_BENCH_PERL, "-e", "print $^V", NULL};
  char *netdata[] = {PVECG_BENCH_NETDATA, "-V", NULL};
  print_first_line("perl", perl);
  print_first_line("netdata", netdata);
}

int peers_check_perl(const struct perl_path *perl, size_t guests) {
  size_t memory = 0, pressure = 0;
  int err = perl_path_check(perl, &memory, &pressure);
  if (err < 0) {
    fprintf(stderr, "pvecg-bench: pve_read.pl --check: %s\n", strerror(-err));
    return err;
  }
  printf("# Perl read path: %zu of %zu guests with memory, %zu with all six "
         "pressure values\n",
         memory, guests, pressure);
  return memory == guests && pressure == guests ? 0 : -EBADMSG;
}

void peers_check_print_charts(const struct netdata_charts *c, size_t guests) {
  printf("netdata charts for the %zu guests: mem_usage %zu, cpu_some %zu, "
         "memory_some %zu, memory_full %zu, io_some %zu, io_full %zu\n",
         guests, c->mem_usage, c->cpu_some, c->memory_some, c->memory_full,
         c->io_some, c->io_full);
}

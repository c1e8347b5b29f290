/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg-bench-write: rows per second through pve_rrd's write path, straight
 * into librrd and through rrdcached, for a number of guests (see
 * docs/performance.md).  Each run works in a fresh directory below
 * --dir (a pve-vm-9.0 file is 1.3 MB: 10,000 guests take 13.5 GB), removed
 * afterwards.
 *
 * usage: pvecg-bench-write [--guests N[,N...]] [--rounds R] [--threads T]
 *                          [--mode direct|daemon|both|away|backlog|disk]
 *                          [--write-timeouts W[,W...]] [--dir DIR]
 *
 * "away" writes through a daemon address nobody listens on: what a write
 * thread pays while rows only queue up.  "backlog" stops the daemon after
 * the first round, queues the others, and starts it again: the rows/s are
 * the drain of an outage's backlog.  "disk" writes a simulated day of rows
 * every 10 s and reports the bytes written per guest per day, through
 * rrdcached at each -w of --write-timeouts (0: straight into librrd, the
 * page cache writing back every 30 s); see disk_run.h.
 */
#include "disk_run.h"
#include "write_run.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct options {
  char guests[128];
  unsigned rounds, threads;
  const char *mode;
  const char *dir;
  char timeouts[128]; /* disk: rrdcached -w values, 0 for direct */
};

static int usage(void) {
  fprintf(stderr, "usage: pvecg-bench-write [--guests N[,N...]] [--rounds R] "
                  "[--threads T] [--mode direct|daemon|both|away|backlog|disk] "
                  "[--write-timeouts W[,W...]] [--dir DIR]\n");
  return 2;
}

static int parse(int argc, char **argv, struct options *o) {
  *o = (struct options){"1000,10000", 10, 4, "both", "/var/tmp", "0,300,1800"};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--guests") == 0)
      snprintf(o->guests, sizeof(o->guests), "%s", argv[i + 1]);
    else if (strcmp(argv[i], "--rounds") == 0)
      o->rounds = (unsigned)atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--threads") == 0)
      o->threads = (unsigned)atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--mode") == 0)
      o->mode = argv[i + 1];
    else if (strcmp(argv[i], "--dir") == 0)
      o->dir = argv[i + 1];
    else if (strcmp(argv[i], "--write-timeouts") == 0)
      snprintf(o->timeouts, sizeof(o->timeouts), "%s", argv[i + 1]);
    else
      return -1;
  }
  return argc % 2 == 1 ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

static void report(const char *mode, const struct write_run_options *w,
                   const struct write_run_result *r) {
  printf("%-7s %7zu %7u %11.0f %12.0f %12.0f %8.2f %8.0f %8.1f %9.1f %8.1f "
         "%8.2f %10zu %6llu\n",
         mode, w->guests, w->threads, (double)w->guests / r->create_s,
         (double)r->rows / r->update_s, (double)r->rows / r->writers_s,
         r->call_mean_us, r->call_max_us, r->cpu_us_per_row,
         r->daemon_us_per_row, r->flush_s, r->update_s, r->queue_peak,
         r->failed);
  fflush(stdout);
}

static bool make_dir(const struct options *o, char *dir, size_t size) {
  snprintf(dir, size, "%s/pvecg-bench-write.XXXXXX", o->dir);
  if (mkdtemp(dir) != NULL)
    return true;
  perror(dir);
  return false;
}

static int run_one(const struct options *o, size_t guests, bool daemon,
                   bool away, bool backlog) {
  char dir[512];
  if (!make_dir(o, dir, sizeof(dir)))
    return -1;
  struct write_run_options w = {dir,    guests, o->rounds, o->threads,
                                daemon, away,   backlog};
  struct write_run_result r;
  int err = write_run(&w, &r);
  if (err == 0)
    report(backlog  ? "backlog"
           : away   ? "away"
           : daemon ? "daemon"
                    : "direct",
           &w, &r);
  nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  return err;
}

static double per_guest_day(uint64_t bytes, const struct disk_run_options *w) {
  return (double)bytes / 1024 / (double)w->guests * 86400 / w->seconds;
}

static void report_disk(const struct disk_run_options *w,
                        const struct disk_run_result *r) {
  printf(
      "%-7s %-7s %7zu %6u %10u %10.1f %11.1f %10.1f %10.1f %6llu %7.1f\n",
      w->write_timeout ? "daemon" : "direct", w->cold ? "read" : "created",
      w->guests, w->write_timeout ? w->write_timeout : w->writeback, r->cycles,
      per_guest_day(r->file_bytes, w), per_guest_day(r->journal_bytes, w),
      r->device_bytes < 0 ? -1.0 : per_guest_day((uint64_t)r->device_bytes, w),
      (double)r->rows / (double)w->guests, (unsigned long long)r->failed,
      r->wall_s);
  fflush(stdout);
}

static int disk_one(const struct options *o, size_t guests, unsigned timeout,
                    bool cold) {
  char dir[512];
  struct disk_run_options d = {dir, guests, 10, timeout, 30, 86400, cold};
  struct disk_run_result r;
  if (!make_dir(o, dir, sizeof(dir)))
    return -1;
  int err = disk_run(&d, &r);
  if (err == 0)
    report_disk(&d, &r);
  nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  return err;
}

/* One simulated day per guest count, -w and state of the page cache (see
 * disk_run.h). */
static int run_disk(struct options *o) {
  printf("# a simulated day, a row every 10 s; KiB per guest per day; "
         "cache: the files' pages as created or as read back\n"
         "# writer cache    guests  -w s writes/day   file KiB journal KiB "
         "device KiB rows/guest failed  wall s\n");
  int status = 0;
  for (char *gs, *g = strtok_r(o->guests, ",", &gs); g != NULL;
       g = strtok_r(NULL, ",", &gs)) {
    char timeouts[sizeof(o->timeouts)];
    memcpy(timeouts, o->timeouts, sizeof(timeouts));
    for (char *ws, *w = strtok_r(timeouts, ",", &ws); w != NULL;
         w = strtok_r(NULL, ",", &ws))
      for (int cold = 0; cold < 2; cold++)
        if (disk_one(o, (size_t)strtoul(g, NULL, 10), (unsigned)atoi(w),
                     cold) != 0)
          status = 1;
  }
  return status;
}

int main(int argc, char **argv) {
  struct options o;
  if (parse(argc, argv, &o) != 0)
    return usage();
  if (strcmp(o.mode, "disk") == 0)
    return run_disk(&o);
  printf("# rounds %u (the first creates the files); rows/s: update rounds\n"
         "# mode    guests threads  create f/s  applied r/s  writers r/s "
         " call µs   max µs  cpu µs/r daemon µs/r flush s apply s queue "
         "peak failed\n",
         o.rounds);
  int status = 0;
  for (char *save, *g = strtok_r(o.guests, ",", &save); g != NULL;
       g = strtok_r(NULL, ",", &save)) {
    size_t guests = (size_t)strtoul(g, NULL, 10);
    bool all = strcmp(o.mode, "both") == 0;
    if ((all || strcmp(o.mode, "direct") == 0) &&
        run_one(&o, guests, false, false, false) != 0)
      status = 1;
    if ((all || strcmp(o.mode, "daemon") == 0) &&
        run_one(&o, guests, true, false, false) != 0)
      status = 1;
    if (strcmp(o.mode, "away") == 0 &&
        run_one(&o, guests, true, true, false) != 0)
      status = 1;
    if (strcmp(o.mode, "backlog") == 0 &&
        run_one(&o, guests, true, false, true) != 0)
      status = 1;
  }
  return status;
}

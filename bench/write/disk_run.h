/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the write path costs the disk: one simulated day of pve-vm-9.0 rows
 * (one every `interval` seconds per guest) for `guests` files, written as
 * pve_rrd writes them, and the bytes the kernel counts as written.
 *
 * A day is not waited for.  Through rrdcached, the daemon writes a file
 * once every -w seconds with every row that came in meanwhile: each cycle
 * here hands over -w seconds of rows (the daemon takes them into its cache
 * and journal), then has every file written (FLUSH), which is the write
 * the daemon's timer would have made.  Straight into librrd every row
 * changes the file's pages at once, and the page cache writes them back
 * once they have been dirty for vm.dirty_expire_centisecs (30 s by
 * default): each cycle there is that many seconds of rows, then a
 * write-back.  Pages are written back (syncfs) after every phase, so the
 * next change to a page counts again, as it does on a host.
 *
 * The kernel writes a dirty page cache folio whole, and since 6.16 ext4
 * keeps files in folios of up to 2 MiB: a file written sequentially (as
 * rrd_create does) stays in large folios, and one changed byte then costs
 * the whole folio.  `cold` measures the files as they are after the page
 * cache was dropped (a reboot, memory pressure).
 */
#ifndef PVECG_BENCH_DISK_RUN_H
#define PVECG_BENCH_DISK_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct disk_run_options {
  const char *dir; /* an empty directory for the files (and the daemon) */
  size_t guests;
  unsigned interval; /* seconds between a guest's rows (Proxmox: 10) */
  /* rrdcached's -w in seconds, or 0: straight into librrd, written back
   * every `writeback` seconds */
  unsigned write_timeout;
  unsigned writeback;
  unsigned seconds; /* simulated time (86400: a day) */
  /* Drop the page cache once the files exist: they come back in pages of
   * the size their writer's reads bring in, instead of the large folios
   * their creation (one sequential write) leaves behind. */
  bool cold;
};

struct disk_run_result {
  unsigned cycles;        /* writes of every file */
  uint64_t rows;          /* rows applied */
  uint64_t file_bytes;    /* dirtied in the RRD files (by the daemon or,
                             straight, by this process) */
  uint64_t journal_bytes; /* dirtied in the daemon's journal */
  int64_t device_bytes;   /* the device's count over the same phases,
                             -1 when unknown */
  uint64_t failed;        /* rows not applied */
  double wall_s;
};

/* Returns 0, or -1 with a message on stderr. */
int disk_run(const struct disk_run_options *o, struct disk_run_result *r);

#endif

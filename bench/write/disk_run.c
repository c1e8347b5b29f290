/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One simulated day of writes and the bytes it costs the disk (see
 * disk_run.h).
 */
#include "disk_run.h"

#include "daemon_proc.h"
#include "disk_io.h"
#include "pvecg/monotonic.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_sink.h"
#include "vm_row.h"

#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

struct day {
  const struct disk_run_options *o;
  struct rrd_sink *sink;
  struct daemon_proc daemon;
  time_t base;        /* the time of row 0 */
  unsigned per_cycle; /* rows per guest between two writes of a file */
  uint64_t dev_start;
  bool dev_known;
};

/* Bytes the writer of the files has dirtied so far. */
static uint64_t writer_bytes(const struct day *d) {
  uint64_t b = 0;
  disk_io_process_bytes(d->o->write_timeout ? d->daemon.pid : 0, &b);
  return b;
}

static void sink_log(void *ctx, enum rrd_sink_level level, const char *msg) {
  (void)ctx;
  if (level == RRD_SINK_ERROR)
    fprintf(stderr, "  %s\n", msg);
}

static int open_sink(struct day *d) {
  const struct disk_run_options *o = d->o;
  char data[400], err[256] = "";
  if (o->write_timeout && daemon_proc_start(&d->daemon, o->dir) != 0)
    return -1;
  snprintf(data, sizeof(data), "%s/%s", o->dir,
           o->write_timeout ? "db/pvecg" : "pvecg");
  struct rrd_sink_options so = {
      .data_dir = data,
      .daemon_address = o->write_timeout ? d->daemon.address : NULL,
      .recheck_seconds = 86400,
      .queue_size = o->guests * (d->per_cycle + 1),
      .timeout = 600,
      .log = sink_log,
  };
  if (rrd_sink_new(&so, &d->sink, err, sizeof(err)) != 0) {
    fprintf(stderr, "rrd_sink_new: %s\n", err);
    return -1;
  }
  return 0;
}

/* Rows first..first+count-1 of every guest, then (through the daemon) until
 * the daemon has taken them all. */
static void hand_over(struct day *d, unsigned first, unsigned count) {
  double v[RRD_LAYOUT_DS_MAX];
  char name[24];
  for (unsigned n = first; n < first + count; n++)
    for (size_t g = 0; g < d->o->guests; g++) {
      vm_row_values(g, n, v);
      snprintf(name, sizeof(name), "%zu", 100 + g);
      rrd_sink_write(d->sink, &layout_pve_vm_9_0, NULL, name,
                     d->base + (time_t)n * d->o->interval, v,
                     layout_pve_vm_9_0.ds_count);
    }
  struct rrd_sink_stats st;
  for (rrd_sink_stats(d->sink, &st); st.daemon && st.queued > 0;
       rrd_sink_stats(d->sink, &st))
    usleep(1000);
}

/* One write of every file: its rows, then the write the daemon's timer
 * or the page cache would make. */
static void cycle(struct day *d, unsigned c, struct disk_run_result *r) {
  uint64_t before = writer_bytes(d);
  hand_over(d, 1 + c * d->per_cycle, d->per_cycle);
  disk_io_write_back(d->o->dir);
  uint64_t taken = writer_bytes(d);
  rrd_sink_flush(d->sink, NULL, NULL, NULL);
  disk_io_write_back(d->o->dir);
  uint64_t written = writer_bytes(d);
  if (d->o->write_timeout) {
    r->journal_bytes += taken - before;
    r->file_bytes += written - taken;
  } else {
    r->file_bytes += written - before;
  }
}

static void count(struct day *d, struct disk_run_result *r) {
  struct rrd_sink_stats st;
  rrd_sink_stats(d->sink, &st);
  r->rows = st.store.rows[RRD_STORE_WRITTEN];
  for (int i = 0; i < RRD_STORE_OUTCOMES; i++)
    if (i != RRD_STORE_CREATED && i != RRD_STORE_WRITTEN)
      r->failed += st.store.rows[i];
  r->failed += st.overflowed;
  uint64_t dev;
  r->device_bytes = d->dev_known && disk_io_device_bytes(d->o->dir, &dev) == 0
                        ? (int64_t)(dev - d->dev_start)
                        : -1;
}

int disk_run(const struct disk_run_options *o, struct disk_run_result *r) {
  unsigned span = o->write_timeout ? o->write_timeout : o->writeback;
  if (o->interval == 0 || span < o->interval || o->seconds < span) {
    fprintf(stderr, "-w (or the write-back) must hold a row, a day a -w\n");
    return -1;
  }
  struct day d = {.o = o, .per_cycle = span / o->interval};
  d.base = time(NULL) - (time_t)o->seconds - 3600;
  d.base -= d.base % o->interval;
  *r = (struct disk_run_result){0};
  if (open_sink(&d) != 0) {
    daemon_proc_stop(&d.daemon);
    return -1;
  }
  hand_over(&d, 0, 1); /* creates the files */
  rrd_sink_flush(d.sink, NULL, NULL, NULL);
  disk_io_write_back(o->dir);
  if (o->cold && disk_io_drop_cache() != 0) {
    fprintf(stderr, "cannot drop the page cache (not root?)\n");
    rrd_sink_free(d.sink);
    daemon_proc_stop(&d.daemon);
    return -1;
  }
  d.dev_known = disk_io_device_bytes(o->dir, &d.dev_start) == 0;
  double t0 = monotonic_seconds();
  for (r->cycles = 0; r->cycles < o->seconds / span; r->cycles++)
    cycle(&d, r->cycles, r);
  r->wall_s = monotonic_seconds() - t0;
  count(&d, r);
  rrd_sink_free(d.sink);
  daemon_proc_stop(&d.daemon);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One measurement of the write path (see write_run.h).  The writers call
 * rrd_sink_write exactly as pve_rrd's write callback does, with rows of
 * the pve-vm-9.0 layout whose values change every round (so rrd has real
 * work), at times one second apart in the past.
 */
#include "write_run.h"

#include "daemon_proc.h"
#include "proc_usage.h"
#include "vm_row.h"
#include "pvecg/monotonic.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_sink.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct shared {
  const struct write_run_options *o;
  struct rrd_sink *sink;
  struct daemon_proc *daemon;
  pthread_barrier_t start, done;
  time_t base;
  unsigned round;
  double call_sum_us[64], call_max_us[64]; /* per thread */
};

struct writer {
  struct shared *s;
  unsigned id;
};

static void write_round(struct writer *w) {
  struct shared *s = w->s;
  double v[RRD_LAYOUT_DS_MAX];
  char name[24];
  for (size_t g = w->id; g < s->o->guests; g += s->o->threads) {
    vm_row_values(g, s->round, v);
    snprintf(name, sizeof(name), "%zu", 100 + g);
    double t0 = monotonic_seconds();
    rrd_sink_write(s->sink, &layout_pve_vm_9_0, NULL, name,
                   s->base + (time_t)s->round, v, layout_pve_vm_9_0.ds_count);
    double us = (monotonic_seconds() - t0) * 1e6;
    if (s->round > 0) {
      s->call_sum_us[w->id] += us;
      if (us > s->call_max_us[w->id])
        s->call_max_us[w->id] = us;
    }
  }
}

static void *writer_main(void *arg) {
  struct writer *w = arg;
  for (unsigned r = 0; r < w->s->o->rounds; r++) {
    pthread_barrier_wait(&w->s->start);
    write_round(w);
    pthread_barrier_wait(&w->s->done);
  }
  return NULL;
}

/* Through the daemon, a round is done when the queue is empty (never,
 * while the daemon is away). */
static void wait_applied(const struct write_run_options *o,
                         struct rrd_sink *sink) {
  struct rrd_sink_stats st;
  for (rrd_sink_stats(sink, &st); st.daemon && !o->daemon_away && st.queued > 0;
       rrd_sink_stats(sink, &st))
    usleep(1000);
}

static unsigned long errors;

static void count_errors(void *ctx, enum rrd_sink_level level,
                         const char *message) {
  (void)ctx;
  if (level == RRD_SINK_ERROR && errors++ < 3)
    fprintf(stderr, "  %s\n", message);
}

static int open_sink(const struct write_run_options *o, struct daemon_proc *d,
                     struct rrd_sink **sink) {
  char data[400], err[256] = "";
  if (o->daemon && o->daemon_away)
    snprintf(d->address, sizeof(d->address), "unix:%.200s/nobody.sock", o->dir);
  else if (o->daemon && daemon_proc_start(d, o->dir) != 0)
    return -1;
  snprintf(data, sizeof(data), "%s/%s", o->dir,
           o->daemon ? "db/pvecg" : "pvecg");
  struct rrd_sink_options so = {
      .data_dir = data,
      .daemon_address = o->daemon ? d->address : NULL,
      .recheck_seconds = 300,
      .queue_size = o->guests * (o->rounds + 1),
      .timeout = o->daemon_away ? 1 : 600,
      .log = count_errors,
  };
  if (rrd_sink_new(&so, sink, err, sizeof(err)) != 0) {
    fprintf(stderr, "rrd_sink_new: %s\n", err);
    return -1;
  }
  return 0;
}

static double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The daemon's CPU time in seconds (0 without one). */
static double daemon_cpu_s(const struct shared *s) {
  struct proc_cpu cpu;
  if (s->daemon->pid <= 0 || proc_cpu_read(s->daemon->pid, &cpu) != 0)
    return 0;
  return cpu.runtime_ns ? (double)cpu.runtime_ns / 1e9
                        : (double)cpu.ticks / (double)sysconf(_SC_CLK_TCK);
}

/* One round: every writer hands over its guests' rows. */
static void one_round(struct shared *s) {
  pthread_barrier_wait(&s->start);
  pthread_barrier_wait(&s->done);
}

static void run_rounds(struct shared *s, struct write_run_result *r) {
  double round_start = monotonic_seconds();
  one_round(s); /* round 0: the files */
  wait_applied(s->o, s->sink);
  r->create_s = monotonic_seconds() - round_start;
  if (s->o->backlog)
    daemon_proc_stop(s->daemon);
  double t0 = monotonic_seconds(), cpu0 = cpu_s();
  double daemon0 = daemon_cpu_s(s);
  for (s->round = 1; s->round < s->o->rounds; s->round++)
    one_round(s);
  r->writers_s = monotonic_seconds() - t0;
  if (s->o->backlog) {
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", s->o->dir);
    daemon_proc_start(s->daemon, dir);
    t0 = monotonic_seconds();
  }
  wait_applied(s->o, s->sink);
  r->update_s = monotonic_seconds() - t0;
  double rows = (double)s->o->guests * (s->o->rounds - 1);
  r->cpu_us_per_row = (cpu_s() - cpu0) * 1e6 / rows;
  r->daemon_us_per_row = (daemon_cpu_s(s) - daemon0) * 1e6 / rows;
}

static void collect(struct shared *s, struct write_run_result *r) {
  struct rrd_sink_stats st;
  rrd_sink_stats(s->sink, &st);
  r->rows = (unsigned long long)s->o->guests * (s->o->rounds - 1);
  double sum = 0, max = 0;
  for (unsigned i = 0; i < s->o->threads; i++) {
    sum += s->call_sum_us[i];
    max = s->call_max_us[i] > max ? s->call_max_us[i] : max;
  }
  r->call_mean_us = r->rows ? sum / (double)r->rows : 0;
  r->call_max_us = max;
  r->queue_peak = st.queue_peak;
  r->failed = 0;
  for (int i = 0; i < RRD_STORE_OUTCOMES; i++)
    if (i != RRD_STORE_CREATED && i != RRD_STORE_WRITTEN &&
        i != RRD_STORE_UNAVAILABLE) /* those go again */
      r->failed += st.store.rows[i];
  r->failed += st.overflowed;
}

int write_run(const struct write_run_options *o, struct write_run_result *r) {
  if (o->threads == 0 || o->threads > 64 || o->rounds < 2) {
    fprintf(stderr, "1-64 threads and at least 2 rounds\n");
    return -1;
  }
  struct daemon_proc d = {0};
  struct shared s = {
      .o = o, .daemon = &d, .base = time(NULL) - (time_t)o->rounds - 5};
  *r = (struct write_run_result){0};
  if (open_sink(o, &d, &s.sink) != 0) {
    daemon_proc_stop(&d);
    return -1;
  }
  pthread_barrier_init(&s.start, NULL, o->threads + 1);
  pthread_barrier_init(&s.done, NULL, o->threads + 1);
  pthread_t threads[64];
  struct writer writers[64];
  for (unsigned i = 0; i < o->threads; i++) {
    writers[i] = (struct writer){&s, i};
    pthread_create(&threads[i], NULL, writer_main, &writers[i]);
  }
  run_rounds(&s, r);
  for (unsigned i = 0; i < o->threads; i++)
    pthread_join(threads[i], NULL);
  collect(&s, r);
  double t0 = monotonic_seconds();
  if (!o->daemon_away)
    rrd_sink_flush(s.sink, NULL, NULL, NULL);
  r->flush_s = o->daemon ? monotonic_seconds() - t0 : 0;
  rrd_sink_free(s.sink);
  daemon_proc_stop(&d);
  pthread_barrier_destroy(&s.start);
  pthread_barrier_destroy(&s.done);
  errors = 0;
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The soak (see soak.h).  The figures are taken after a warm-up (the first
 * tenth of the intervals), when allocator arenas and the
 * sampler's arrays have reached their size, and compared with the end.
 */
#include "soak.h"

#include "guest_tree.h"
#include "interrupt.h"
#include "proc_usage.h"
#include "pvecg/sampler.h"
#include "sampler_setup.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct soak_point {
  size_t fds, sampler_fds;
  uint64_t rss;
};

struct soak_count {
  size_t visited;
};

static void count_visit(const struct guest_sample *sample, void *ctx) {
  (void)sample;
  ((struct soak_count *)ctx)->visited++;
}

static int take_point(const struct sampler *sampler, struct soak_point *p) {
  int err = proc_fd_count(0, &p->fds);
  if (err == 0)
    err = proc_rss_bytes(0, &p->rss);
  p->sampler_fds = sampler_fd_count(sampler);
  return err;
}

struct soak_result {
  struct soak_point before, after, max;
  unsigned missed; /* intervals in which the sampler did not visit N */
  unsigned done;
};

static int soak_loop(struct guest_tree *tree, struct sampler *sampler,
                     unsigned intervals, struct soak_result *res) {
  unsigned warm = intervals / 10 ? intervals / 10 : 1;
  for (unsigned i = 0; i < intervals; i++) {
    if (interrupted())
      return -EINTR;
    int err = guest_tree_replace(tree, i % tree->count, i % 3 == 2);
    if (err < 0) {
      fprintf(stderr, "pvecg-bench: cannot replace a guest: %s\n",
              strerror(-err));
      return err;
    }
    struct soak_count count = {0};
    if ((err = sampler_run(sampler, count_visit, &count)) < 0)
      return err;
    res->missed += count.visited != tree->count;
    res->done = i + 1;
    struct soak_point p;
    if (i + 1 < warm || take_point(sampler, &p) < 0)
      continue;
    if (i + 1 == warm)
      res->before = res->max = p;
    /* Ten checkpoints, so that a step can be told from a slope. */
    if ((i + 1) % warm == 0)
      printf("# interval %6u: %zu fds, RSS %" PRIu64 " KiB\n", i + 1, p.fds,
             p.rss / 1024);
    if (p.fds > res->max.fds)
      res->max.fds = p.fds;
    if (p.rss > res->max.rss)
      res->max.rss = p.rss;
    res->after = p;
  }
  return 0;
}

static bool report(const struct soak_result *r, size_t guests) {
  printf("# soak: %u intervals, %zu guests, one replaced per interval\n",
         r->done, guests);
  printf("%-16s %12s %12s %12s\n", "", "after warm-up", "at the end",
         "maximum");
  printf("%-16s %12zu %12zu %12zu\n", "open fds", r->before.fds, r->after.fds,
         r->max.fds);
  printf("%-16s %12zu %12zu %12s\n", "sampler fds", r->before.sampler_fds,
         r->after.sampler_fds, "");
  printf("%-16s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", "RSS KiB",
         r->before.rss / 1024, r->after.rss / 1024, r->max.rss / 1024);
  printf("intervals in which the sampler did not visit every guest: %u\n",
         r->missed);
  bool ok = r->after.fds <= r->before.fds && r->after.rss <= r->before.rss &&
            r->missed == 0;
  printf("soak: %s\n", ok ? "no growth" : "GROWTH OR MISSED GUESTS");
  return ok;
}

int soak_mode(const struct bench_options *o) {
  struct guest_tree tree;
  int err = guest_tree_create_best(&tree, o->guests, o->fixture);
  if (err < 0) {
    fprintf(stderr, "pvecg-bench: cannot make the guests: %s\n",
            strerror(-err));
    return err == -EINTR ? BENCH_EXIT_INTERRUPTED : 1;
  }
  printf("# soak on %s below %s\n",
         tree.kind == GUEST_TREE_CGROUP ? "real cgroups" : "a fixture tree",
         tree.root);
  struct sampler *sampler = NULL;
  struct soak_result res;
  memset(&res, 0, sizeof(res));
  err = sampler_setup_new(&tree, &sampler);
  if (err == 0)
    err = soak_loop(&tree, sampler, o->soak, &res);
  bool ok = err == 0 && report(&res, tree.count);
  sampler_free(sampler);
  guest_tree_remove(&tree);
  if (err == -EINTR)
    return BENCH_EXIT_INTERRUPTED;
  if (err < 0)
    fprintf(stderr, "pvecg-bench: soak failed: %s\n", strerror(-err));
  return ok ? 0 : 1;
}

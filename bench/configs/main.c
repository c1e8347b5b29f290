/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg-bench-configs: what pve_cgroup's check of whose guests are this
 * node's costs each interval (src/sample/local_configs.c).
 *
 *   pvecg-bench-configs [--dir DIR] [--guests N] [--checks K]
 *
 * Builds a tree as pmxcfs presents /etc/pve below DIR (default: a new
 * directory in /tmp; give a FUSE mount, e.g. bindfs over a directory, for
 * a file system answered by a daemon as pmxcfs is): N configurations on
 * this node, as many on another, qemu-server and lxc as links, and
 * .version.  Then times K checks with the guest list unchanged (the read
 * of .version every interval) and K with its counter moved before each
 * (.version and the two directories listed).  Prints the median, minimum
 * and maximum per check in microseconds, wall time and this thread's CPU.
 */
#include "local_configs.h"

#include "pvecg/monotonic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct options {
  const char *dir;
  unsigned guests, checks;
};

static double cpu_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void must(int ok, const char *what, const char *path) {
  if (!ok) {
    fprintf(stderr, "pvecg-bench-configs: %s %s: %s\n", what, path,
            strerror(errno));
    exit(1);
  }
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  must(f != NULL, "cannot write", path);
  fputs(text, f);
  must(fclose(f) == 0, "cannot write", path);
}

static void set_counter(const char *dir, unsigned vmlist) {
  char path[4096], text[128];
  snprintf(path, sizeof(path), "%s/.version", dir);
  snprintf(
      text, sizeof(text),
      "{\n\"starttime\": 1764934800,\n\"clinfo\": 3,\n\"vmlist\": %u,\n}\n",
      vmlist);
  write_file(path, text);
}

static void make_tree(const struct options *o) {
  char path[4096];
  const char *parts[] = {"nodes",       "nodes/a",
                         "nodes/b",     "nodes/a/qemu-server",
                         "nodes/a/lxc", "nodes/b/qemu-server",
                         "nodes/b/lxc"};
  for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++) {
    snprintf(path, sizeof(path), "%s/%s", o->dir, parts[i]);
    must(mkdir(path, 0755) == 0 || errno == EEXIST, "cannot make", path);
  }
  for (unsigned i = 0; i < 2 * o->guests; i++) {
    snprintf(path, sizeof(path), "%s/nodes/%s/%s/%u.conf", o->dir,
             i % 2 ? "b" : "a", i % 4 < 2 ? "qemu-server" : "lxc", 100 + i);
    write_file(path, "memory: 2048\ncores: 2\n");
  }
  const char *links[] = {"qemu-server", "lxc"};
  for (int i = 0; i < 2; i++) {
    char target[64];
    snprintf(path, sizeof(path), "%s/%s", o->dir, links[i]);
    snprintf(target, sizeof(target), "nodes/a/%s", links[i]);
    unlink(path);
    must(symlink(target, path) == 0, "cannot link", path);
  }
  set_counter(o->dir, 1);
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, unsigned n) {
  qsort(v, n, sizeof(*v), compare);
  printf("%-28s median %8.1f  min %8.1f  max %8.1f us\n", what, v[n / 2], v[0],
         v[n - 1]);
}

/* Times o->checks refreshes, the counter moved before each when moving. */
static void time_checks(const struct options *o, struct local_configs *lc,
                        bool moving, const char *name) {
  double *wall = calloc(o->checks, sizeof(double));
  double *cpu = calloc(o->checks, sizeof(double));
  must(wall != NULL && cpu != NULL, "no memory for", "the figures");
  for (unsigned k = 0; k < o->checks; k++) {
    if (moving)
      set_counter(o->dir, 2 + k);
    double w0 = monotonic_seconds(), c0 = cpu_us();
    bool changed = local_configs_refresh(lc);
    cpu[k] = cpu_us() - c0;
    wall[k] = (monotonic_seconds() - w0) * 1e6;
    if (changed && !moving && k > 0)
      fprintf(stderr, "pvecg-bench-configs: listed without a change\n");
  }
  char label[96];
  snprintf(label, sizeof(label), "%s, wall", name);
  report(label, wall, o->checks);
  snprintf(label, sizeof(label), "%s, CPU", name);
  report(label, cpu, o->checks);
  free(wall);
  free(cpu);
}

int main(int argc, char **argv) {
  struct options o = {.guests = 100, .checks = 2000};
  char tmp[] = "/tmp/pvecg-bench-configs.XXXXXX";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--dir") == 0)
      o.dir = argv[i + 1];
    else if (strcmp(argv[i], "--guests") == 0)
      o.guests = (unsigned)strtoul(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--checks") == 0)
      o.checks = (unsigned)strtoul(argv[i + 1], NULL, 10);
    else {
      fprintf(stderr, "usage: %s [--dir DIR] [--guests N] [--checks K]\n",
              argv[0]);
      return 2;
    }
  }
  if (o.dir == NULL)
    must((o.dir = mkdtemp(tmp)) != NULL, "cannot make", tmp);
  if (o.checks == 0)
    o.checks = 1;
  make_tree(&o);
  struct local_configs lc;
  local_configs_init(&lc, o.dir);
  local_configs_refresh(&lc);
  printf("# %s: %u configurations on this node, %u on another\n", o.dir,
         o.guests, o.guests);
  time_checks(&o, &lc, false, "unchanged (.version read)");
  time_checks(&o, &lc, true, "moved (.version + listing)");
  local_configs_free(&lc);
  return 0;
}

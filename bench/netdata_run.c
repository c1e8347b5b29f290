/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting, checking, measuring and stopping the netdata peer (see
 * netdata_run.h).
 */
#include "netdata_run.h"

#include "child_proc.h"
#include "collectd_proc.h"
#include "http_get.h"
#include "interrupt.h"
#include "netdata_conf.h"
#include "proc_family.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READY_POLL_S 2.0

static int make_dirs(const char *dir) {
  static const char *const subdirs[] = {"", "/cache", "/lib", "/log", "/lock"};
  for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s%s", dir, subdirs[i]);
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
      return -errno;
  }
  return 0;
}

static int start_instance(struct netdata_instance *in,
                          const struct netdata_target *t, size_t i,
                          int cgroup_v1) {
  snprintf(in->dir, sizeof(in->dir), "%s/%s-%zu", t->dir, t->name, i);
  in->cgroup_v1 = cgroup_v1;
  int err = make_dirs(in->dir);
  if (err == 0)
    err = http_free_port(&in->port);
  if (err < 0)
    return err;
  const char *root = t->idle ? t->empty : cgroup_v1 ? t->memory_root : t->root;
  struct netdata_conf conf = {
      .dir = in->dir,
      .port = in->port,
      .cgroup_v1 = cgroup_v1,
      .root = root,
      .empty = t->empty,
      /* the root and qemu.slice count too, though disabled */
      .max_cgroups = t->guests + 100,
  };
  char conf_path[PATH_MAX], out[PATH_MAX + 16];
  if ((err = netdata_conf_write(&conf, conf_path)) < 0)
    return err;
  snprintf(out, sizeof(out), "%s/out", in->dir);
  char *argv[] = {(char *)t->netdata, "-D", "-c", conf_path, NULL};
  in->pid = child_proc_start(argv, out);
  return in->pid < 0 ? (int)in->pid : 0;
}

int netdata_run_start(struct netdata_run *r, const struct netdata_target *t) {
  memset(r, 0, sizeof(*r));
  bool hybrid = t->memory_root[0] != '\0';
  int err = start_instance(&r->inst[0], t, 0, 0);
  r->count = r->inst[0].pid > 0;
  if (err == 0 && hybrid) {
    err = start_instance(&r->inst[1], t, 1, 1);
    r->count += r->inst[1].pid > 0;
  }
  if (err < 0)
    netdata_run_stop(r);
  return err;
}

static void count_charts(const char *json, struct netdata_charts *c) {
  /* The context of a chart, quoted: "cgroup.mem_usage" is not
   * "cgroup.mem_usage_limit" nor a chart id (cgroup_<name>.mem_usage). */
  c->mem_usage += http_count(json, "\"cgroup.mem_usage\"");
  c->cpu_some += http_count(json, "\"cgroup.cpu_some_pressure\"");
  c->memory_some += http_count(json, "\"cgroup.memory_some_pressure\"");
  c->memory_full += http_count(json, "\"cgroup.memory_full_pressure\"");
  c->io_some += http_count(json, "\"cgroup.io_some_pressure\"");
  c->io_full += http_count(json, "\"cgroup.io_full_pressure\"");
}

static bool complete(const struct netdata_charts *c, size_t n) {
  return c->mem_usage >= n && c->cpu_some >= n && c->memory_some >= n &&
         c->memory_full >= n && c->io_some >= n && c->io_full >= n;
}

/* Counts over every instance; -EAGAIN while one does not answer yet. */
static int poll_charts(const struct netdata_run *r, struct netdata_charts *c) {
  memset(c, 0, sizeof(*c));
  for (size_t i = 0; i < r->count; i++) {
    char *json = NULL;
    int err = http_get(r->inst[i].port, "/api/v1/charts", &json);
    if (err < 0)
      return -EAGAIN;
    count_charts(json, c);
    free(json);
  }
  return 0;
}

int netdata_run_wait_ready(const struct netdata_run *r, size_t guests,
                           unsigned timeout_s, struct netdata_charts *ret) {
  for (double waited = 0; waited <= timeout_s; waited += READY_POLL_S) {
    if (!netdata_run_alive(r))
      return -ECHILD;
    if (poll_charts(r, ret) == 0 && (guests == 0 || complete(ret, guests)))
      return 0;
    if (!interruptible_sleep(READY_POLL_S))
      return -EINTR;
  }
  return -ETIMEDOUT;
}

bool netdata_run_alive(const struct netdata_run *r) {
  for (size_t i = 0; i < r->count; i++)
    if (!collectd_proc_alive(r->inst[i].pid))
      return false;
  return r->count > 0;
}

uint64_t netdata_run_runtime_ns(const struct netdata_run *r) {
  uint64_t sum = 0;
  for (size_t i = 0; i < r->count; i++)
    sum += proc_family_runtime_ns(r->inst[i].pid);
  return sum;
}

void netdata_run_stop(struct netdata_run *r) {
  for (size_t i = 0; i < NETDATA_MAX_INSTANCES; i++) {
    if (r->inst[i].pid > 0)
      collectd_proc_stop(r->inst[i].pid);
    r->inst[i].pid = 0;
  }
  r->count = 0;
}

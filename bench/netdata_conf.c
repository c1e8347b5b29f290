/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes the peers mode's netdata.conf (see netdata_conf.h); the option
 * names are netdata 1.37's (collectors/cgroups.plugin/sys_fs_cgroup.c at
 * v1.37.1, and the /netdata.conf the daemon serves).
 */
#include "netdata_conf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

static void write_global(FILE *f, const struct netdata_conf *c) {
  fprintf(f,
          "[global]\n"
          "\trun as user = root\n"
          "\thostname = benchnode\n"
          "[db]\n"
          "\tupdate every = 1\n"
          "[directories]\n"
          "\tconfig = %s\n"
          "\tcache = %s/cache\n"
          "\tlib = %s/lib\n"
          "\tlog = %s/log\n"
          "\tlock = %s/lock\n"
          "[web]\n"
          "\tbind to = 127.0.0.1:%u\n"
          "[health]\n"
          "\tenabled = no\n"
          "[ml]\n"
          "\tenabled = no\n",
          c->dir, c->dir, c->dir, c->dir, c->dir, (unsigned)c->port);
}

/* Every collector of 1.37's [plugins] section off but cgroups. */
static void write_plugins(FILE *f) {
  static const char *const off[] = {
      "proc",       "diskspace", "tc",
      "idlejitter", "apps",      "python.d",
      "go.d",       "charts.d",  "ebpf",
      "timex",      "statsd",    "slabinfo",
      "fping",      "ioping",    "perf",
      "cups",       "nfacct",    "netdata monitoring"};
  fprintf(f, "[plugins]\n\tenable running new plugins = no\n"
             "\tcgroups = yes\n");
  for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
    fprintf(f, "\t%s = no\n", off[i]);
}

/* The cgroup names are the paths: the rename and network scripts would run
 * once per new cgroup (a shell each, 1,000 at start-up), never per
 * interval. */
static void write_cgroups(FILE *f, const struct netdata_conf *c) {
  fprintf(f,
          "[plugin:cgroups]\n"
          "\tupdate every = 1\n"
          "\tmax cgroups to allow = %zu\n"
          "\trun script to rename cgroups matching = !*\n"
          "\tscript to get cgroup network interfaces = /bin/true\n"
          "\tenable cpuacct stat (total CPU) = no\n"
          "\tenable cpuacct usage (per core CPU) = no\n"
          "\tenable cpuacct cpu throttling = no\n"
          "\tenable blkio bandwidth = no\n"
          "\tenable blkio operations = no\n"
          "\tenable memory = yes\n"
          "\tenable detailed memory = yes\n",
          c->max_cgroups);
  if (c->cgroup_v1) {
    fprintf(f,
            "\tuse unified cgroups = no\n"
            "\tpath to /sys/fs/cgroup/memory = %s\n"
            "\tpath to /sys/fs/cgroup/cpuacct = %s\n"
            "\tpath to /sys/fs/cgroup/cpuset = %s\n"
            "\tpath to /sys/fs/cgroup/blkio = %s\n"
            "\tpath to /sys/fs/cgroup/devices = %s\n",
            c->root, c->empty, c->empty, c->empty, c->empty);
    return;
  }
  fprintf(f,
          "\tuse unified cgroups = yes\n"
          "\tpath to unified cgroups = %s\n"
          "\tenable cpu pressure = yes\n"
          "\tenable io some pressure = yes\n"
          "\tenable io full pressure = yes\n"
          "\tenable memory some pressure = yes\n"
          "\tenable memory full pressure = yes\n",
          c->root);
}

static int touch_opt_out(const char *dir) {
  char path[PATH_MAX];
  snprintf(path, sizeof(path), "%s/.opt-out-from-anonymous-statistics", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  close(fd);
  return 0;
}

int netdata_conf_write(const struct netdata_conf *c, char *path) {
  int err = touch_opt_out(c->dir);
  if (err < 0)
    return err;
  snprintf(path, PATH_MAX, "%s/netdata.conf", c->dir);
  FILE *f = fopen(path, "we");
  if (!f)
    return -errno;
  write_global(f, c);
  write_plugins(f);
  write_cgroups(f, c);
  err = ferror(f) ? -EIO : 0;
  if (fclose(f) != 0 && err == 0)
    err = -errno;
  return err;
}

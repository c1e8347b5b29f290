/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes the collectd configurations of the collectd mode (see
 * collectd_conf.h).  Interval 1 and collectd's default thread counts (5
 * read, 5 write), as a stock installation has them, unless --write-threads
 * says otherwise.
 */
#include "collectd_conf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>

#define SYSTEM_PLUGIN_DIR "/usr/lib/collectd"
#define SYSTEM_TYPES_DB "/usr/share/collectd/types.db"

static void write_plugins(FILE *f, const struct collectd_conf *c) {
  const struct bench_options *o = c->options;
  fprintf(f,
          "PluginDir \"%s\"\n"
          "LoadPlugin logfile\n"
          "<Plugin logfile>\n"
          "  LogLevel info\n"
          "  File \"%s/%s.log\"\n"
          "  Timestamp true\n"
          "</Plugin>\n"
          "PluginDir \"%s\"\n"
          "LoadPlugin pve_cgroup\n",
          SYSTEM_PLUGIN_DIR, c->dir, c->name, o->plugin_dir);
  if (o->writer != WRITER_NONE)
    fprintf(f, "LoadPlugin pve_rrd\n");
  fprintf(f,
          "PluginDir \"%s\"\n"
          "LoadPlugin bench_dispatch\n",
          o->dispatch_dir);
}

static void write_plugin_blocks(FILE *f, const struct collectd_conf *c) {
  fprintf(f,
          "<Plugin pve_cgroup>\n"
          "  CgroupRoot \"%s\"\n"
          "  MemoryCgroupRoot \"%s\"\n"
          "%s%s%s"
          "</Plugin>\n"
          "<Plugin bench_dispatch>\n"
          "  Rows %zu\n"
          "  FirstVMID 100\n"
          "  SpacingUs %u\n"
          "%s%s%s"
          "</Plugin>\n",
          c->cgroup_root, c->memory_root,
          /* KSM: the QEMU pid from cgroup.procs (no pid files here);
           * off unless asked, whatever the host does (`KSM auto`) */
          c->options->ksm ? "  KSM true\n  RunDir \"" : "  KSM false\n",
          c->options->ksm ? c->dir : "", c->options->ksm ? "/run\"\n" : "",
          c->dispatch_rows, c->spacing_us,
          c->floor_files ? "  FloorFiles \"" : "",
          c->floor_files ? c->floor_files : "", c->floor_files ? "\"\n" : "");
  if (c->options->writer == WRITER_NONE)
    return;
  fprintf(f, "<Plugin pve_rrd>\n  DataDir \"%s\"\n", c->data_dir);
  if (c->daemon_address != NULL)
    fprintf(f, "  DaemonAddress \"%s\"\n", c->daemon_address);
  fprintf(f, "</Plugin>\n");
}

int collectd_conf_write(const struct collectd_conf *c, char *path) {
  snprintf(path, PATH_MAX, "%s/%s.conf", c->dir, c->name);
  FILE *f = fopen(path, "we");
  if (!f)
    return -errno;
  fprintf(f,
          "Hostname \"benchnode\"\n"
          "FQDNLookup false\n"
          "BaseDir \"%s\"\n"
          "PIDFile \"%s/%s.pid\"\n"
          "Interval 1\n"
          "TypesDB \"%s\" \"%s\"\n",
          c->dir, c->dir, c->name, SYSTEM_TYPES_DB, c->options->types_db);
  if (c->options->write_threads)
    fprintf(f, "WriteThreads %u\n", c->options->write_threads);
  write_plugins(f, c);
  write_plugin_blocks(f, c);
  int err = ferror(f) ? -EIO : 0;
  if (fclose(f) != 0 && err == 0)
    err = -errno;
  return err;
}

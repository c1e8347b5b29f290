/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg export: the history in RRD files (ours or Proxmox's pve-vm-9.0 and
 * pve-node-9.0 files, and the legacy pve2 ones before them) as Graphite
 * plaintext, InfluxDB line protocol, CSV or JSON lines, one point per stored
 * row, to stdout or straight to a listener.  This file reads the options and
 * runs the export over the chosen files; the rows, formats and network are in
 * export_*.c and net_sender.c.
 */
#include "commands.h"
#include "pvecg/export_files.h"
#include "pvecg/export_format.h"
#include "pvecg/export_range.h"
#include "pvecg/export_run.h"
#include "pvecg/net_sender.h"
#include "pvecg/rrdcached_client.h"
#include "pvecg/view_source.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CMD "pvecg export"
#define EXPORT_DEFAULT_TIMEOUT 10.0
#define ERR_SIZE 512

static const char usage_text[] =
    "usage: pvecg export --format graphite|influx|csv|json\n"
    "                    (--vmid VMID ... | --node NAME ... | --all)\n"
    "                    [--since T] [--until T] [--cf AVERAGE|MAX]\n"
    "                    [--to tcp://HOST:PORT | udp://HOST:PORT]\n"
    "                    [--timeout SECONDS] [--data-dir DIR]\n"
    "                    [--daemon ADDRESS] [--prefix PREFIX]\n"
    "\n"
    "Writes every stored row of the files in the range, each from the finest\n"
    "archive that holds it, oldest first; unknown values are left out.\n"
    "  --vmid, --node   the files pve-vm-9.0/VMID, pve-node-9.0/NAME, "
    "after\n"
    "                   their legacy pve2 files' rows (repeatable)\n"
    "  --all            every guest and node with a file in the data "
    "directory\n"
    "  --since, --until epoch seconds, now, or -N{s,m,h,d,w} (default: the\n"
    "                   oldest row, now); a row's time is its end\n"
    "  --to URL         send to a Graphite/InfluxDB listener instead of "
    "stdout\n"
    "  --timeout S      give up on the network after S seconds (10)\n"
    "  --data-dir DIR   where the files are (" PVECG_DEFAULT_DATA_DIR ")\n"
    "  --daemon ADDRESS read through rrdcached (unix:/path or host[:port])\n"
    "  --prefix PREFIX  Graphite path / InfluxDB measurement prefix (pve)\n"
    "Names: PREFIX.vm.VMID.DS, PREFIX.node.NAME.DS; PREFIX_vm,vmid=VMID and\n"
    "PREFIX_node,node=NAME with nanosecond times.  See pvecg-export(1).\n";

enum {
  OPT_FORMAT = 0x100,
  OPT_VMID,
  OPT_NODE,
  OPT_ALL,
  OPT_SINCE,
  OPT_UNTIL,
  OPT_CF,
  OPT_TO,
  OPT_TIMEOUT,
  OPT_DATA_DIR,
  OPT_DAEMON,
  OPT_PREFIX,
};

struct export_args {
  bool has_format, all;
  const char *since, *until, *to, *data_dir;
  double timeout;
  struct net_target target;
  struct export_files files;
  struct export_run run;
};

static int bad(const char *what, const char *value) {
  fprintf(stderr, CMD ": %s: '%s'\n", what, value);
  return -EINVAL;
}

static int missing(const char *what) {
  fprintf(stderr, CMD ": %s\n", what);
  return -EINVAL;
}

static int parse_cf(const char *value, enum rrd_cf *ret) {
  for (int cf = RRD_CF_AVERAGE; cf <= RRD_CF_MAX; cf++)
    if (strcmp(value, rrd_cf_name((enum rrd_cf)cf)) == 0) {
      *ret = (enum rrd_cf)cf;
      return 0;
    }
  return bad("--cf is AVERAGE or MAX", value);
}

static int parse_timeout(const char *value, double *ret) {
  char *end;
  errno = 0;
  double v = strtod(value, &end);
  if (errno != 0 || end == value || *end != '\0' || !(v > 0 && v <= 3600))
    return bad("--timeout is seconds, more than 0 and at most 3600", value);
  *ret = v;
  return 0;
}

static int add_file(struct export_args *a, enum export_kind kind,
                    const char *name) {
  int r = export_files_add(&a->files, kind, name);
  if (r == -EINVAL)
    return bad(kind == EXPORT_VM ? "not a VMID" : "not a node name", name);
  if (r < 0)
    fprintf(stderr, CMD ": %s\n", strerror(-r));
  return r;
}

static int set_option(struct export_args *a, int opt, const char *value) {
  struct export_run *run = &a->run;
  switch (opt) {
  case OPT_FORMAT:
    a->has_format = true;
    return export_format_parse(value, &run->format) == 0
               ? 0
               : bad("--format is graphite, influx, csv or json", value);
  case OPT_VMID:
    return add_file(a, EXPORT_VM, value);
  case OPT_NODE:
    return add_file(a, EXPORT_NODE, value);
  case OPT_ALL:
    a->all = true;
    return 0;
  case OPT_SINCE:
    a->since = value;
    return 0;
  case OPT_UNTIL:
    a->until = value;
    return 0;
  case OPT_CF:
    return parse_cf(value, &run->cf);
  case OPT_TO:
    a->to = value;
    return net_target_parse(value, &a->target) == 0
               ? 0
               : bad("--to is tcp://HOST:PORT or udp://HOST:PORT", value);
  case OPT_TIMEOUT:
    return parse_timeout(value, &a->timeout);
  case OPT_DATA_DIR:
    a->data_dir = value;
    return 0;
  case OPT_DAEMON:
    run->daemon = value;
    return 0;
  case OPT_PREFIX:
    run->prefix = value;
    return export_prefix_problem(value) == NULL
               ? 0
               : bad(export_prefix_problem(value), value);
  }
  return -EINVAL;
}

static int parse_times(struct export_args *a) {
  time_t now = time(NULL);
  struct export_run *run = &a->run;
  run->since = 0;
  run->until = now;
  if (a->since && export_time_parse(a->since, now, &run->since) < 0)
    return bad("--since is epoch seconds, now or -N{s,m,h,d,w}", a->since);
  if (a->until && export_time_parse(a->until, now, &run->until) < 0)
    return bad("--until is epoch seconds, now or -N{s,m,h,d,w}", a->until);
  if (run->since > run->until)
    return bad("--since is after --until", a->since);
  return 0;
}

/* What the options leave open: the required ones, and which files. */
static int check_args(struct export_args *a) {
  struct export_run *run = &a->run;
  if (!a->has_format)
    return missing("--format is required");
  if (a->all == (a->files.count > 0))
    return missing("give --vmid/--node, or --all");
  if (run->daemon && rrdcached_client_new(run->daemon, &run->client) < 0)
    return bad("not an rrdcached address", run->daemon);
  rrdcached_client_free(run->client);
  run->client = NULL;
  bool tcp = run->daemon && !rrdcached_address_is_unix(run->daemon);
  /* A daemon over TCP reads its own files, relative to its -b. */
  run->data_dir = a->data_dir ? a->data_dir
                  : tcp       ? NULL
                              : PVECG_DEFAULT_DATA_DIR;
  if (a->all && run->data_dir == NULL)
    return missing("--all lists a local directory: give --data-dir");
  return parse_times(a);
}

static int parse_args(int argc, char **argv, struct export_args *a) {
  static const struct option options[] = {
      {"format", required_argument, NULL, OPT_FORMAT},
      {"vmid", required_argument, NULL, OPT_VMID},
      {"node", required_argument, NULL, OPT_NODE},
      {"all", no_argument, NULL, OPT_ALL},
      {"since", required_argument, NULL, OPT_SINCE},
      {"until", required_argument, NULL, OPT_UNTIL},
      {"cf", required_argument, NULL, OPT_CF},
      {"to", required_argument, NULL, OPT_TO},
      {"timeout", required_argument, NULL, OPT_TIMEOUT},
      {"data-dir", required_argument, NULL, OPT_DATA_DIR},
      {"daemon", required_argument, NULL, OPT_DAEMON},
      {"prefix", required_argument, NULL, OPT_PREFIX},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
    if (opt == 'h') {
      fputs(usage_text, stdout);
      return 1;
    }
    if (opt == '?' || set_option(a, opt, optarg) < 0)
      return -EINVAL;
  }
  if (optind != argc)
    return bad("unexpected argument", argv[optind]);
  return check_args(a);
}

/* Every file in turn; a file that fails is reported and skipped, a
 * network error ends the export. */
static int export_all(struct export_args *a) {
  int status = PVECG_EXIT_OK;
  char err[ERR_SIZE] = "";
  for (size_t i = 0; i < a->files.count && !a->run.net_failed; i++) {
    const struct export_file *f = &a->files.file[i];
    err[0] = '\0';
    if (export_run_file(&a->run, f, err, sizeof(err)) == 0)
      continue;
    status = PVECG_EXIT_FAILURE;
    if (!a->run.net_failed)
      fprintf(stderr, CMD ": %s\n", err);
  }
  if (export_run_end(&a->run, err, sizeof(err)) < 0 || a->run.net_failed) {
    fprintf(stderr, CMD ": sending to %s: %s; %zu of %zu lines sent before\n",
            a->to, err, net_sender_lines_sent(a->run.net), a->run.total.lines);
    return PVECG_EXIT_FAILURE;
  }
  if (a->run.net != NULL)
    fprintf(stderr, CMD ": sent %zu lines (%zu values) to %s\n",
            net_sender_lines_sent(a->run.net), a->run.total.values, a->to);
  else if (fflush(stdout) != 0 || ferror(stdout)) {
    perror(CMD ": writing the output");
    return PVECG_EXIT_FAILURE;
  }
  return status;
}

static int run(struct export_args *a) {
  char err[ERR_SIZE];
  int r = a->all ? export_files_scan(&a->files, a->run.data_dir) : 0;
  if (r < 0) {
    fprintf(stderr, CMD ": %s: %s\n", a->run.data_dir, strerror(-r));
    return PVECG_EXIT_FAILURE;
  }
  if (a->to != NULL) {
    signal(SIGPIPE, SIG_IGN);
    if (net_sender_open(&a->target, a->timeout, &a->run.net, err, sizeof(err)) <
        0) {
      fprintf(stderr, CMD ": %s: %s\n", a->to, err);
      return PVECG_EXIT_FAILURE;
    }
  }
  if (export_run_begin(&a->run) < 0) {
    fprintf(stderr, CMD ": cannot start: out of memory or bad --daemon\n");
    net_sender_free(a->run.net);
    return PVECG_EXIT_FAILURE;
  }
  int status = export_all(a);
  net_sender_free(a->run.net);
  return status;
}

int cmd_export(int argc, char **argv) {
  struct export_args a = {.timeout = EXPORT_DEFAULT_TIMEOUT,
                          .run = {.cf = RRD_CF_AVERAGE, .prefix = "pve"}};
  int r = parse_args(argc, argv, &a);
  int status = r > 0 ? PVECG_EXIT_OK : r < 0 ? PVECG_EXIT_USAGE : run(&a);
  if (r < 0)
    fputs(usage_text, stderr);
  export_files_free(&a.files);
  return status;
}

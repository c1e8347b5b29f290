/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading `pvecg export`'s options (see export_args.h).
 */
#include "export_args.h"
#include "cli_number.h"
#include "cli_options.h"

#include "pvecg/export_range.h"
#include "pvecg/http_sender.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/rrdcached_client.h"
#include "pvecg/view_source.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Which command's options these are, for its messages: export's or
 * ship's (set from export_args.command as each option is read). */
static const char *cmd = "pvecg export";
#define CMD "%s"

const char export_usage_text[] =
    "usage: pvecg export --format "
    "influx|graphite|openmetrics|prometheus|remote-write|csv|json\n"
    "                    (--vmid VMID ... | --node NAME ... | --all)\n"
    "                    [--cluster NAME]\n"
    "                    [--names pve|pvecg] [--since T] [--until T]\n"
    "                    [--cf AVERAGE|MAX] [--to URL] [--token-file FILE]\n"
    "                    [--ca-file FILE] [--header 'NAME: value' ...]\n"
    "                    [--timeout SECONDS] [--batch-bytes N] [--quiet]\n"
    "                    [--data-dir DIR] [--daemon ADDRESS]\n"
    "                    [--pve-config-dir DIR] [--node-name NAME]\n"
    "                    [--unknown-guests qemu|lxc] [--prefix PREFIX]\n"
    "\n"
    "Writes every stored row of the files in the range, each from the finest\n"
    "archive that holds it, oldest first; unknown values are left out.\n"
    "  --vmid, --node   the files pve-vm-9.0/VMID, pve-node-9.0/NAME, "
    "after\n"
    "                   their legacy pve2 files' rows (repeatable), and\n"
    "                   pvecg's files of the guest or node after them:\n"
    "                   KSM (pvecg-ksm-*-1.0), stall time\n"
    "                   (pvecg-pressure-*-1.0)\n"
    "  --all            every guest and node with a file in the data "
    "directory\n"
    "                   (every cluster's), pvecg's files too\n"
    "  --cluster NAME   the files of this cluster (<data dir>/NAME); without\n"
    "                   it --vmid/--node take the data directory's own file,\n"
    "                   else the one cluster that has it\n"
    "  --names pve      Proxmox's metric names (default): InfluxDB system/\n"
    "                   cpustat/memory/... with object, vmid, nodename and\n"
    "                   host tags, Graphite proxmox.qemu.VMID.KEY, Prometheus\n"
    "                   prometheus-pve-exporter's names; counters rebuilt\n"
    "                   (stall totals in seconds: InfluxDB system\n"
    "                   stallcpusome...; Prometheus as /metrics:\n"
    "                   pve_pressure_RES_waiting_seconds_total (some),\n"
    "                   pve_pressure_RES_stalled_seconds_total (full))\n"
    "  --names pvecg    the RRD's own names and rates (graphite, influx)\n"
    "  --since, --until epoch seconds, now, or -N{s,m,h,d,w} (default: the\n"
    "                   oldest row, now); a row's time is its end\n"
    "  --to URL         tcp://HOST:PORT or udp://HOST:PORT (Graphite or\n"
    "                   InfluxDB line listener), http(s)://... (a write\n"
    "                   endpoint: InfluxDB /write?db=, /api/v2/write?...,\n"
    "                   VictoriaMetrics /write, /api/v1/import/prometheus;\n"
    "                   remote-write: Prometheus /api/v1/write, Mimir\n"
    "                   /api/v1/push, VictoriaMetrics /api/v1/write...)\n"
    "  --token-file F   HTTP: a token for the Authorization header\n"
    "  --header H       HTTP: one more request header, 'NAME: value'\n"
    "                   (repeatable; X-Scope-OrgID, THANOS-TENANT...)\n"
    "  --ca-file F      HTTPS: trust these CAs (default: the system's)\n"
    "  --timeout S      give up on the network after S seconds (10)\n"
    "  --batch-bytes N  HTTP: at most N bytes per request (1048576)\n"
    "  --quiet          no progress line on a terminal\n"
    "  --data-dir DIR   where the files are (" PVECG_DEFAULT_DATA_DIR ")\n"
    "  --daemon ADDRESS read through rrdcached (unix:/path or host[:port])\n"
    "  --pve-config-dir DIR  guests' types, names and nodes (/etc/pve);\n"
    "                   DIR/NAME for the cluster NAME\n"
    "  --node-name NAME the node of guests whose configuration does not "
    "name\n"
    "                   one (this host's name)\n"
    "  --unknown-guests qemu|lxc  export guests without a configuration as\n"
    "                   this type (default: skip them, with a message)\n"
    "  --prefix PREFIX  Graphite path prefix (proxmox; pvecg names: pve, "
    "also\n"
    "                   their InfluxDB measurement prefix)\n"
    "See pvecg-export(1).\n";

static int bad(const char *what, const char *value) {
  fprintf(stderr, CMD ": %s: '%s'\n", cmd, what, value);
  return -EINVAL;
}

static int missing(const char *what) {
  fprintf(stderr, CMD ": %s\n", cmd, what);
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
  double v;
  if (cli_seconds(value, 0, 3600, &v) < 0 || v == 0)
    return bad("--timeout is seconds, more than 0 and at most 3600", value);
  *ret = v;
  return 0;
}

static int parse_batch(const char *value, size_t *ret) {
  uint64_t v;
  if (cli_count(value, 1024, 64ull * 1024 * 1024, &v) < 0)
    return bad("--batch-bytes is 1024 to 67108864", value);
  *ret = (size_t)v;
  return 0;
}

static int add_file(struct export_args *a, enum export_kind kind,
                    const char *name) {
  int r = export_files_add(&a->files, kind, name);
  if (r == -EINVAL)
    return bad(kind == EXPORT_VM ? "not a VMID" : "not a node name", name);
  if (r < 0)
    fprintf(stderr, CMD ": %s\n", cmd, strerror(-r));
  return r;
}

static int set_to(struct export_args *a, const char *value) {
  a->to = value;
  a->http = http_url_is_http(value);
  if (a->http || net_target_parse(value, &a->target) == 0)
    return 0;
  return bad("--to is tcp://HOST:PORT, udp://HOST:PORT or http(s)://...",
             value);
}

static int set_unknown(struct export_args *a, const char *value) {
  if (strcmp(value, "qemu") != 0 && strcmp(value, "lxc") != 0)
    return bad("--unknown-guests is qemu or lxc", value);
  a->run.unknown_type = value;
  return 0;
}

static int set_node_name(struct export_args *a, const char *value) {
  if (rrd_file_name_problem(value) != NULL ||
      strlen(value) >= sizeof(a->node_name))
    return bad("not a node name", value);
  snprintf(a->node_name, sizeof(a->node_name), "%s", value);
  return 0;
}

/* Which files and how they are named. */
static int set_what(struct export_args *a, int opt, const char *value) {
  struct export_run *run = &a->run;
  switch (opt) {
  case OPT_FORMAT:
    a->has_format = true;
    return export_format_parse(value, &run->format) == 0
               ? 0
               : bad("--format is influx, graphite, openmetrics, "
                     "prometheus, csv or json",
                     value);
  case OPT_VMID:
    return add_file(a, EXPORT_VM, value);
  case OPT_NODE:
    return add_file(a, EXPORT_NODE, value);
  case OPT_ALL:
    a->all = true;
    return 0;
  case OPT_NAMES:
    return export_names_parse(value, &run->names) == 0
               ? 0
               : bad("--names is pve or pvecg", value);
  case OPT_CF:
    return parse_cf(value, &run->cf);
  case OPT_PREFIX:
    a->prefix_set = true;
    run->prefix = value;
    return export_prefix_problem(value) == NULL
               ? 0
               : bad(export_prefix_problem(value), value);
  case OPT_UNKNOWN:
    return set_unknown(a, value);
  case OPT_NODE_NAME:
    return set_node_name(a, value);
  case OPT_CLUSTER:
    a->cluster = value;
    return rrd_cluster_name_problem(value) == NULL
               ? 0
               : bad(rrd_cluster_name_problem(value), value);
  }
  return 1; /* not one of these */
}

/* A request header: a token of a name, a colon, a value; never a line
 * break (it would start a header of its own). */
static int add_header(struct export_args *a, const char *value) {
  size_t name = strspn(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrst"
                              "uvwxyz0123456789!#$%&'*+-.^_`|~");
  if (name == 0 || value[name] != ':' || strpbrk(value, "\r\n") != NULL)
    return bad("--header is 'NAME: value' on one line", value);
  if (a->header_count == EXPORT_HEADERS_MAX)
    return bad("too many --header options", value);
  a->headers[a->header_count++] = value;
  return 0;
}

/* Where from, where to, and when. */
static int set_how(struct export_args *a, int opt, const char *value) {
  switch (opt) {
  case OPT_SINCE:
    a->since = value;
    return 0;
  case OPT_UNTIL:
    a->until = value;
    return 0;
  case OPT_TO:
    return set_to(a, value);
  case OPT_TOKEN_FILE:
    a->token_file = value;
    return 0;
  case OPT_CA_FILE:
    a->ca_file = value;
    return 0;
  case OPT_HEADER:
    return add_header(a, value);
  case OPT_TIMEOUT:
    return parse_timeout(value, &a->timeout);
  case OPT_BATCH_BYTES:
    return parse_batch(value, &a->run.batch_max);
  case OPT_QUIET:
    a->quiet = true;
    return 0;
  case OPT_DATA_DIR:
    a->data_dir = value;
    return 0;
  case OPT_DAEMON:
    a->run.daemon = value;
    return 0;
  case OPT_CONFIG_DIR:
    a->config_dir = value;
    return 0;
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

/* The token: the file's first line, never given on the command line. */
static int read_token(struct export_args *a) {
  FILE *f = fopen(a->token_file, "re");
  if (f == NULL) {
    fprintf(stderr, CMD ": --token-file %s: %s\n", cmd, a->token_file,
            strerror(errno));
    return -EINVAL;
  }
  if (fgets(a->token, sizeof(a->token), f) == NULL)
    a->token[0] = '\0';
  fclose(f);
  a->token[strcspn(a->token, "\r\n")] = '\0';
  if (a->token[0] == '\0')
    return missing("--token-file holds no token");
  return 0;
}

/* The format, the names and the target must fit together. */
static int check_combination(struct export_args *a) {
  struct export_run *run = &a->run;
  bool rw = run->format == EXPORT_REMOTE_WRITE;
  bool om = run->format == EXPORT_OPENMETRICS ||
            run->format == EXPORT_PROMETHEUS || rw;
  bool pve = run->names == EXPORT_NAMES_PVE;
  if (om && !pve)
    return missing("--format openmetrics/prometheus/remote-write has "
                   "Prometheus' names: leave out --names pvecg");
  if (rw && !a->http)
    return missing("--format remote-write posts to an http(s):// --to");
  if (a->header_count > 0 && !a->http)
    return missing("--header is for an http(s):// --to");
  if (pve && run->format == EXPORT_INFLUX && a->prefix_set)
    return missing("--prefix: Proxmox's InfluxDB measurements have none "
                   "(--names pvecg takes one)");
  if (a->to != NULL && !a->http && run->format != EXPORT_INFLUX &&
      run->format != EXPORT_GRAPHITE)
    return missing("--to tcp:// or udp:// takes graphite or influx");
  if (a->http && run->format != EXPORT_INFLUX && !om)
    return missing("--to http(s):// takes influx, openmetrics, prometheus "
                   "or remote-write (Graphite: --to tcp://)");
  if ((a->token_file != NULL || a->ca_file != NULL) && !a->http)
    return missing("--token-file and --ca-file are for an http(s):// --to");
  char why[256];
  if (a->http && run->format == EXPORT_INFLUX &&
      http_url_time_scale(a->to, &run->time_scale, why, sizeof(why)) < 0)
    return missing(why);
  if (!a->prefix_set)
    run->prefix = pve ? "proxmox" : "pve";
  return a->token_file != NULL ? read_token(a) : 0;
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
  int r = check_combination(a);
  return r < 0 ? r : parse_times(a);
}

/* This host's short name, as Proxmox names its node. */
static void default_node_name(struct export_args *a) {
  if (a->node_name[0] != '\0' ||
      gethostname(a->node_name, sizeof(a->node_name)) != 0)
    return;
  a->node_name[sizeof(a->node_name) - 1] = '\0';
  a->node_name[strcspn(a->node_name, ".")] = '\0';
}

/* The options export and ship share: one spelling for both. */
static const struct option shared[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"names", required_argument, NULL, OPT_NAMES},
    {"since", required_argument, NULL, OPT_SINCE},
    {"cf", required_argument, NULL, OPT_CF},
    {"to", required_argument, NULL, OPT_TO},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"ca-file", required_argument, NULL, OPT_CA_FILE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"batch-bytes", required_argument, NULL, OPT_BATCH_BYTES},
    {"data-dir", required_argument, NULL, OPT_DATA_DIR},
    {"daemon", required_argument, NULL, OPT_DAEMON},
    {"pve-config-dir", required_argument, NULL, OPT_CONFIG_DIR},
    {"node-name", required_argument, NULL, OPT_NODE_NAME},
    {"unknown-guests", required_argument, NULL, OPT_UNKNOWN},
    {"prefix", required_argument, NULL, OPT_PREFIX},
    {"header", required_argument, NULL, OPT_HEADER},
    {"help", no_argument, NULL, 'h'},
};

void export_options_join(const struct option *own, size_t n,
                         struct option out[EXPORT_OPTIONS_MAX]) {
  size_t m = sizeof(shared) / sizeof(shared[0]), at = 0;
  for (size_t i = 0; i < n && at < EXPORT_OPTIONS_MAX - 1; i++)
    out[at++] = own[i];
  for (size_t i = 0; i < m && at < EXPORT_OPTIONS_MAX - 1; i++)
    out[at++] = shared[i];
  out[at] = (struct option){NULL, 0, NULL, 0};
}

int export_args_option(struct export_args *a, int opt, const char *value) {
  cmd = a->command != NULL ? a->command : "pvecg export";
  int r = set_what(a, opt, value);
  return r > 0 ? set_how(a, opt, value) : r;
}

int export_args_finish(struct export_args *a) {
  cmd = a->command != NULL ? a->command : "pvecg export";
  default_node_name(a);
  a->run.local_node = a->node_name;
  return check_args(a);
}

void export_args_http_options(struct export_args *a,
                              struct http_sender_options *o) {
  static const char *const rw[] = {"Content-Encoding: snappy",
                                   "X-Prometheus-Remote-Write-Version: 0.1.0"};
  bool remote = a->run.format == EXPORT_REMOTE_WRITE;
  if (remote && !a->remote_headers) {
    memmove(a->headers + 2, a->headers, a->header_count * sizeof(char *));
    a->headers[0] = rw[0];
    a->headers[1] = rw[1];
    a->headers[a->header_count + 2] = NULL;
    a->remote_headers = true;
  }
  *o = (struct http_sender_options){
      .url = a->to,
      .token = a->token[0] != '\0' ? a->token : NULL,
      .ca_file = a->ca_file,
      .insecure = a->insecure,
      .timeout = a->timeout,
      .content_type = remote ? "application/x-protobuf" : NULL,
      .headers = a->headers};
}

static int take_option(void *a, int opt, const char *value) {
  return export_args_option(a, opt, value) < 0 ? -EINVAL : 0;
}

int export_args_parse(int argc, char **argv, struct export_args *a) {
  static const struct option own[] = {
      {"vmid", required_argument, NULL, OPT_VMID},
      {"node", required_argument, NULL, OPT_NODE},
      {"all", no_argument, NULL, OPT_ALL},
      {"cluster", required_argument, NULL, OPT_CLUSTER},
      {"until", required_argument, NULL, OPT_UNTIL},
      {"quiet", no_argument, NULL, OPT_QUIET},
  };
  struct option options[EXPORT_OPTIONS_MAX];
  export_options_join(own, sizeof(own) / sizeof(own[0]), options);
  const struct cli_command command = {"pvecg export", export_usage_text,
                                      options, false};
  int r = cli_options_read(&command, argc, argv, take_option, a);
  return r != 0 ? r : export_args_finish(a);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg ship: keeps a store fed from the RRD files (src/shipping/ship.c),
 * with the export's options where they mean the same (export_args.c) and
 * its own: the state directory, the interval, Graphite's resend window;
 * or, with --status, what the state directory says of each target.
 */
#include "commands.h"
#include "cli_number.h"
#include "cli_options.h"
#include "export_args.h"
#include "pve_metric_target.h"
#include "pvecg/fd_budget.h"
#include "pvecg/ship.h"
#include "pvecg/ship_status.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "pvecg ship"
#define DEFAULT_STATE_DIR "/var/lib/pvecg/ship"
#define DEFAULT_INTERVAL 60
#define DEFAULT_RESEND 600
#define DEFAULT_ROWS 360 /* six hours of minute rows per file per round */
#define DEFAULT_TIMEOUT 10.0

static const char usage_text[] =
    "usage: pvecg ship --pve-metric-server ID | --format "
    "influx|prometheus|graphite --to URL\n"
    "                  [--state-dir DIR] [--interval SECONDS] [--once]\n"
    "                  [--since T] [--resend SECONDS] [--names pve|pvecg]\n"
    "                  [--token-file FILE] [--ca-file FILE] [--timeout S]\n"
    "                  [--batch-bytes N] [--rows-per-round N]\n"
    "                  [--data-dir DIR] [--daemon ADDRESS]\n"
    "                  [--pve-config-dir DIR] [--node-name NAME]\n"
    "                  [--unknown-guests qemu|lxc] [--prefix P] [--cf CF]\n"
    "       pvecg ship --status [--state-dir DIR] [--prometheus]\n"
    "\n"
    "Every interval sends each file's rows after its cursor to the store,\n"
    "as `pvecg export` writes them, and moves the cursor once the store\n"
    "acknowledged them; a store that was away gets every row the files\n"
    "still hold.  Every guest's and node's files of the data directory:\n"
    "pve-vm-9.0, pve-node-9.0 and pvecg's KSM and stall-time files beside\n"
    "them; counters (the stall totals' too) go on across passes and\n"
    "restarts.\n"
    "  --pve-metric-server ID|all  the target an entry of Proxmox's "
    "Datacenter ->\n"
    "                   Metric Server names (<pve-config-dir>/status.cfg): "
    "the\n"
    "                   series Proxmox's live values go to (HTTP(S) InfluxDB,\n"
    "                   TCP Graphite; UDP acknowledges nothing: refused)\n"
    "  --to URL         http(s)://... with influx (InfluxDB /write?db=,\n"
    "                   /api/v2/write?..., VictoriaMetrics /write) or\n"
    "                   prometheus (VictoriaMetrics /api/v1/import/"
    "prometheus);\n"
    "                   tcp://HOST:PORT with graphite (carbon)\n"
    "  --state-dir DIR  cursors and totals (" DEFAULT_STATE_DIR "), one\n"
    "                   shipper at a time\n"
    "  --interval S     seconds between passes (60)\n"
    "  --once           one pass, then exit (1 when not everything went)\n"
    "  --since T        where files without a cursor start (default: their\n"
    "                   first row); epoch seconds, now or -N{s,m,h,d,w}\n"
    "  --resend S       graphite: seconds of rows sent again on every new\n"
    "                   connection (600)\n"
    "  --rows-per-round N  rows per file before the next file's (360)\n"
    "  --status         what the state directory says of each target\n"
    "  --prometheus     --status in Prometheus' text format\n"
    "The other options are pvecg export's.  See pvecg-ship(1).\n";

enum {
  OPT_STATE_DIR = 0x200,
  OPT_INTERVAL,
  OPT_ONCE,
  OPT_RESEND,
  OPT_ROWS,
  OPT_STATUS,
  OPT_PROMETHEUS,
  OPT_PVE_METRIC_SERVER,
};

struct ship_args {
  struct export_args export;
  struct ship_options options;
  bool status, prometheus;
  const char *metric_server; /* --pve-metric-server ID */
  struct pve_metric_target entry;
  char identity[1024];
  char shown[512];
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig) {
  (void)sig;
  stopping = 1;
}

static int bad(const char *what, const char *value) {
  fprintf(stderr, CMD ": %s: '%s'\n", what, value);
  return -EINVAL;
}

static int parse_count(const char *value, unsigned long min, unsigned long max,
                       unsigned long *ret) {
  uint64_t v = 0;
  if (cli_count(value, min, max, &v) < 0)
    return -EINVAL;
  *ret = (unsigned long)v;
  return 0;
}

static int set_own(struct ship_args *s, int opt, const char *value) {
  unsigned long v;
  switch (opt) {
  case OPT_STATE_DIR:
    s->options.state_dir = value;
    return 0;
  case OPT_INTERVAL:
    if (parse_count(value, 1, 86400, &v) < 0)
      return bad("--interval is 1 to 86400 seconds", value);
    s->options.interval = (unsigned)v;
    return 0;
  case OPT_RESEND:
    if (parse_count(value, 0, 86400, &v) < 0)
      return bad("--resend is 0 to 86400 seconds", value);
    s->options.resend = (unsigned)v;
    return 0;
  case OPT_ROWS:
    if (parse_count(value, 1, 100000, &v) < 0)
      return bad("--rows-per-round is 1 to 100000", value);
    s->options.row_limit = v;
    return 0;
  case OPT_ONCE:
    s->options.once = true;
    return 0;
  case OPT_STATUS:
    s->status = true;
    return 0;
  case OPT_PROMETHEUS:
    s->prometheus = true;
    return 0;
  case OPT_PVE_METRIC_SERVER:
    s->metric_server = value;
    return 0;
  }
  return export_args_option(&s->export, opt, value);
}

/* The target as a person reads it: no password, no query (a token can be
 * in either). */
static void shown_target(const char *url, char *buf, size_t size) {
  const char *scheme_end = strstr(url, "://");
  const char *host = scheme_end ? scheme_end + 3 : url;
  const char *at = strchr(host, '@'), *slash = strchr(host, '/');
  if (at != NULL && (slash == NULL || at < slash))
    host = at + 1;
  size_t scheme = scheme_end ? (size_t)(scheme_end + 3 - url) : 0;
  size_t rest = strcspn(host, "?# \t\r\n");
  snprintf(buf, size, "%.*s%.*s", (int)scheme, url, (int)rest, host);
}

/* What ship adds to the export's checks. */
static int check(struct ship_args *s) {
  struct export_args *a = &s->export;
  enum export_format f = a->run.format;
  if (a->to == NULL)
    return bad("--to is required", "");
  bool graphite = f == EXPORT_GRAPHITE && !a->http && !a->target.udp;
  bool http = a->http && (f == EXPORT_INFLUX || f == EXPORT_PROMETHEUS);
  if (!graphite && !http)
    return bad("ship takes --format influx or prometheus with an http(s):// "
               "--to, graphite with tcp://",
               a->to);
  struct ship_options *o = &s->options;
  o->run = a->run;
  o->config_dir = a->config_dir;
  o->to = s->shown;
  shown_target(a->to, s->shown, sizeof(s->shown));
  o->http = a->http;
  o->http_options =
      (struct http_sender_options){.url = a->to,
                                   .token = a->token[0] ? a->token : NULL,
                                   .ca_file = a->ca_file,
                                   .insecure = a->insecure,
                                   .timeout = a->timeout,
                                   /* the next pass is the shipper's retry */
                                   .tries = 2};
  o->net_target = a->target;
  o->timeout = a->timeout;
  o->since = a->since != NULL ? a->run.since : 0;
  snprintf(s->identity, sizeof(s->identity), "%d %d %s %s %s", (int)f,
           (int)a->run.names, a->run.prefix, rrd_cf_name(a->run.cf), a->to);
  o->identity = s->identity;
  return 0;
}

static int take_option(void *s, int opt, const char *value) {
  return set_own(s, opt, value) < 0 ? -EINVAL : 0;
}

/* --pve-metric-server all: a shipper of its own for each entry. */
static bool every_entry(const struct ship_args *s) {
  return s->metric_server != NULL && strcmp(s->metric_server, "all") == 0;
}

/* The target made whole and checked, after the options. */
static int prepare(struct ship_args *s) {
  s->options.batch_given = s->export.run.batch_max != 0;
  if (s->metric_server != NULL &&
      pve_metric_target(&s->export, s->metric_server, &s->entry) < 0)
    return -EINVAL;
  if (!s->export.has_format)
    return bad("--format is required", "");
  if (export_args_finish(&s->export) < 0)
    return -EINVAL;
  return check(s);
}

static int parse(int argc, char **argv, struct ship_args *s) {
  static const struct option own[] = {
      {"state-dir", required_argument, NULL, OPT_STATE_DIR},
      {"interval", required_argument, NULL, OPT_INTERVAL},
      {"once", no_argument, NULL, OPT_ONCE},
      {"resend", required_argument, NULL, OPT_RESEND},
      {"rows-per-round", required_argument, NULL, OPT_ROWS},
      {"status", no_argument, NULL, OPT_STATUS},
      {"prometheus", no_argument, NULL, OPT_PROMETHEUS},
      {"pve-metric-server", required_argument, NULL, OPT_PVE_METRIC_SERVER},
  };
  struct option options[EXPORT_OPTIONS_MAX];
  export_options_join(own, sizeof(own) / sizeof(own[0]), options);
  const struct cli_command command = {CMD, usage_text, options, false};
  int r = cli_options_read(&command, argc, argv, take_option, s);
  if (r != 0)
    return r;
  s->export.all = true;
  return s->status || every_entry(s) ? 0 : prepare(s);
}

static int ship(struct ship_args *s) {
  struct sigaction sa = {.sa_handler = on_signal};
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  s->options.stop = &stopping;
  s->options.log = stderr;
  /* Files kept open between passes are what makes a pass cheap: the soft
   * limit raised to the hard one, a reserve left for the rest. */
  struct fd_budget budget;
  s->options.keep_files = fd_budget_prepare(&budget) == 0 ? budget.budget : 0;
  int r = ship_main(&s->options);
  return r == 0 ? PVECG_EXIT_OK : PVECG_EXIT_FAILURE;
}

static pid_t children[PVE_METRIC_ALL_MAX];
static size_t child_count;

static void pass_on(int sig) {
  for (size_t i = 0; i < child_count; i++)
    kill(children[i], sig);
}

/* One entry's shipper, in a child: its state in <state-dir>/<id>. */
static int ship_entry(struct ship_args *s, const char *id, char *state_dir,
                      size_t size) {
  snprintf(state_dir, size, "%s/%s", s->options.state_dir, id);
  s->metric_server = id;
  s->options.state_dir = state_dir;
  if (prepare(s) < 0)
    return PVECG_EXIT_USAGE;
  return ship(s);
}

/* Every entry that acknowledges, each fed by a child of its own (one
 * state and lock each); a signal goes on to them.  The worst exit. */
static int ship_all(struct ship_args *s) {
  static char ids[PVE_METRIC_ALL_MAX][PVE_METRIC_ID_MAX + 1];
  int n = pve_metric_all(s->export.config_dir, ids, PVE_METRIC_ALL_MAX);
  if (n <= 0)
    return PVECG_EXIT_USAGE;
  if (mkdir(s->options.state_dir, 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, CMD ": %s: %s\n", s->options.state_dir, strerror(errno));
    return PVECG_EXIT_FAILURE;
  }
  struct sigaction sa = {.sa_handler = pass_on};
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  fflush(NULL);
  for (int i = 0; i < n; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      char state_dir[PATH_MAX];
      signal(SIGTERM, SIG_DFL); /* its own, until ship() sets them */
      signal(SIGINT, SIG_DFL);
      _exit(ship_entry(s, ids[i], state_dir, sizeof(state_dir)));
    }
    if (pid > 0)
      children[child_count++] = pid;
    else
      fprintf(stderr, CMD ": %s: cannot start: %s\n", ids[i], strerror(errno));
  }
  int worst = child_count < (size_t)n ? PVECG_EXIT_FAILURE : PVECG_EXIT_OK;
  for (size_t i = 0; i < child_count; i++) {
    int st;
    while (waitpid(children[i], &st, 0) < 0 && errno == EINTR)
      ;
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : PVECG_EXIT_FAILURE;
    worst = code > worst ? code : worst;
  }
  return worst;
}

int cmd_ship(int argc, char **argv) {
  struct ship_args *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return PVECG_EXIT_FAILURE;
  s->export.command = CMD;
  s->export.timeout = DEFAULT_TIMEOUT;
  s->export.config_dir = "/etc/pve";
  s->export.run.cf = RRD_CF_AVERAGE;
  s->options.state_dir = DEFAULT_STATE_DIR;
  s->options.interval = DEFAULT_INTERVAL;
  s->options.resend = DEFAULT_RESEND;
  s->options.row_limit = DEFAULT_ROWS;
  int r = parse(argc, argv, s);
  int status = r > 0            ? PVECG_EXIT_OK
               : r < 0          ? PVECG_EXIT_USAGE
               : s->status      ? ship_status_print(s->options.state_dir,
                                                    s->prometheus, stdout, stderr)
               : every_entry(s) ? ship_all(s)
                                : ship(s);
  if (r < 0)
    fputs(usage_text, stderr);
  export_files_free(&s->export.files);
  memset(s->export.token, 0, sizeof(s->export.token));
  free(s);
  return status;
}

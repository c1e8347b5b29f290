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
#include "pvecg/monotonic.h"
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
#include <time.h>

#define CMD "pvecg ship"
#define DEFAULT_STATE_DIR "/var/lib/pvecg/ship"
#define DEFAULT_INTERVAL 60
#define DEFAULT_RESEND 600
#define DEFAULT_ROWS 360 /* six hours of minute rows per file per round */
#define DEFAULT_TIMEOUT 10.0

static const char usage_text[] =
    "usage: pvecg ship --pve-metric-server ID | --format "
    "influx|prometheus|remote-write|graphite\n"
    "                  --to URL [--header 'NAME: value' ...]\n"
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
    "                   TCP Graphite; UDP acknowledges nothing: with what\n"
    "                   does beside it)\n"
    "  --http-port PORT --db NAME  a UDP InfluxDB entry: InfluxDB 1.x's HTTP\n"
    "                   API on the entry's server, the database its UDP\n"
    "                   listener writes to\n"
    "  --tcp-port PORT  a UDP Graphite entry: carbon's TCP listener (2003)\n"
    "  --to URL         http(s)://... with influx (InfluxDB /write?db=,\n"
    "                   /api/v2/write?..., VictoriaMetrics /write) or\n"
    "                   prometheus (VictoriaMetrics /api/v1/import/"
    "prometheus)\n"
    "                   or remote-write (Prometheus, Mimir /api/v1/write);\n"
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
  OPT_HTTP_PORT,
  OPT_DB,
  OPT_TCP_PORT,
};

struct ship_args {
  struct export_args export;
  struct ship_options options;
  bool status, prometheus;
  const char *metric_server; /* --pve-metric-server ID */
  struct pve_metric_target entry;
  struct pve_metric_ack ack; /* a UDP entry's acknowledging transport */
  char command[2048];        /* as given, for a refusal's fix */
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
  case OPT_HTTP_PORT:
  case OPT_TCP_PORT:
    if (parse_count(value, 1, 65535, &v) < 0)
      return bad("a port is 1 to 65535", value);
    *(opt == OPT_HTTP_PORT ? &s->ack.http_port : &s->ack.tcp_port) =
        (unsigned)v;
    return 0;
  case OPT_DB:
    if (value[0] == '\0' || strlen(value) >= PVE_METRIC_TEXT_MAX)
      return bad("--db is a database's name", value);
    s->ack.db = value;
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
  bool http = a->http && (f == EXPORT_INFLUX || f == EXPORT_PROMETHEUS ||
                          f == EXPORT_REMOTE_WRITE);
  if (!graphite && !http)
    return bad("ship takes --format influx, prometheus or remote-write with "
               "an http(s):// --to, graphite with tcp://",
               a->to);
  struct ship_options *o = &s->options;
  o->run = a->run;
  o->config_dir = a->config_dir;
  o->to = s->shown;
  shown_target(a->to, s->shown, sizeof(s->shown));
  o->http = a->http;
  export_args_http_options(a, &o->http_options);
  o->http_options.tries = 2; /* the next pass is the shipper's retry */
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
  bool ack = s->ack.http_port || s->ack.db || s->ack.tcp_port;
  if (ack && s->metric_server == NULL)
    return bad("--http-port, --db and --tcp-port go with --pve-metric-server",
               "");
  if (s->metric_server != NULL &&
      pve_metric_target(&s->export, s->metric_server, &s->ack, &s->entry) < 0)
    return -EINVAL;
  if (!s->export.has_format)
    return bad("--format is required", "");
  if (export_args_finish(&s->export) < 0)
    return -EINVAL;
  return check(s);
}

/* "pvecg ship" and the arguments as given, quoted for a shell where
 * needed. */
static void command_line(int argc, char **argv, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "%s", CMD);
  for (int i = 1; i < argc && n < size; i++) {
    const char *a = argv[i];
    bool plain = a[0] != '\0' && a[strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "abcdefghijklmnopqrstuvwxyz"
                                             "0123456789_-./:=@%+,")] == '\0';
    n += (size_t)snprintf(buf + n, size - n, plain ? " %s" : " '", a);
    for (const char *p = a; !plain && *p && n < size; p++)
      n += (size_t)snprintf(buf + n, size - n, *p == '\'' ? "'\\''" : "%c", *p);
    if (!plain && n < size)
      n += (size_t)snprintf(buf + n, size - n, "'");
  }
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
      {"http-port", required_argument, NULL, OPT_HTTP_PORT},
      {"db", required_argument, NULL, OPT_DB},
      {"tcp-port", required_argument, NULL, OPT_TCP_PORT},
  };
  struct option options[EXPORT_OPTIONS_MAX];
  export_options_join(own, sizeof(own) / sizeof(own[0]), options);
  const struct cli_command command = {CMD, usage_text, options, false};
  int r = cli_options_read(&command, argc, argv, take_option, s);
  if (r != 0)
    return r;
  s->export.all = true;
  s->ack.all = every_entry(s);
  command_line(argc, argv, s->command, sizeof(s->command));
  s->ack.command = s->command;
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

#define RESTART_FIRST 1.0    /* s before a child that died starts again */
#define RESTART_MAX 240.0    /* the back-off doubles up to this */
#define RESTART_STEADY 600.0 /* a child that ran this long starts at 1 s */
#define STOP_KILL 9.0        /* s after a stop: what is left is killed */

/* An entry's shipper as the parent sees it. */
struct child {
  const char *id;
  pid_t pid;         /* 0: not running */
  double started;    /* monotonic s */
  double restart_at; /* when pid is 0: monotonic s, 0: never */
  double backoff;    /* s before the next start */
  int code;          /* its last exit */
};

static pid_t start_child(struct ship_args *s, struct child *c,
                         const sigset_t *old_mask) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    char state_dir[PATH_MAX];
    signal(SIGTERM, SIG_DFL); /* its own, until ship() sets them */
    signal(SIGINT, SIG_DFL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    _exit(ship_entry(s, c->id, state_dir, sizeof(state_dir)));
  }
  if (pid < 0) {
    fprintf(stderr, CMD ": --pve-metric-server all: %s: cannot start: %s\n",
            c->id, strerror(errno));
    return 0;
  }
  c->pid = pid;
  c->started = monotonic_seconds();
  c->restart_at = 0;
  return pid;
}

static void describe_exit(int st, char *buf, size_t size) {
  if (WIFEXITED(st))
    snprintf(buf, size, "exited with status %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st))
    snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(st),
             strsignal(WTERMSIG(st)));
  else
    snprintf(buf, size, "ended (status 0x%x)", (unsigned)st);
}

/* A child ended: noted, and, unless the parent stops, started again after
 * a back-off (a store is never left unfed while systemd sees a healthy
 * service; a child that dies at once is no fork storm). */
static void child_ended(struct child *c, int st, bool ending) {
  char how[96];
  describe_exit(st, how, sizeof(how));
  c->code = WIFEXITED(st) ? WEXITSTATUS(st) : PVECG_EXIT_FAILURE;
  double now = monotonic_seconds();
  pid_t pid = c->pid;
  c->pid = 0;
  if (ending)
    return;
  if (now - c->started >= RESTART_STEADY)
    c->backoff = RESTART_FIRST;
  c->restart_at = now + c->backoff;
  fprintf(stderr,
          CMD ": --pve-metric-server all: %s's shipper (pid %ld) %s; "
              "starting it again in %.0f s\n",
          c->id, (long)pid, how, c->backoff);
  c->backoff = c->backoff * 2 < RESTART_MAX ? c->backoff * 2 : RESTART_MAX;
}

static void reap(struct child *c, size_t n, bool ending) {
  int st;
  pid_t pid;
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
    for (size_t i = 0; i < n; i++)
      if (c[i].pid == pid)
        child_ended(&c[i], st, ending);
}

static size_t running(const struct child *c, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    k += c[i].pid > 0;
  return k;
}

/* The seconds until the next restart is due, at most 1. */
static double next_due(const struct child *c, size_t n, double now) {
  double wait = 1.0;
  for (size_t i = 0; i < n; i++)
    if (c[i].pid == 0 && c[i].restart_at > 0 && c[i].restart_at - now < wait)
      wait = c[i].restart_at > now ? c[i].restart_at - now : 0;
  return wait;
}

/* Waits up to s seconds for a signal of set: its number, or 0. */
static int wait_signal(const sigset_t *set, double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  int sig = sigtimedwait(set, NULL, &ts);
  return sig > 0 ? sig : 0;
}

/* SIGTERM (or SIGINT) goes to every child; the parent returns once all
 * ended, and kills what is left after STOP_KILL s. */
static void stop_children(struct child *c, size_t n, int sig,
                          const sigset_t *set) {
  for (size_t i = 0; i < n; i++)
    if (c[i].pid > 0)
      kill(c[i].pid, sig);
  double until = monotonic_seconds() + STOP_KILL;
  bool killed = false;
  while (reap(c, n, true), running(c, n) > 0) {
    double left = until - monotonic_seconds();
    if (left <= 0 && !killed) {
      for (size_t i = 0; i < n; i++)
        if (c[i].pid > 0) {
          fprintf(stderr,
                  CMD ": --pve-metric-server all: %s's shipper (pid %ld) "
                      "did not stop: killed\n",
                  c[i].id, (long)c[i].pid);
          kill(c[i].pid, SIGKILL);
        }
      killed = true;
    }
    wait_signal(set, left > 0 && left < 0.1 ? left : 0.1);
  }
}

/* Every entry that acknowledges, each fed by a child of its own (one state
 * and lock each), started again when it dies.  The parent takes SIGTERM,
 * SIGINT and SIGCHLD with sigtimedwait(), so no handler reads the table
 * while it changes.  With --once, each child once.  The worst exit of the
 * entries' last shipper. */
static int ship_all(struct ship_args *s) {
  static char ids[PVE_METRIC_ALL_MAX][PVE_METRIC_ID_MAX + 1];
  static struct child c[PVE_METRIC_ALL_MAX];
  int n =
      pve_metric_all(s->export.config_dir, &s->ack, ids, PVE_METRIC_ALL_MAX);
  if (n <= 0)
    return PVECG_EXIT_USAGE;
  if (mkdir(s->options.state_dir, 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, CMD ": %s: %s\n", s->options.state_dir, strerror(errno));
    return PVECG_EXIT_FAILURE;
  }
  sigset_t set, old_mask;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, &old_mask);
  int worst = PVECG_EXIT_OK;
  for (int i = 0; i < n; i++) {
    c[i] = (struct child){.id = ids[i], .backoff = RESTART_FIRST};
    if (start_child(s, &c[i], &old_mask) == 0)
      worst = PVECG_EXIT_FAILURE;
  }
  size_t count = (size_t)n;
  int sig = 0;
  while (sig != SIGTERM && sig != SIGINT) {
    reap(c, count, s->options.once);
    if (s->options.once && running(c, count) == 0)
      break;
    double now = monotonic_seconds();
    for (size_t i = 0; !s->options.once && i < count; i++)
      if (c[i].pid == 0 && c[i].restart_at > 0 && c[i].restart_at <= now &&
          start_child(s, &c[i], &old_mask) > 0)
        fprintf(stderr,
                CMD ": --pve-metric-server all: %s's shipper started again "
                    "(pid %ld)\n",
                c[i].id, (long)c[i].pid);
    sig = wait_signal(&set, next_due(c, count, monotonic_seconds()));
  }
  if (sig != 0)
    stop_children(c, count, sig, &set);
  sigprocmask(SIG_SETMASK, &old_mask, NULL);
  for (size_t i = 0; i < count; i++)
    worst = c[i].code > worst ? c[i].code : worst;
  return worst;
}

/* Each entry's shipper: whether one runs (its lock is held), and what
 * its state says. */
static int status_all(struct ship_args *s) {
  static char ids[PVE_METRIC_ALL_MAX][PVE_METRIC_ID_MAX + 1];
  if (s->prometheus) {
    fprintf(stderr,
            CMD ": --prometheus takes one entry's state: "
                "--state-dir %s/ID\n",
            s->options.state_dir);
    return PVECG_EXIT_USAGE;
  }
  int n =
      pve_metric_all(s->export.config_dir, &s->ack, ids, PVE_METRIC_ALL_MAX);
  if (n <= 0)
    return PVECG_EXIT_USAGE;
  int worst = PVECG_EXIT_OK;
  for (int i = 0; i < n; i++) {
    char dir[PATH_MAX + PVE_METRIC_ID_MAX + 2], pid[32] = "";
    snprintf(dir, sizeof(dir), "%s/%s", s->options.state_dir, ids[i]);
    bool held = ship_status_running(dir, pid, sizeof(pid));
    printf("%sentry %s: %s%s%s\n", i ? "\n" : "", ids[i],
           held ? "shipping (pid " : "no shipper running", held ? pid : "",
           held ? ")" : "");
    fflush(stdout);
    int r = ship_status_print(dir, false, stdout, stderr);
    worst = r > worst ? r : worst;
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
  int status = r > 0                         ? PVECG_EXIT_OK
               : r < 0                       ? PVECG_EXIT_USAGE
               : s->status && every_entry(s) ? status_all(s)
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

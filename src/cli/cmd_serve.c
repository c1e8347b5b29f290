/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg serve: the files over HTTP, as Proxmox's API paths for any client
 * and as a page of graphs for a person.  The server is its own process, so
 * no request can slow collectd.  This file takes the options; src/serve/ does
 * the rest.
 */
#include "commands.h"
#include "cli_number.h"
#include "cli_options.h"
#include "pvecg/decimal.h"
#include "pvecg/rrdcached_client.h"
#include "pvecg/serve.h"
#include "pvecg/view_source.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CMD "pvecg serve"
#define DEFAULT_LISTEN "127.0.0.1:8016"
#define DEFAULT_CONFIG_DIR "/etc/pve"

static const char usage_text[] =
    "usage: pvecg serve [--listen HOST:PORT] [--data-dir DIR]\n"
    "                   [--daemon ADDRESS] [--pve-config-dir DIR]\n"
    "                   [--ship-state-dir DIR]\n"
    "                   [--threads N] [--connections-per-client N]\n"
    "                   [--tls-cert FILE --tls-key FILE] [--tls-priorities S]\n"
    "                   [--token-file FILE] [--trusted-proxy ADDR]\n"
    "                   [--insecure] [--header-timeout SECONDS] [--now EPOCH]\n"
    "\n"
    "Serves the files as Proxmox's API does (/api2/json/nodes/NODE/qemu/VMID/\n"
    "rrddata, .../lxc/..., /api2/json/nodes/NODE/rrddata, /api2/json/nodes,\n"
    "/api2/json/cluster/resources) and a page of graphs at /.  A data\n"
    "directory that keeps clusters apart is served whole, each entry with\n"
    "its \"cluster\"; ?cluster=NAME picks one (see pvecg-serve(1)).\n"
    "  --listen HOST:PORT   where to listen (" DEFAULT_LISTEN
    "; [V6]:PORT for IPv6)\n"
    "  --data-dir DIR       where the files are (" PVECG_DEFAULT_DATA_DIR ")\n"
    "  --daemon ADDRESS     read through rrdcached (unix:/path or "
    "host[:port])\n"
    "  --pve-config-dir DIR guests' names, types and nodes (" DEFAULT_CONFIG_DIR
    "; \"\" for none;\n"
    "                       DIR/CLUSTER for a named cluster's guests)\n"
    "  --ship-state-dir DIR add pvecg ship's lag and totals to /metrics\n"
    "  --threads N          answering threads (4)\n"
    "  --connections-per-client N  open connections one address may hold\n"
    "                       (32; 0: up to the 512 of all)\n"
    "  --tls-cert FILE      serve HTTPS with this PEM certificate (chain)\n"
    "  --tls-key FILE       and its PEM private key (not readable by others)\n"
    "  --tls-priorities S   GnuTLS priority string instead of the default\n"
    "                       (TLS 1.2 and 1.3, ECDHE/DHE, AEAD ciphers only)\n"
    "  --token-file FILE    ask every API path and /metrics for one of the\n"
    "                       tokens in FILE (mode 0600), one a line: SECRET or\n"
    "                       USER@REALM!ID=SECRET, the secret 16 bytes or "
    "more,\n"
    "                       then optionally a scope: vmids=100,101 "
    "pools=POOL;\n"
    "                       sent as \"Authorization: Bearer SECRET\" or "
    "\"PVEAPIToken=USER@REALM!ID=SECRET\"\n"
    "  --trusted-proxy ADDR requests from this reverse proxy count as from "
    "the\n"
    "                       last address of their X-Forwarded-For "
    "(wrong-token\n"
    "                       guard, log)\n"
    "  --insecure           allow a non-loopback --listen without TLS and a\n"
    "                       token\n"
    "  --header-timeout SECONDS  time a request's whole header may take\n"
    "                       (10; at most " PVECG_SERVE_IDLE_TEXT ")\n"
    "  --now EPOCH          take this time as now (to reproduce a view)\n"
    "See pvecg-serve(1).\n";

enum {
  OPT_LISTEN = 0x100,
  OPT_DATA_DIR,
  OPT_SHIP_STATE_DIR,
  OPT_DAEMON,
  OPT_CONFIG_DIR,
  OPT_THREADS,
  OPT_PER_CLIENT,
  OPT_NOW,
  OPT_TLS_CERT,
  OPT_TLS_KEY,
  OPT_TLS_PRIORITIES,
  OPT_TOKEN_FILE,
  OPT_INSECURE,
  OPT_HEADER_TIMEOUT,
  OPT_TRUSTED_PROXY,
};

struct serve_args {
  struct serve_config config;
  struct serve_http_options http;
};

static int parse_number(const char *text, uint64_t max, uint64_t *ret) {
  return cli_count(text, 0, max, ret);
}

/* The options of reaching the server safely. */
static int set_access(struct serve_args *a, int opt, const char *value) {
  uint64_t v;
  switch (opt) {
  case OPT_TLS_CERT:
    a->http.tls_cert = value;
    return 0;
  case OPT_TLS_KEY:
    a->http.tls_key = value;
    return 0;
  case OPT_TLS_PRIORITIES:
    a->http.tls_priorities = value;
    return 0;
  case OPT_TOKEN_FILE:
    a->http.token_file = value;
    return 0;
  case OPT_INSECURE:
    a->http.insecure = true;
    return 0;
  case OPT_HEADER_TIMEOUT:
    if (parse_number(value, PVECG_SERVE_IDLE_SECONDS, &v) != 0 || v == 0)
      return -1;
    a->http.header_timeout = (unsigned)v;
    return 0;
  }
  return -1;
}

static int set_option(struct serve_args *a, int opt, const char *value) {
  uint64_t v;
  switch (opt) {
  case OPT_LISTEN:
    a->http.listen = value;
    return 0;
  case OPT_DATA_DIR:
    a->config.data_dir = value;
    return 0;
  case OPT_DAEMON:
    a->config.daemon = value[0] != '\0' ? value : NULL;
    return 0;
  case OPT_CONFIG_DIR:
    a->config.config_dir = value;
    return 0;
  case OPT_SHIP_STATE_DIR:
    a->config.ship_state_dir = value;
    return 0;
  case OPT_THREADS:
    if (parse_number(value, 64, &v) != 0 || v == 0)
      return -1;
    a->http.threads = (unsigned)v;
    return 0;
  case OPT_TRUSTED_PROXY:
    a->http.trusted_proxy = value;
    return 0;
  case OPT_PER_CLIENT:
    if (parse_number(value, 512, &v) != 0)
      return -1;
    a->http.per_client = (unsigned)v;
    return 0;
  case OPT_NOW:
    if (parse_number(value, INT64_MAX / 2, &v) != 0 || v == 0)
      return -1;
    a->config.now = (time_t)v;
    return 0;
  }
  return set_access(a, opt, value);
}

/* A value refused is named, then the usage follows. */
static int take_option(void *a, int opt, const char *value) {
  if (set_option(a, opt, value) == 0)
    return 0;
  fprintf(stderr, CMD ": bad value '%s'\n", value);
  return -1;
}

static int parse_args(int argc, char **argv, struct serve_args *a) {
  static const struct option options[] = {
      {"listen", required_argument, NULL, OPT_LISTEN},
      {"data-dir", required_argument, NULL, OPT_DATA_DIR},
      {"daemon", required_argument, NULL, OPT_DAEMON},
      {"pve-config-dir", required_argument, NULL, OPT_CONFIG_DIR},
      {"ship-state-dir", required_argument, NULL, OPT_SHIP_STATE_DIR},
      {"threads", required_argument, NULL, OPT_THREADS},
      {"connections-per-client", required_argument, NULL, OPT_PER_CLIENT},
      {"now", required_argument, NULL, OPT_NOW},
      {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
      {"tls-key", required_argument, NULL, OPT_TLS_KEY},
      {"tls-priorities", required_argument, NULL, OPT_TLS_PRIORITIES},
      {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
      {"insecure", no_argument, NULL, OPT_INSECURE},
      {"header-timeout", required_argument, NULL, OPT_HEADER_TIMEOUT},
      {"trusted-proxy", required_argument, NULL, OPT_TRUSTED_PROXY},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  static const struct cli_command command = {CMD, usage_text, options, true};
  int r = cli_options_read(&command, argc, argv, take_option, a);
  return r < 0 ? -1 : r;
}

int cmd_serve(int argc, char **argv) {
  struct serve_args a = {
      .config = {.config_dir = DEFAULT_CONFIG_DIR},
      .http = {.listen = DEFAULT_LISTEN,
               .threads = 4,
               .connections = 512,
               .per_client = 32,
               .header_timeout = 10},
  };
  int r = parse_args(argc, argv, &a);
  if (r != 0)
    return r > 0 ? PVECG_EXIT_OK : PVECG_EXIT_USAGE;
  /* over TCP without --data-dir the daemon's base directory holds the
   * files (as for rrddata); the listings can only look at a local one */
  bool remote =
      a.config.daemon != NULL && !rrdcached_address_is_unix(a.config.daemon);
  a.config.list_dir =
      a.config.data_dir != NULL ? a.config.data_dir : PVECG_DEFAULT_DATA_DIR;
  if (a.config.data_dir == NULL && !remote)
    a.config.data_dir = PVECG_DEFAULT_DATA_DIR;
  char err[512];
  r = serve_http_run(&a.config, &a.http, err, sizeof(err));
  if (r != 0) {
    fprintf(stderr, CMD ": %s\n", err);
    return r == -EINVAL ? PVECG_EXIT_USAGE : PVECG_EXIT_FAILURE;
  }
  return PVECG_EXIT_OK;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A Proxmox metric server's entry as a ship target (see
 * pve_metric_target.h). */
#include "pve_metric_target.h"

#include "pvecg/file_durable.h"
#include "pvecg/log_line.h"
#include "pvecg/pve_status_cfg.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "pvecg ship"
#define STATUS_CFG_MAX (1024 * 1024)
#define WHERE "Datacenter -> Metric Server"
#define UDP_WORDS                                                              \
  "the entry sends over UDP, which acknowledges nothing, so no row could be "  \
  "known to be in the store"

/* "pvecg ship: --pve-metric-server ID: <why>; <fix>", on stderr. */
__attribute__((format(printf, 3, 4))) static int
refuse(const char *id, const char *fix, const char *fmt, ...) {
  char why[LOG_LINE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof(why), fmt, ap);
  va_end(ap);
  /* one write: with "all", each entry's child says its own */
  log_line(stderr, CMD ": ", "--pve-metric-server %s: %s; %s", id, why, fix);
  return -EINVAL;
}

/* The options that the entry decides may not be given beside it. */
static int check_alone(const struct export_args *a, const char *id) {
  const char *given = a->to != NULL           ? "--to"
                      : a->has_format         ? "--format"
                      : a->token_file != NULL ? "--token-file"
                      : a->prefix_set         ? "--prefix"
                                              : NULL;
  if (given == NULL)
    return 0;
  return refuse(id, "leave it out, or leave out --pve-metric-server",
                "%s is the entry's to say", given);
}

static int read_cfg(const char *dir, const char *id,
                    struct pve_status_cfg *cfg) {
  char path[PATH_MAX], *text = NULL;
  size_t len;
  snprintf(path, sizeof(path), "%s/status.cfg", dir);
  int r = file_read_whole(path, STATUS_CFG_MAX, &text, &len);
  if (r < 0)
    return refuse(id, "no metric server is configured there (" WHERE ")",
                  "%s: %s", path, strerror(-r));
  r = pve_status_cfg_parse(text, len, cfg);
  free(text);
  if (r < 0)
    return refuse(id, "try again", "%s", strerror(-r));
  return 0;
}

/* The entry, whole and enabled, or NULL having printed why. */
static const struct pve_metric_server *
entry_of(const struct pve_status_cfg *c, const char *dir, const char *id) {
  const struct pve_metric_server *e = pve_status_cfg_find(c, id);
  char known[512] = "";
  for (size_t i = 0; e == NULL && i < c->count; i++)
    snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
             i ? ", " : "", c->server[i].id);
  if (e == NULL)
    refuse(id, known[0] ? known : "it names none",
           "no such entry in %s/status.cfg", dir);
  else if (e->problem[0] != '\0')
    refuse(id, "correct it in " WHERE, "the entry does not read: %s",
           e->problem);
  else if (e->disable)
    refuse(id, "enable it in " WHERE ", or name another entry",
           "the entry is disabled (disable 1)");
  else
    return e;
  return NULL;
}

/* priv/metricserver/ID.pw: none is no token, as Proxmox sends none. */
static int read_token(struct export_args *a, const char *id) {
  char path[PATH_MAX], *text = NULL;
  size_t len;
  snprintf(path, sizeof(path), "%s/priv/metricserver/%s.pw", a->config_dir, id);
  int r = file_read_whole(path, sizeof(a->token) - 1, &text, &len);
  if (r == -ENOENT)
    return 0;
  if (r < 0)
    return refuse(id,
                  "make it readable for this user (root), or set the token "
                  "again in " WHERE,
                  "its token %s cannot be read", path);
  text[strcspn(text, "\r\n")] = '\0';
  snprintf(a->token, sizeof(a->token), "%s", text);
  explicit_bzero(text, len);
  free(text);
  return 0;
}

/* The command line as given with the options that make it work, for a
 * person to run: id replaces "all" when given. */
static const char *fix_line(const struct pve_metric_ack *ack, const char *id,
                            const char *options) {
  static char line[LOG_LINE_MAX / 2];
  const char *cmd = ack->command != NULL ? ack->command : CMD;
  const char *all = id != NULL ? strstr(cmd, "--pve-metric-server all") : NULL;
  if (all != NULL)
    snprintf(line, sizeof(line), "%.*s--pve-metric-server %s%s %s",
             (int)(all - cmd), cmd, id, all + strlen("--pve-metric-server all"),
             options);
  else
    snprintf(line, sizeof(line), "%s %s", cmd, options);
  return line;
}

/* The transport options fit the entry: only beside UDP, and of its kind. */
static int check_ack(const struct pve_metric_server *e,
                     const struct pve_metric_ack *ack) {
  bool udp = strcmp(e->proto, "udp") == 0;
  bool influx = e->kind == PVE_METRIC_INFLUXDB;
  if ((ack->http_port != 0) != (ack->db != NULL))
    return refuse(e->id, "give both", "--http-port and --db go together");
  if (ack->all)
    return 0;
  const char *given = ack->http_port != 0  ? "--http-port and --db"
                      : ack->tcp_port != 0 ? "--tcp-port"
                                           : NULL;
  if (given == NULL)
    return 0;
  if (!udp)
    return refuse(e->id, "leave it out",
                  "%s name a transport beside UDP, "
                  "and the entry sends over %s",
                  given, e->proto);
  if (influx != (ack->http_port != 0))
    return refuse(
        e->id,
        influx ? "give --http-port PORT --db DATABASE" : "give --tcp-port PORT",
        "%s is not for a%s entry", given, influx ? "n InfluxDB" : " Graphite");
  return 0;
}

/* A UDP entry over InfluxDB 1.x's HTTP API beside its UDP listener, to
 * the database that listener writes to: the same series. */
static int influxdb_udp(struct export_args *a,
                        const struct pve_metric_server *e,
                        const struct pve_metric_ack *ack,
                        struct pve_metric_target *t) {
  if (ack->http_port == 0)
    return refuse(e->id,
                  "or set its Protocol to HTTP or HTTPS in " WHERE
                  " (the same InfluxDB's API)",
                  "%s; %s %s (the database its UDP listener writes to)",
                  UDP_WORDS,
                  "InfluxDB 1.x's HTTP API beside it acknowledges; that "
                  "works:",
                  fix_line(ack, e->id, "--http-port 8086 --db proxmox"));
  char db[3 * PVE_METRIC_TEXT_MAX + 1];
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)ack->db;
       *p && n + 4 < sizeof(db); p++)
    n += (size_t)(isalnum(*p) || strchr("-_.~", *p) != NULL
                      ? snprintf(db + n, sizeof(db) - n, "%c", *p)
                      : snprintf(db + n, sizeof(db) - n, "%%%02X", *p));
  db[n] = '\0';
  bool v6 = strchr(e->server, ':') != NULL;
  int m = snprintf(t->url, sizeof(t->url), "http://%s%s%s:%u/write?db=%s",
                   v6 ? "[" : "", e->server, v6 ? "]" : "", ack->http_port, db);
  if (m < 0 || (size_t)m >= sizeof(t->url))
    return refuse(e->id, "shorten them",
                  "its server and --db make too long "
                  "a URL");
  a->run.format = EXPORT_INFLUX;
  return 0;
}

/* What Perl's URI->new (through HTTP::Request) does to the URL that
 * InfluxDB.pm builds, which escapes nothing itself: each byte outside
 * URI's reserved and unreserved characters, '%' and '#' becomes %XX.  So
 * "a b" is "a%20b", UTF-8 goes byte by byte, and '&', '%' and '#' stay as
 * they are, with what that does to the query. */
static bool uri_escape_like_perl(const char *in, char *out, size_t size) {
  static const char keep[] = ";/?:@&=+$,-_.!~*'()%#";
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
    bool plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                 (*p >= '0' && *p <= '9') || strchr(keep, *p) != NULL;
    if (n + (plain ? 1 : 3) >= size)
      return false;
    if (plain)
      out[n++] = (char)*p;
    else
      n += (size_t)snprintf(out + n, size - n, "%%%02X", *p);
  }
  out[n] = '\0';
  return true;
}

/* InfluxDB over HTTP(S): the v2 write API, as InfluxDB.pm's _get_v2url
 * makes it: "/" without a prefix, else "/<prefix>/" with the prefix's
 * leading slashes dropped (all but one of a prefix of slashes only) and a
 * trailing one kept; organization and bucket put in as they are, and the
 * whole escaped as Perl's URI does it; an IPv6 literal in brackets. */
static int influxdb(struct export_args *a, const struct pve_metric_server *e,
                    const struct pve_metric_ack *ack,
                    struct pve_metric_target *t) {
  if (strcmp(e->proto, "udp") == 0)
    return influxdb_udp(a, e, ack, t);
  const char *p = e->api_path_prefix;
  while (p[0] == '/' && p[1] != '\0')
    p++;
  bool bare =
      e->api_path_prefix[0] == '\0' || strcmp(e->api_path_prefix, "/") == 0;
  char tail[PVE_METRIC_URL_MAX], escaped[PVE_METRIC_URL_MAX];
  bool v6 = strchr(e->server, ':') != NULL;
  int n = snprintf(tail, sizeof(tail), "/%s%sapi/v2/write?org=%s&bucket=%s",
                   bare ? "" : p, bare ? "" : "/", e->organization, e->bucket);
  int m =
      n < 0 || (size_t)n >= sizeof(tail) ||
              !uri_escape_like_perl(tail, escaped, sizeof(escaped))
          ? -1
          : snprintf(t->url, sizeof(t->url), "%s://%s%s%s:%u%s", e->proto,
                     v6 ? "[" : "", e->server, v6 ? "]" : "", e->port, escaped);
  if (m < 0 || (size_t)m >= sizeof(t->url))
    return refuse(e->id, "shorten them in " WHERE,
                  "its server, prefix, organization and bucket make too "
                  "long a URL");
  a->run.format = EXPORT_INFLUX;
  a->insecure = !e->verify_certificate;
  if (a->run.batch_max == 0)
    a->run.batch_max = e->max_body_size < EXPORT_HTTP_BATCH_BYTES
                           ? (size_t)e->max_body_size
                           : EXPORT_HTTP_BATCH_BYTES;
  return read_token(a, e->id);
}

/* Graphite over TCP, the entry's path as the prefix (Graphite.pm); an
 * entry over UDP over carbon's TCP listener, --tcp-port. */
static int graphite(struct export_args *a, const struct pve_metric_server *e,
                    const struct pve_metric_ack *ack,
                    struct pve_metric_target *t) {
  unsigned port = e->port;
  if (strcmp(e->proto, "tcp") != 0) {
    if (ack->tcp_port == 0)
      return refuse(e->id, "or set its Protocol to TCP in " WHERE, "%s; %s %s",
                    UDP_WORDS,
                    "carbon also listens on TCP (port 2003 by default), "
                    "which acknowledges; that works:",
                    fix_line(ack, e->id, "--tcp-port 2003"));
    port = ack->tcp_port;
  }
  bool v6 = strchr(e->server, ':') != NULL;
  int n = snprintf(t->url, sizeof(t->url), "tcp://%s%s%s:%u", v6 ? "[" : "",
                   e->server, v6 ? "]" : "", port);
  if (n < 0 || (size_t)n >= sizeof(t->url))
    return refuse(e->id, "shorten it in " WHERE, "its server is too long");
  snprintf(t->prefix, sizeof(t->prefix), "%s", e->path);
  a->run.format = EXPORT_GRAPHITE;
  a->run.prefix = t->prefix;
  a->prefix_set = true;
  return 0;
}

int pve_metric_target(struct export_args *a, const char *id,
                      const struct pve_metric_ack *ack,
                      struct pve_metric_target *t) {
  struct pve_status_cfg cfg = {0};
  if (check_alone(a, id) < 0 || read_cfg(a->config_dir, id, &cfg) < 0)
    return -EINVAL;
  const struct pve_metric_server *e = entry_of(&cfg, a->config_dir, id);
  int r = e == NULL || check_ack(e, ack) < 0 ? -EINVAL
          : e->kind == PVE_METRIC_INFLUXDB   ? influxdb(a, e, ack, t)
                                             : graphite(a, e, ack, t);
  pve_status_cfg_free(&cfg);
  if (r < 0)
    return r;
  a->has_format = true;
  a->to = t->url;
  a->http = a->run.format == EXPORT_INFLUX;
  if (!a->http && net_target_parse(t->url, &a->target) != 0)
    return refuse(id, "check the entry's server and port in " WHERE,
                  "%s is no server this shipper can reach", t->url);
  return 0;
}

/* Why `all` leaves an entry out, or NULL. */
static const char *left_out(const struct pve_metric_server *e,
                            const struct pve_metric_ack *ack, char *buf,
                            size_t size) {
  if (e->problem[0] != '\0')
    return e->problem;
  if (e->disable)
    return "disabled";
  if (strcmp(e->proto, "udp") != 0)
    return NULL;
  bool influx = e->kind == PVE_METRIC_INFLUXDB;
  if (influx ? ack->http_port != 0 && ack->db != NULL : ack->tcp_port != 0)
    return NULL;
  snprintf(
      buf, size,
      "it sends over UDP, which acknowledges nothing; %s works for it",
      fix_line(ack, NULL,
               influx ? "--http-port 8086 --db proxmox" : "--tcp-port 2003"));
  return buf;
}

int pve_metric_all(const char *config_dir, const struct pve_metric_ack *ack,
                   char ids[][PVE_METRIC_ID_MAX + 1], size_t max) {
  struct pve_status_cfg cfg = {0};
  if (read_cfg(config_dir, "all", &cfg) < 0)
    return -EINVAL;
  size_t n = 0;
  for (size_t i = 0; i < cfg.count; i++) {
    const struct pve_metric_server *e = &cfg.server[i];
    char buf[LOG_LINE_MAX];
    const char *why = left_out(e, ack, buf, sizeof(buf));
    if (why == NULL && n == max)
      why = "too many entries";
    if (why != NULL)
      fprintf(stderr, CMD ": --pve-metric-server all: leaving out %s: %s\n",
              e->id[0] ? e->id : "(no id)", why);
    else
      memcpy(ids[n++], e->id, sizeof(ids[0]));
  }
  pve_status_cfg_free(&cfg);
  if (n == 0)
    fprintf(stderr,
            CMD ": --pve-metric-server all: no entry to ship to; set an "
                "entry's Protocol to HTTP(S) or TCP in " WHERE
                ", or name the transport beside its UDP\n");
  return (int)n;
}

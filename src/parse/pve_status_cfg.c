/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser for PVE's /etc/pve/status.cfg (see pve_status_cfg.h).
 *
 * PVE's own reader (PVE::SectionConfig) warns about a bad line and goes
 * on, so a file PVE accepts may still hold nonsense.  pvecg sends to the
 * server an entry names, so it takes an entry only when every line of it
 * is exactly what PVE's schema allows; anything else is recorded as the
 * entry's problem rather than guessed at, and the other entries stay
 * usable.
 */
#include "pvecg/pve_status_cfg.h"

#include "pvecg/decimal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ENTRIES_MAX 1000
#define GRAPHITE_PORT_DEFAULT 2003
#define MTU_DEFAULT 1500
#define MTU_MIN 512
#define MTU_MAX 65536
#define MAX_BODY_SIZE_DEFAULT 25000000
#define KEY_QUOTE_MAX 32 /* an unknown key longer than this is not quoted */

enum key_id {
  KEY_SERVER,
  KEY_PORT,
  KEY_DISABLE,
  KEY_MTU,
  KEY_TIMEOUT,
  KEY_INFLUXDBPROTO,
  KEY_ORGANIZATION,
  KEY_BUCKET,
  KEY_API_PATH_PREFIX,
  KEY_MAX_BODY_SIZE,
  KEY_VERIFY_CERTIFICATE,
  KEY_PATH,
  KEY_PROTO,
  KEY_COUNT
};

#define FOR_INFLUXDB (1u << PVE_METRIC_INFLUXDB)
#define FOR_GRAPHITE (1u << PVE_METRIC_GRAPHITE)
#define FOR_BOTH (FOR_INFLUXDB | FOR_GRAPHITE)

static const struct {
  const char *name;
  unsigned kinds;
} keys[KEY_COUNT] = {
    [KEY_SERVER] = {"server", FOR_BOTH},
    [KEY_PORT] = {"port", FOR_BOTH},
    [KEY_DISABLE] = {"disable", FOR_BOTH},
    [KEY_MTU] = {"mtu", FOR_BOTH},
    [KEY_TIMEOUT] = {"timeout", FOR_BOTH},
    [KEY_INFLUXDBPROTO] = {"influxdbproto", FOR_INFLUXDB},
    [KEY_ORGANIZATION] = {"organization", FOR_INFLUXDB},
    [KEY_BUCKET] = {"bucket", FOR_INFLUXDB},
    [KEY_API_PATH_PREFIX] = {"api-path-prefix", FOR_INFLUXDB},
    [KEY_MAX_BODY_SIZE] = {"max-body-size", FOR_INFLUXDB},
    [KEY_VERIFY_CERTIFICATE] = {"verify-certificate", FOR_INFLUXDB},
    [KEY_PATH] = {"path", FOR_GRAPHITE},
    [KEY_PROTO] = {"proto", FOR_GRAPHITE},
};

static const char *const kind_names[] = {
    [PVE_METRIC_INFLUXDB] = "influxdb",
    [PVE_METRIC_GRAPHITE] = "graphite",
};

enum section_state { OUTSIDE, IN_SKIPPED, IN_ENTRY };

struct parser {
  struct pve_status_cfg cfg;
  size_t capacity;
  size_t line; /* 1-based number of the line being read */
  enum section_state state;
  size_t header_line; /* of the entry being read */
  unsigned seen;      /* keys given in the entry being read, 1 << key_id */
  bool stopped;       /* ENTRIES_MAX reached: the rest is ignored */
};

struct span {
  const char *p, *end;
};

/* Perl's \s without the newline, which PVE's section regexes use. */
static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c) { return is_alpha(c) || (c >= '0' && c <= '9'); }

static bool is_control(char c) { return (unsigned char)c < 0x20 || c == 0x7f; }

static size_t span_len(struct span s) { return (size_t)(s.end - s.p); }

static bool span_is(struct span s, const char *word) {
  return span_len(s) == strlen(word) && memcmp(s.p, word, span_len(s)) == 0;
}

static bool span_is_nocase(struct span s, const char *word) {
  return span_len(s) == strlen(word) &&
         strncasecmp(s.p, word, span_len(s)) == 0;
}

static const char *skip_space(const char *p, const char *end) {
  while (p < end && is_space(*p))
    p++;
  return p;
}

static const char *skip_word(const char *p, const char *end) {
  while (p < end && !is_space(*p))
    p++;
  return p;
}

/* "line N: " and the reason into dst, unless dst already has a reason:
 * the first problem is the one worth reading. */
__attribute__((format(printf, 4, 0))) static void
vset_problem(char *dst, size_t size, size_t line, const char *fmt, va_list ap) {
  if (dst[0] != '\0')
    return;
  int n = snprintf(dst, size, "line %zu: ", line);
  if (n > 0 && (size_t)n < size)
    vsnprintf(dst + n, size - (size_t)n, fmt, ap);
}

static struct pve_metric_server *current(struct parser *ps) {
  return &ps->cfg.server[ps->cfg.count - 1];
}

__attribute__((format(printf, 3, 4))) static void
entry_problem(struct parser *ps, size_t line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  struct pve_metric_server *e = current(ps);
  vset_problem(e->problem, sizeof(e->problem), line, fmt, ap);
  va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void
file_problem(struct parser *ps, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset_problem(ps->cfg.problem, sizeof(ps->cfg.problem), ps->line, fmt, ap);
  va_end(ap);
}

/* A line that fits nowhere spoils what it is in. */
static void stray_line(struct parser *ps, const char *reason) {
  if (ps->state == IN_ENTRY)
    entry_problem(ps, ps->line, "%s", reason);
  else if (ps->state == OUTSIDE)
    file_problem(ps, "%s", reason);
}

/* The checks that need the whole section: PVE's required keys. */
static void finish_section(struct parser *ps) {
  if (ps->state == IN_ENTRY) {
    if (!(ps->seen & (1u << KEY_SERVER)))
      entry_problem(ps, ps->header_line, "server is missing");
    if (current(ps)->kind == PVE_METRIC_INFLUXDB &&
        !(ps->seen & (1u << KEY_PORT)))
      entry_problem(ps, ps->header_line, "port is missing");
  }
  ps->state = OUTSIDE;
}

/* ---- values ---------------------------------------------------------- */

/* A plain decimal within [min, max]; else the entry's problem. */
static int take_number(struct parser *ps, const char *key, struct span v,
                       uint64_t min, uint64_t max, uint64_t *ret) {
  const char *p = v.p;
  uint64_t n;
  int r = decimal_parse_u64(&p, v.end, &n);
  if (r == -ERANGE) {
    entry_problem(ps, ps->line, "%s is too large", key);
    return r;
  }
  if (r < 0 || p != v.end) {
    entry_problem(ps, ps->line, "%s is not a number", key);
    return -EINVAL;
  }
  if (n >= min && n <= max) {
    *ret = n;
    return 0;
  }
  if (max == UINT64_MAX)
    entry_problem(ps, ps->line, "%s %llu is not %llu or more", key,
                  (unsigned long long)n, (unsigned long long)min);
  else
    entry_problem(ps, ps->line, "%s %llu is not %llu to %llu", key,
                  (unsigned long long)n, (unsigned long long)min,
                  (unsigned long long)max);
  return -ERANGE;
}

static void take_unsigned(struct parser *ps, const char *key, struct span v,
                          unsigned min, unsigned max, unsigned *out) {
  uint64_t n;
  if (take_number(ps, key, v, min, max, &n) == 0)
    *out = (unsigned)n;
}

/* A boolean as PVE's JSONSchema takes it: 1, yes, on, true or 0, no,
 * off, false, in any case (the GUI writes 0 and 1). */
static void take_bool(struct parser *ps, const char *key, struct span v,
                      bool *out) {
  static const char *const yes[] = {"1", "yes", "on", "true"};
  static const char *const no[] = {"0", "no", "off", "false"};
  for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
    if (span_is_nocase(v, yes[i]) || span_is_nocase(v, no[i])) {
      *out = span_is_nocase(v, yes[i]);
      return;
    }
  entry_problem(ps, ps->line, "%s is not 0 or 1 (nor no, yes, off, on)", key);
}

/* A text value into out[size], whole or not at all. */
static int take_text(struct parser *ps, const char *key, struct span v,
                     char *out, size_t size) {
  size_t len = span_len(v);
  if (len >= size) {
    entry_problem(ps, ps->line, "%s is too long", key);
    return -ENAMETOOLONG;
  }
  for (size_t i = 0; i < len; i++)
    if (is_control(v.p[i])) {
      entry_problem(ps, ps->line, "%s has a control character", key);
      return -EINVAL;
    }
  memcpy(out, v.p, len);
  out[len] = '\0';
  return 0;
}

/* Words of allowed characters joined by single dots: PVE's dns-name
 * (letters, digits, inner '-') and graphite-path ([A-Za-z0-9_-]). */
static bool is_dotted(const char *s, bool graphite) {
  for (;;) {
    size_t n = 0;
    while (is_alnum(s[n]) || s[n] == '-' || (graphite && s[n] == '_'))
      n++;
    if (n == 0 || (!graphite && (s[0] == '-' || s[n - 1] == '-')))
      return false;
    if (s[n] == '\0')
      return true;
    if (s[n] != '.')
      return false;
    s += n + 1;
  }
}

/* PVE's 'address' format: an IPv4 or IPv6 address or a DNS name.  IPv4
 * addresses have the DNS name form already. */
static bool is_address(const char *s) {
  unsigned char addr[16];
  if (strchr(s, ':'))
    return inet_pton(AF_INET6, s, addr) == 1;
  return is_dotted(s, false);
}

static void take_server(struct parser *ps, struct span v, char *out) {
  if (take_text(ps, "server", v, out, PVE_METRIC_TEXT_MAX) < 0)
    return;
  if (!is_address(out)) {
    out[0] = '\0';
    entry_problem(ps, ps->line, "server is not a host name or IP address");
  }
}

static void take_proto(struct parser *ps, const char *key, struct span v,
                       const char *const *allowed, const char *list,
                       char *out) {
  for (; *allowed; allowed++)
    if (span_is(v, *allowed)) {
      strcpy(out, *allowed);
      return;
    }
  entry_problem(ps, ps->line, "%s is not %s", key, list);
}

static void take_path(struct parser *ps, struct span v, char *out) {
  char path[PVE_METRIC_TEXT_MAX];
  if (take_text(ps, "path", v, path, sizeof(path)) < 0)
    return;
  if (is_dotted(path, true))
    strcpy(out, path);
  else
    entry_problem(ps, ps->line,
                  "path is not words of A-Z, a-z, 0-9, '_', '-' joined by "
                  "single dots");
}

/* ---- lines ----------------------------------------------------------- */

static void take_value(struct parser *ps, enum key_id key, struct span v) {
  static const char *const influxdb_protos[] = {"udp", "http", "https", NULL};
  static const char *const graphite_protos[] = {"udp", "tcp", NULL};
  struct pve_metric_server *e = current(ps);
  const char *name = keys[key].name;
  uint64_t n;

  switch (key) {
  case KEY_SERVER:
    take_server(ps, v, e->server);
    break;
  case KEY_PORT:
    take_unsigned(ps, name, v, 1, 65535, &e->port);
    break;
  case KEY_DISABLE:
    take_bool(ps, name, v, &e->disable);
    break;
  case KEY_MTU:
    take_unsigned(ps, name, v, MTU_MIN, MTU_MAX, &e->mtu);
    break;
  case KEY_TIMEOUT:
    take_unsigned(ps, name, v, 0, UINT_MAX, &e->timeout);
    break;
  case KEY_INFLUXDBPROTO:
    take_proto(ps, name, v, influxdb_protos, "udp, http or https", e->proto);
    break;
  case KEY_ORGANIZATION:
    take_text(ps, name, v, e->organization, sizeof(e->organization));
    break;
  case KEY_BUCKET:
    take_text(ps, name, v, e->bucket, sizeof(e->bucket));
    break;
  case KEY_API_PATH_PREFIX:
    take_text(ps, name, v, e->api_path_prefix, sizeof(e->api_path_prefix));
    break;
  case KEY_MAX_BODY_SIZE:
    if (take_number(ps, name, v, 1, UINT64_MAX, &n) == 0)
      e->max_body_size = n;
    break;
  case KEY_VERIFY_CERTIFICATE:
    take_bool(ps, name, v, &e->verify_certificate);
    break;
  case KEY_PATH:
    take_path(ps, v, e->path);
    break;
  case KEY_PROTO:
    take_proto(ps, name, v, graphite_protos, "udp or tcp", e->proto);
    break;
  case KEY_COUNT:
    break;
  }
}

/* An unknown key is named only when that is safe to print. */
static void unknown_key(struct parser *ps, struct span k) {
  bool quotable = span_len(k) <= KEY_QUOTE_MAX;
  for (const char *p = k.p; quotable && p < k.end; p++)
    quotable = !is_control(*p) && (unsigned char)*p < 0x80; /* ASCII */
  if (quotable)
    entry_problem(ps, ps->line, "unknown key '%.*s'", (int)span_len(k), k.p);
  else
    entry_problem(ps, ps->line, "unknown key");
}

/* An indented "key value" line of the entry being read, [p, end) trimmed. */
static void take_property(struct parser *ps, const char *p, const char *end) {
  struct span k = {p, skip_word(p, end)};
  struct span v = {skip_space(k.end, end), end};
  unsigned kind_bit = 1u << current(ps)->kind;
  int key = 0;

  while (key < KEY_COUNT && !span_is(k, keys[key].name))
    key++;
  if (key == KEY_COUNT) {
    unknown_key(ps, k);
    return;
  }
  if (!(keys[key].kinds & kind_bit)) {
    entry_problem(ps, ps->line, "%s is not a key of %s sections",
                  keys[key].name, kind_names[current(ps)->kind]);
    return;
  }
  if (ps->seen & (1u << key)) {
    entry_problem(ps, ps->line, "%s given twice", keys[key].name);
    return;
  }
  ps->seen |= 1u << key;
  if (v.p == v.end)
    entry_problem(ps, ps->line, "%s has no value", keys[key].name);
  else
    take_value(ps, (enum key_id)key, v);
}

/* PVE's header regex, ^(\S+):\s*(\S+)?\s*$, on a trimmed line: the type
 * ends at the last ':' that leaves only an ID after it. */
static bool split_header(const char *p, const char *end, struct span *type,
                         struct span *id) {
  const char *word_end = skip_word(p, end);
  const char *next = skip_space(word_end, end);
  if (next < end) {
    if (skip_word(next, end) != end || word_end - p < 2 || word_end[-1] != ':')
      return false;
    *type = (struct span){p, word_end - 1};
    *id = (struct span){next, end};
    return true;
  }
  const char *colon = word_end;
  while (colon > p && colon[-1] != ':')
    colon--;
  if (colon - p < 2)
    return false; /* no ':', or nothing before it */
  *type = (struct span){p, colon - 1};
  *id = colon == end ? *type : (struct span){colon, end};
  return true;
}

/* PVE's pve-configid: a letter, then one or more of [A-Za-z0-9_-]. */
static bool is_config_id(struct span id) {
  if (span_len(id) < 2 || !is_alpha(*id.p))
    return false;
  for (const char *p = id.p + 1; p < id.end; p++)
    if (!is_alnum(*p) && *p != '-' && *p != '_')
      return false;
  return true;
}

static const struct pve_metric_server *find_id(const struct pve_status_cfg *cfg,
                                               size_t count, const char *id) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(cfg->server[i].id, id) == 0)
      return &cfg->server[i];
  return NULL;
}

static void entry_defaults(struct pve_metric_server *e,
                           enum pve_metric_kind kind) {
  memset(e, 0, sizeof(*e));
  e->kind = kind;
  e->mtu = MTU_DEFAULT;
  e->timeout = 1;
  strcpy(e->proto, "udp");
  if (kind == PVE_METRIC_INFLUXDB) {
    strcpy(e->organization, "proxmox");
    strcpy(e->bucket, "proxmox");
    e->max_body_size = MAX_BODY_SIZE_DEFAULT;
    e->verify_certificate = true;
  } else {
    e->port = GRAPHITE_PORT_DEFAULT;
    strcpy(e->path, "proxmox");
  }
}

/* The array grows by doubling: pvecg_parse links nothing, not even
 * src/util's grow_array. */
static int add_entry(struct parser *ps, enum pve_metric_kind kind) {
  if (ps->cfg.count == ps->capacity) {
    size_t capacity = ps->capacity ? ps->capacity * 2 : 4;
    struct pve_metric_server *grown =
        realloc(ps->cfg.server, capacity * sizeof(*grown));
    if (!grown)
      return -ENOMEM;
    ps->cfg.server = grown;
    ps->capacity = capacity;
  }
  entry_defaults(&ps->cfg.server[ps->cfg.count++], kind);
  return 0;
}

static int start_entry(struct parser *ps, enum pve_metric_kind kind,
                       struct span id) {
  if (ps->cfg.count == ENTRIES_MAX) {
    file_problem(ps, "more than %d entries", ENTRIES_MAX);
    ps->stopped = true;
    return 0;
  }
  int r = add_entry(ps, kind);
  if (r < 0)
    return r;
  struct pve_metric_server *e = current(ps);
  ps->state = IN_ENTRY;
  ps->header_line = ps->line;
  ps->seen = 0;
  if (span_len(id) > PVE_METRIC_ID_MAX) {
    entry_problem(ps, ps->line, "ID is too long");
    return 0;
  }
  memcpy(e->id, id.p, span_len(id));
  e->id[span_len(id)] = '\0';
  if (!is_config_id(id))
    entry_problem(ps, ps->line,
                  "ID is not a letter followed by letters, digits, '-' or '_'");
  else if (find_id(&ps->cfg, ps->cfg.count - 1, e->id))
    entry_problem(ps, ps->line, "ID used twice");
  return 0;
}

/* A column-0 line: a section header, or a line that fits nowhere. */
static int take_header(struct parser *ps, const char *p, const char *end) {
  struct span type, id;
  if (!split_header(p, end, &type, &id)) {
    stray_line(ps, "not a section header");
    return 0;
  }
  finish_section(ps);
  for (int kind = PVE_METRIC_INFLUXDB; kind <= PVE_METRIC_GRAPHITE; kind++)
    if (span_len(type) == strlen(kind_names[kind]) &&
        strncasecmp(type.p, kind_names[kind], span_len(type)) == 0)
      return start_entry(ps, (enum pve_metric_kind)kind, id);
  ps->state = IN_SKIPPED; /* a type this parser has no use for */
  return 0;
}

/* One line without its '\n'. */
static int take_line(struct parser *ps, const char *p, const char *eol) {
  const char *end = eol;
  while (end > p && is_space(end[-1]))
    end--;
  const char *text = skip_space(p, end);

  if (memchr(p, '\0', (size_t)(eol - p))) {
    stray_line(ps, "NUL byte");
    return 0;
  }
  if (text == end) {
    finish_section(ps);
    return 0;
  }
  if (*text == '#')
    return 0;
  if (text == p)
    return take_header(ps, p, end);
  if (ps->state == IN_ENTRY)
    take_property(ps, text, end);
  else if (ps->state == OUTSIDE)
    file_problem(ps, "property outside a section");
  return 0;
}

int pve_status_cfg_parse(const char *text, size_t len,
                         struct pve_status_cfg *ret) {
  struct parser ps = {.state = OUTSIDE};
  const char *p = text, *end = text + len;

  while (p < end && !ps.stopped) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    eol = eol ? eol : end;
    ps.line++;
    if (take_line(&ps, p, eol) < 0) {
      free(ps.cfg.server);
      return -ENOMEM;
    }
    p = eol + (eol < end);
  }
  finish_section(&ps);
  *ret = ps.cfg;
  return 0;
}

void pve_status_cfg_free(struct pve_status_cfg *cfg) {
  if (!cfg)
    return;
  free(cfg->server);
  cfg->server = NULL;
  cfg->count = 0;
}

const struct pve_metric_server *
pve_status_cfg_find(const struct pve_status_cfg *cfg, const char *id) {
  if (!cfg || !id)
    return NULL;
  return find_id(cfg, cfg->count, id);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmicrohttpd glue (see include/pvecg/serve.h).  libmicrohttpd is Debian's
 * (libmicrohttpd12, built with GnuTLS), small, and parses HTTP with a long
 * record of fuzzing; everything the server decides is in serve_answer.c,
 * so this file only collects a request's parts, asks for the token
 * (serve_auth.h) before any answer but the page's files, sends the answer
 * with its headers, and logs what failed, at most LOG_BURST lines per
 * LOG_WINDOW seconds so a hostile client cannot fill the journal.  The
 * TLS files, the TLS priorities and the tokens are read and checked by
 * serve_secure.c, the header deadline is serve_deadline.c's, the slowing
 * of a client that guesses tokens serve_guard.c's.
 */
#include "pvecg/serve.h"

#include "pvecg/monotonic.h"

#include "serve_answer.h"
#include "serve_assets.h"
#include "serve_auth.h"
#include "serve_deadline.h"
#include "serve_guard.h"
#include "serve_proxy.h"
#include "serve_gzip.h"
#include "serve_listen.h"
#include "serve_secure.h"
#include "serve_tokens_live.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#define XFF_MAX 2048 /* bytes of X-Forwarded-For lines believed */
#define LOG_BURST 20
#define LOG_WINDOW 60
#define LOG_PATH_MAX 160
/* seconds a silent client is kept: between requests (the keep-alive idle
 * time), or while it does not read its answer */
#define CONNECTION_TIMEOUT PVECG_SERVE_IDLE_SECONDS
#define HEADER_TIMEOUT 10 /* when the options say 0 */
#define OPTIONS_MAX 16

/* What every callback needs. */
struct server {
  const struct serve_config *config;
  const struct serve_secure *secure;
  struct serve_deadlines *deadlines;
  struct serve_guard *guard;
  struct serve_proxy proxy;       /* --trusted-proxy, or not set */
  struct serve_tokens_live *live; /* --token-file's tokens, NULL: none */
};

/* ---- the log ------------------------------------------------------------- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static time_t log_window_start;
static unsigned log_lines, log_dropped;

static void log_line(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

static void log_line(const char *format, ...) {
  va_list ap;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  pthread_mutex_lock(&log_lock);
  if (now.tv_sec - log_window_start >= LOG_WINDOW) {
    if (log_dropped > 0)
      fprintf(stderr, "pvecg serve: %u more lines were not logged\n",
              log_dropped);
    log_window_start = now.tv_sec;
    log_lines = log_dropped = 0;
  }
  if (log_lines++ < LOG_BURST) {
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
  } else {
    log_dropped++;
  }
  pthread_mutex_unlock(&log_lock);
}

/* A client's path, printable and short, for the log. */
static void printable(const char *in, char *out, size_t size) {
  size_t n = 0;
  for (; *in != '\0' && n + 5 < size; in++) {
    unsigned char c = (unsigned char)*in;
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out[n++] = (char)c;
    else
      n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
  }
  out[n] = '\0';
}

/* libmicrohttpd's first message since the start began, which says why it
 * failed (a key that does not match its certificate, say) better than
 * errno; its later ones only say that TLS or the start failed. */
static char first_complaint[256];

/* libmicrohttpd's messages: a printf format of its own and its va_list */
static void mhd_log(void *cls, const char *format, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void mhd_log(void *cls, const char *format, va_list ap) {
  char text[512];
  (void)cls;
  vsnprintf(text, sizeof(text), format, ap);
  pthread_mutex_lock(&log_lock);
  if (first_complaint[0] == '\0')
    snprintf(first_complaint, sizeof(first_complaint), "%.*s",
             (int)strcspn(text, "\n"), text);
  pthread_mutex_unlock(&log_lock);
  log_line("pvecg serve: %s%s", text,
           text[0] != '\0' && text[strlen(text) - 1] == '\n' ? "" : "\n");
}

/* The client's address as text, for the log: the address alone, as
 * fail2ban's rhost= wants it (the client behind the trusted proxy is
 * already resolved by client_of()). */
static void client_name(const struct sockaddr *sa, char *out, size_t size) {
  serve_address_text(NULL, sa, out, size);
}

static void log_late(const char *addr, unsigned seconds) {
  log_line("pvecg serve: closed a connection from %s: no whole request "
           "header within %u s\n",
           addr, seconds);
}

/* ---- a request ----------------------------------------------------------- */

struct params {
  struct serve_param item[SERVE_PARAMS_MAX + 1];
  size_t count;
};

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind,
                               const char *key, const char *value) {
  struct params *p = cls;
  (void)kind;
  p->item[p->count++] = (struct serve_param){key, value};
  /* one past the limit is enough for the rules to refuse the request */
  return p->count < SERVE_PARAMS_MAX + 1 ? MHD_YES : MHD_NO;
}

static void add_headers(struct MHD_Response *response,
                        const struct serve_reply *r) {
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
                          r->content_type);
  MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL,
                          r->cache_control);
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(response, "Referrer-Policy", "no-referrer");
  if (r->page) {
    MHD_add_response_header(response, "Content-Security-Policy",
                            SERVE_PAGE_POLICY);
    MHD_add_response_header(response, "X-Frame-Options", "DENY");
  }
  if (r->status == 405)
    MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  if (r->status == 401)
    MHD_add_response_header(response, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                            "Bearer realm=\"pvecg\"");
  if (r->retry_after != 0) {
    char seconds[16];
    snprintf(seconds, sizeof(seconds), "%u", r->retry_after);
    MHD_add_response_header(response, MHD_HTTP_HEADER_RETRY_AFTER, seconds);
  }
}

/* An answer made for this request (not one of the page's files, which
 * are small and the same for everyone) goes gzip-compressed when the
 * client takes it and it is long enough to pay. */
static struct MHD_Response *compressed(struct MHD_Connection *connection,
                                       const struct serve_reply *r) {
  char *gz;
  size_t gz_size;
  if (r->body == NULL || r->size < SERVE_GZIP_MIN)
    return NULL;
  if (!serve_gzip_accepted(MHD_lookup_connection_value(
          connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING)) ||
      serve_gzip(r->body, r->size, &gz, &gz_size) != 0)
    return NULL;
  struct MHD_Response *response =
      MHD_create_response_from_buffer(gz_size, gz, MHD_RESPMEM_MUST_FREE);
  if (response == NULL) {
    free(gz);
    return NULL;
  }
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
  return response;
}

static enum MHD_Result send_reply(struct MHD_Connection *connection,
                                  const struct serve_reply *r) {
  const void *data = r->body != NULL ? (const void *)r->body : r->data;
  struct MHD_Response *response = compressed(connection, r);
  if (response == NULL)
    response = MHD_create_response_from_buffer(
        r->size, (void *)data,
        r->body != NULL ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
  if (response == NULL)
    return MHD_NO;
  add_headers(response, r);
  if (r->body != NULL && r->size >= SERVE_GZIP_MIN)
    MHD_add_response_header(response, MHD_HTTP_HEADER_VARY,
                            MHD_HTTP_HEADER_ACCEPT_ENCODING);
  enum MHD_Result sent =
      MHD_queue_response(connection, (unsigned)r->status, response);
  MHD_destroy_response(response);
  return sent;
}

/* The first call of a request only says its header is in.  A GET or HEAD
 * is answered on the next call, once libmicrohttpd knows no body follows,
 * so the connection can be kept alive; one that announces a body is
 * refused at once (announces_body).  Any other method is refused at once
 * too (and its connection then closed), so no body is ever read. */
static int headers_seen;

static bool read_only(const char *method) {
  return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
}

/*
 * Whether a request announces a body: a Content-Length other than 0, or
 * any Transfer-Encoding.  A GET or HEAD has none to send (RFC 9110 gives
 * it no meaning), and one that announces a body could trickle it for as
 * long as it likes after the header deadline has stopped; so it is
 * refused at once, and the header deadline covers the whole request.
 */
static bool announces_body(struct MHD_Connection *connection) {
  const char *length = MHD_lookup_connection_value(
      connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
  return (length != NULL && length[strspn(length, "0")] != '\0') ||
         MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                     MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
}

/* The 400 of a GET or HEAD with a body, sent before the body is read
 * (libmicrohttpd then closes the connection). */
static enum MHD_Result refuse_body(struct MHD_Connection *connection,
                                   const char *method, const char *url) {
  struct serve_reply reply = {0};
  char path[LOG_PATH_MAX];
  serve_fail_reply(&reply, 400, "a GET or HEAD request has no body");
  printable(url, path, sizeof(path));
  log_line("pvecg serve: %s %s: %d %s\n", method, path, reply.status,
           reply.message);
  enum MHD_Result sent = send_reply(connection, &reply);
  serve_reply_free(&reply);
  return sent;
}

/*
 * A refused token in the words of Proxmox's own servers, so that a
 * fail2ban filter written for them matches with only the prefix changed.
 * Proxmox's filter (pve.proxmox.com/wiki/Fail2ban) is
 *   failregex = pvedaemon\[.*authentication failure; rhost=<HOST> user=.*
 * msg=.* and packaging/examples/pvecg-serve-fail2ban.conf's failregex = pvecg
 * serve: authentication failure; rhost=<HOST> user=\S* msg=.* Each address logs
 * at most SERVE_GUARD_LIMIT such lines per window and block (the guard answers
 * the rest 429 unread), and one line when it is blocked; the 429s are counted
 * and logged once the block is over.
 */
static void log_failure(const struct server *s,
                        const struct serve_tokens *tokens,
                        const struct sockaddr *sa, const char *authorization,
                        const char *method, const char *url, const char *why,
                        int64_t now) {
  char host[INET6_ADDRSTRLEN], user[SERVE_TOKEN_MAX + 1], path[LOG_PATH_MAX];
  struct serve_guard_failure f = serve_guard_failed(s->guard, sa, now);
  client_name(sa, host, sizeof(host));
  serve_auth_user(tokens, authorization, user, sizeof(user));
  printable(url, path, sizeof(path));
  log_line("pvecg serve: authentication failure; rhost=%s user=%s msg=%s "
           "(%s %s)\n",
           host, user, why, method, path);
  if (f.blocked_now)
    log_line("pvecg serve: %s: %u wrong tokens within %d s, answered 429 "
             "for %d s\n",
             host, f.failures, SERVE_GUARD_WINDOW, SERVE_GUARD_BLOCK);
}

/* Whether the guard holds this client off; a block now over is logged. */
static bool held_off(const struct server *s, const struct sockaddr *sa,
                     int64_t now, struct serve_reply *r) {
  struct serve_guard_verdict v = serve_guard_check(s->guard, sa, now);
  if (v.refused_before > 0) {
    char host[INET6_ADDRSTRLEN];
    client_name(sa, host, sizeof(host));
    log_line("pvecg serve: %s: the block is over, %u requests were "
             "answered 429\n",
             host, v.refused_before);
  }
  if (!v.blocked)
    return false;
  *r = (struct serve_reply){0};
  serve_fail_reply(r, 429, "too many wrong tokens, try again later");
  r->retry_after = v.retry_after;
  r->logged = true;
  return true;
}

/* Every X-Forwarded-For line of a request, joined by commas in order:
 * a proxy may add a line of its own (HAProxy's option forwardfor) after
 * the one a client wrote. */
struct forwarded {
  char text[XFF_MAX];
  size_t len;
  bool cut; /* too long: not believed */
};

static enum MHD_Result add_forwarded(void *ctx, enum MHD_ValueKind kind,
                                     const char *key, const char *value) {
  struct forwarded *f = ctx;
  (void)kind;
  if (key == NULL || value == NULL || strcasecmp(key, "X-Forwarded-For") != 0)
    return MHD_YES;
  int n = snprintf(f->text + f->len, sizeof(f->text) - f->len, "%s%s",
                   f->len > 0 ? "," : "", value);
  if (n < 0 || (size_t)n >= sizeof(f->text) - f->len)
    f->cut = true;
  else
    f->len += (size_t)n;
  return MHD_YES;
}

/* The client the guard counts and the log names: the peer, or behind the
 * trusted proxy the address it forwards for (serve_proxy.h). */
static const struct sockaddr *client_of(const struct server *s,
                                        struct MHD_Connection *connection,
                                        struct sockaddr_storage *buf) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  const struct sockaddr *peer = info != NULL ? info->client_addr : NULL;
  if (!s->proxy.set)
    return peer;
  struct forwarded f = {.len = 0};
  MHD_get_connection_values(connection, MHD_HEADER_KIND, add_forwarded, &f);
  return serve_proxy_client(&s->proxy, peer,
                            f.len > 0 && !f.cut ? f.text : NULL, buf);
}

/*
 * With a token, everything but the page's own files asks for it: those
 * hold no data, and a browser cannot send a header with a page load.  The
 * token's scope (NULL: everything) then goes with the request.  The
 * refusal is the same for every path, existing or not, so that it tells
 * nothing of what is there; only the log says why (never the header).  A
 * client that guessed too often is answered 429 before its token is read.
 */
static bool refused(const struct server *s, const struct serve_tokens *tokens,
                    struct MHD_Connection *connection, const char *method,
                    const char *url, struct serve_reply *r,
                    const struct serve_scope **scope) {
  static const char *const why[] = {
      [SERVE_AUTH_MISSING] = "no token",
      [SERVE_AUTH_SCHEME] = "not a Bearer or PVEAPIToken credential",
      [SERVE_AUTH_WRONG] = "wrong token",
  };
  if (tokens == NULL || serve_asset_find(url) != NULL)
    return false;
  struct sockaddr_storage forwarded;
  const struct sockaddr *sa = client_of(s, connection, &forwarded);
  int64_t now = monotonic_ns() / 1000000000LL;
  if (held_off(s, sa, now, r))
    return true;
  const char *authorization = MHD_lookup_connection_value(
      connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  size_t which;
  enum serve_auth a = serve_auth_check(tokens, authorization, &which);
  if (a == SERVE_AUTH_OK) {
    *scope = tokens->item[which].scope;
    return false;
  }
  *r = (struct serve_reply){0};
  serve_fail_reply(r, 401, "authentication required");
  if (r->status == 401)
    snprintf(r->message, sizeof(r->message), "%s", why[a]);
  /* no token guesses nothing: the usual line, not counted */
  if (a != SERVE_AUTH_MISSING) {
    log_failure(s, tokens, sa, authorization, method, url, why[a], now);
    r->logged = true;
  }
  return true;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection,
                              const char *url, const char *method,
                              const char *version, const char *upload_data,
                              size_t *upload_data_size, void **state) {
  const struct server *s = cls;
  struct params params = {.count = 0};
  struct serve_reply reply;
  (void)version;
  (void)upload_data;
  if (*state == NULL)
    serve_deadlines_header_in(s->deadlines, connection);
  if (*state == NULL && read_only(method)) {
    if (announces_body(connection))
      return refuse_body(connection, method, url);
    *state = &headers_seen;
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    *upload_data_size = 0;
    return MHD_YES;
  }
  /* the tokens as their files say now, held until the answer is made:
   * its scope is theirs */
  const struct serve_tokens *tokens = NULL;
  if (s->live != NULL) {
    serve_tokens_live_check(s->live, monotonic_seconds());
    tokens = serve_tokens_live_hold(s->live);
  }
  const struct serve_scope *scope = NULL;
  if (!refused(s, tokens, connection, method, url, &reply, &scope)) {
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect,
                              &params);
    struct serve_headers headers = {
        .accept = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                              MHD_HTTP_HEADER_ACCEPT),
        .scope = scope,
    };
    serve_answer(s->config, method, url, params.item, params.count, &headers,
                 &reply);
  }
  if (tokens != NULL)
    serve_tokens_live_release(s->live);
  if (reply.status >= 400 && !reply.logged) {
    char path[LOG_PATH_MAX];
    printable(url, path, sizeof(path));
    log_line("pvecg serve: %s %s: %d %s\n", method, path, reply.status,
             reply.message);
  }
  enum MHD_Result sent = send_reply(connection, &reply);
  serve_reply_free(&reply);
  return sent;
}

/* ---- the daemon ---------------------------------------------------------- */

#define OPTION(o, v, p)                                                        \
  (struct MHD_OptionItem) { (o), (intptr_t)(v), (void *)(p) }

/* The daemon's options; the logger first, so that libmicrohttpd's
 * complaints about the options that follow are rate-limited too. */
static void fill_options(struct MHD_OptionItem *o, const struct server *s,
                         const struct serve_http_options *h,
                         const struct serve_listen *l) {
  size_t n = 0;
  o[n++] = OPTION(MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL);
  o[n++] = OPTION(MHD_OPTION_SOCK_ADDR, 0, &l->addr);
  /* one thread is the internal polling thread alone: libmicrohttpd
   * warns of a pool of 1 that it ignores */
  if (h->threads > 1)
    o[n++] = OPTION(MHD_OPTION_THREAD_POOL_SIZE, h->threads, NULL);
  o[n++] = OPTION(MHD_OPTION_CONNECTION_LIMIT, h->connections, NULL);
  o[n++] = OPTION(MHD_OPTION_PER_IP_CONNECTION_LIMIT, h->per_client, NULL);
  o[n++] = OPTION(MHD_OPTION_CONNECTION_TIMEOUT, CONNECTION_TIMEOUT, NULL);
  o[n++] = OPTION(MHD_OPTION_NOTIFY_CONNECTION, serve_deadlines_notify,
                  s->deadlines);
  o[n++] = OPTION(MHD_OPTION_URI_LOG_CALLBACK, serve_deadlines_request_line,
                  s->deadlines);
  o[n++] = OPTION(MHD_OPTION_NOTIFY_COMPLETED, serve_deadlines_completed,
                  s->deadlines);
  if (s->secure->cert != NULL) {
    o[n++] = OPTION(MHD_OPTION_HTTPS_MEM_CERT, 0, s->secure->cert);
    o[n++] = OPTION(MHD_OPTION_HTTPS_MEM_KEY, 0, s->secure->key);
    o[n++] = OPTION(MHD_OPTION_HTTPS_PRIORITIES, 0, s->secure->priorities);
  }
  o[n] = OPTION(MHD_OPTION_END, 0, NULL);
}

static struct MHD_Daemon *start(const struct server *s,
                                const struct serve_http_options *h,
                                const struct serve_listen *l) {
  struct MHD_OptionItem options[OPTIONS_MAX];
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_LINUX_ONLY |
                   MHD_USE_ERROR_LOG;
  if (l->addr.ss_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  if (s->secure->cert != NULL)
    flags |= MHD_USE_TLS;
  fill_options(options, s, h, l);
  return MHD_start_daemon(flags, l->port, NULL, NULL, answer, (void *)s,
                          MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

static void log_listening(struct MHD_Daemon *daemon, const struct server *s,
                          const struct serve_listen *l) {
  char host[INET6_ADDRSTRLEN] = "?";
  const union MHD_DaemonInfo *info =
      MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  const void *a =
      l->addr.ss_family == AF_INET6
          ? (const void *)&((const struct sockaddr_in6 *)&l->addr)->sin6_addr
          : (const void *)&((const struct sockaddr_in *)&l->addr)->sin_addr;
  bool tls = s->secure->cert != NULL, token = s->live != NULL;
  inet_ntop(l->addr.ss_family, a, host, sizeof(host));
  fprintf(stderr, "pvecg serve: listening on %s%s%s:%u, files in %s%s%s%s%s\n",
          l->addr.ss_family == AF_INET6 ? "[" : "", host,
          l->addr.ss_family == AF_INET6 ? "]" : "",
          info != NULL ? (unsigned)info->port : (unsigned)l->port,
          s->config->list_dir,
          s->config->daemon != NULL ? ", through rrdcached at " : "",
          s->config->daemon != NULL ? s->config->daemon : "",
          tls ? ", TLS" : "", token ? ", a token asked" : "");
}

/* Until SIGINT or SIGTERM, which the answering threads (they inherit the
 * mask) never see: only sigwait() below does. */
static int serve_until_stopped(struct server *s,
                               const struct serve_http_options *o,
                               const struct serve_listen *l, char *err,
                               size_t err_size) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  signal(SIGPIPE, SIG_IGN);
  unsigned header = o->header_timeout != 0 ? o->header_timeout : HEADER_TIMEOUT;
  int r = serve_deadlines_start(header, CONNECTION_TIMEOUT, &s->proxy, log_late,
                                &s->deadlines);
  if (r != 0) {
    snprintf(err, err_size, "cannot start: %s", strerror(-r));
    return -EIO;
  }
  first_complaint[0] = '\0';
  struct MHD_Daemon *daemon = start(s, o, l);
  if (daemon == NULL) {
    snprintf(err, err_size, "cannot listen on %s: %s", o->listen,
             first_complaint[0] != '\0' ? first_complaint : strerror(errno));
    serve_deadlines_stop(s->deadlines);
    return -EIO;
  }
  log_listening(daemon, s, l);
  int sig;
  sigwait(&stop, &sig);
  fprintf(stderr, "pvecg serve: stopping (%s)\n", strsignal(sig));
  MHD_stop_daemon(daemon);
  serve_deadlines_stop(s->deadlines);
  return 0;
}

/* The guard's hash key: the kernel's random bytes, so that no client can
 * pick addresses that all land in one set of the table; the clock if
 * those are missing (a set then fills sooner, nothing else changes). */
static uint64_t guard_seed(void) {
  uint64_t seed;
  if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
    seed = (uint64_t)monotonic_ns();
  return seed;
}

int serve_http_run(const struct serve_config *config,
                   const struct serve_http_options *options, char *err,
                   size_t err_size) {
  struct serve_listen l;
  struct serve_secure secure;
  if (serve_listen_parse(options->listen, &l) != 0) {
    snprintf(err, err_size, "--listen '%s' is not HOST:PORT or [V6]:PORT",
             options->listen);
    return -EINVAL;
  }
  if (options->tls_cert != NULL &&
      MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
    snprintf(err, err_size, "this libmicrohttpd was built without TLS");
    return -EIO;
  }
  int r = serve_secure_load(config, options, &l, &secure, err, err_size);
  if (r != 0)
    return r;
  struct server s = {.config = config, .secure = &secure};
  if (options->trusted_proxy != NULL &&
      serve_proxy_parse(options->trusted_proxy, &s.proxy) != 0) {
    serve_secure_free(&secure);
    snprintf(err, err_size, "--trusted-proxy '%s' is not an IP address",
             options->trusted_proxy);
    return -EINVAL;
  }
  s.guard = serve_guard_new(SERVE_GUARD_SLOTS, guard_seed());
  if (s.guard == NULL) {
    serve_secure_free(&secure);
    snprintf(err, err_size, "cannot start: %s", strerror(ENOMEM));
    return -ENOMEM;
  }
  if (secure.tokens.count > 0 &&
      serve_tokens_live_new(config, options->token_file, &secure.tokens, stderr,
                            &s.live) != 0) {
    serve_guard_free(s.guard);
    serve_secure_free(&secure);
    snprintf(err, err_size, "cannot start: %s", strerror(ENOMEM));
    return -ENOMEM;
  }
  r = serve_until_stopped(&s, options, &l, err, err_size);
  serve_tokens_live_free(s.live);
  serve_guard_free(s.guard);
  serve_secure_free(&secure);
  return r;
}

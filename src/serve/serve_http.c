/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmicrohttpd glue (see include/pvecg/serve.h).  libmicrohttpd is Debian's
 * (libmicrohttpd12), small, and parses HTTP with a long record of fuzzing;
 * everything the server decides is in serve_answer.c, so this file only
 * collects a request's parts, sends the answer with its headers, and logs
 * what failed, at most LOG_BURST lines per LOG_WINDOW seconds so a hostile
 * client cannot fill the journal.
 */
#include "pvecg/serve.h"

#include "serve_answer.h"
#include "serve_listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LOG_BURST 20
#define LOG_WINDOW 60
#define LOG_PATH_MAX 160
#define CONNECTION_TIMEOUT 30 /* seconds a silent client is kept */

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

/* libmicrohttpd's messages: a printf format of its own and its va_list */
static void mhd_log(void *cls, const char *format, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void mhd_log(void *cls, const char *format, va_list ap) {
  char text[512];
  (void)cls;
  vsnprintf(text, sizeof(text), format, ap);
  log_line("pvecg serve: %s%s", text,
           text[0] != '\0' && text[strlen(text) - 1] == '\n' ? "" : "\n");
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
}

static enum MHD_Result send_reply(struct MHD_Connection *connection,
                                  const struct serve_reply *r) {
  const void *data = r->body != NULL ? (const void *)r->body : r->data;
  struct MHD_Response *response = MHD_create_response_from_buffer(
      r->size, (void *)data,
      r->body != NULL ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
  if (response == NULL)
    return MHD_NO;
  add_headers(response, r);
  enum MHD_Result sent =
      MHD_queue_response(connection, (unsigned)r->status, response);
  MHD_destroy_response(response);
  return sent;
}

/* The first call of a request only says its header is in.  A GET or HEAD
 * is answered on the next call, once libmicrohttpd knows no body follows,
 * so the connection can be kept alive; a body is read and dropped.  Any
 * other method is refused at once (and its connection then closed), so
 * its body is never read at all. */
static int headers_seen;

static bool read_only(const char *method) {
  return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection,
                              const char *url, const char *method,
                              const char *version, const char *upload_data,
                              size_t *upload_data_size, void **state) {
  const struct serve_config *config = cls;
  struct params params = {.count = 0};
  struct serve_reply reply;
  (void)version;
  (void)upload_data;
  if (*state == NULL && read_only(method)) {
    *state = &headers_seen;
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    *upload_data_size = 0;
    return MHD_YES;
  }
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect,
                            &params);
  struct serve_headers headers = {
      .accept = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                            MHD_HTTP_HEADER_ACCEPT),
  };
  serve_answer(config, method, url, params.item, params.count, &headers,
               &reply);
  if (reply.status >= 400) {
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

static struct MHD_Daemon *start(const struct serve_config *config,
                                const struct serve_http_options *o,
                                const struct serve_listen *l) {
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_LINUX_ONLY |
                   MHD_USE_ERROR_LOG;
  if (l->addr.ss_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  /* the logger first, so that libmicrohttpd's complaints about the
   * options that follow are rate-limited too */
  return MHD_start_daemon(
      flags, l->port, NULL, NULL, answer, (void *)config,
      MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_SOCK_ADDR,
      (const struct sockaddr *)&l->addr, MHD_OPTION_THREAD_POOL_SIZE,
      o->threads, MHD_OPTION_CONNECTION_LIMIT, o->connections,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->per_client,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT,
      MHD_OPTION_END);
}

static void say_listening(struct MHD_Daemon *daemon,
                          const struct serve_config *config,
                          const struct serve_listen *l) {
  char host[INET6_ADDRSTRLEN] = "?";
  const union MHD_DaemonInfo *info =
      MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  const void *a =
      l->addr.ss_family == AF_INET6
          ? (const void *)&((const struct sockaddr_in6 *)&l->addr)->sin6_addr
          : (const void *)&((const struct sockaddr_in *)&l->addr)->sin_addr;
  inet_ntop(l->addr.ss_family, a, host, sizeof(host));
  fprintf(stderr, "pvecg serve: listening on %s%s%s:%u, files in %s%s%s\n",
          l->addr.ss_family == AF_INET6 ? "[" : "", host,
          l->addr.ss_family == AF_INET6 ? "]" : "",
          info != NULL ? (unsigned)info->port : (unsigned)l->port,
          config->list_dir,
          config->daemon != NULL ? ", through rrdcached at " : "",
          config->daemon != NULL ? config->daemon : "");
}

int serve_http_run(const struct serve_config *config,
                   const struct serve_http_options *options, char *err,
                   size_t err_size) {
  struct serve_listen l;
  if (serve_listen_parse(options->listen, &l) != 0) {
    snprintf(err, err_size, "--listen '%s' is not HOST:PORT or [V6]:PORT",
             options->listen);
    return -EINVAL;
  }
  /* the answering threads inherit this mask: only sigwait() below sees
   * the signals that stop the server */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  signal(SIGPIPE, SIG_IGN);
  struct MHD_Daemon *daemon = start(config, options, &l);
  if (daemon == NULL) {
    snprintf(err, err_size, "cannot listen on %s: %s", options->listen,
             strerror(errno));
    return -EIO;
  }
  say_listening(daemon, config, &l);
  int sig;
  sigwait(&stop, &sig);
  fprintf(stderr, "pvecg serve: stopping (%s)\n", strsignal(sig));
  MHD_stop_daemon(daemon);
  return 0;
}

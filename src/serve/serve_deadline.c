/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The header deadline (see serve_deadline.h).  Every open connection is on
 * one list; the watchdog sleeps until the earliest deadline of those
 * waiting for a header and shuts a late one's socket down, which
 * libmicrohttpd then sees as the client gone and closes in its own
 * thread.  libmicrohttpd reports a connection closed before it closes the
 * socket, and the list's lock is held around shutdown(), so a number
 * reused by a newer connection is never shut down by mistake.  The log is
 * written after the lock is let go: a slow stderr (a full pipe, a stalled
 * journal) must not hold up every connection's opening and closing.
 */
#include "serve_deadline.h"

#include "serve_proxy.h"

#include "pvecg/monotonic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define NS 1000000000LL
/* closings logged per pass of the watchdog; more in one pass are closed
 * all the same, unlogged (the log's own limit would drop them anyway) */
#define LATE_LOGGED 16

struct watched {
  struct watched *prev, *next;
  int fd;
  bool waiting; /* for a header: deadline_ns runs */
  bool idle;    /* the deadline is the keep-alive one: closed unlogged */
  int64_t deadline_ns;
  unsigned limit_s; /* the seconds the running deadline gave, for the log */
  char addr[ADDR_TEXT];
};

/* A closing to log once the lock is let go. */
struct late {
  char addr[ADDR_TEXT];
  unsigned limit_s;
};

struct serve_deadlines {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  pthread_t thread;
  bool stop;
  unsigned header_s, idle_s;
  int64_t header_ns, idle_ns;
  int64_t wake_ns; /* when the watchdog wakes next, INT64_MAX: not by time */
  struct watched list; /* circular, with this as its head */
  void (*log)(const char *addr, unsigned seconds);
  const struct serve_proxy *proxy; /* names the peer that is the proxy */
};

/* ---- the watchdog -------------------------------------------------------- */

/* Under lock: shuts the late ones down, noting up to LATE_LOGGED of them
 * in late (*n of them); the next deadline. */
static int64_t close_late(struct serve_deadlines *d, int64_t now,
                          struct late late[LATE_LOGGED], size_t *n) {
  int64_t next = INT64_MAX;
  *n = 0;
  for (struct watched *w = d->list.next; w != &d->list; w = w->next) {
    if (!w->waiting)
      continue;
    if (w->deadline_ns > now) {
      next = w->deadline_ns < next ? w->deadline_ns : next;
      continue;
    }
    w->waiting = false;
    shutdown(w->fd, SHUT_RDWR);
    /* a connection left idle is routine (browsers keep a few) */
    if (!w->idle && *n < LATE_LOGGED) {
      memcpy(late[*n].addr, w->addr, sizeof(w->addr));
      late[(*n)++].limit_s = w->limit_s;
    }
  }
  return next;
}

static void *watch(void *arg) {
  struct serve_deadlines *d = arg;
  struct late late[LATE_LOGGED];
  size_t n;
  pthread_mutex_lock(&d->lock);
  while (!d->stop) {
    d->wake_ns = close_late(d, monotonic_ns(), late, &n);
    if (n > 0) {
      pthread_mutex_unlock(&d->lock);
      for (size_t i = 0; i < n; i++)
        d->log(late[i].addr, late[i].limit_s);
      pthread_mutex_lock(&d->lock);
      continue; /* the list may have changed meanwhile */
    }
    if (d->wake_ns == INT64_MAX) {
      pthread_cond_wait(&d->changed, &d->lock);
      continue;
    }
    struct timespec at = {.tv_sec = (time_t)(d->wake_ns / NS),
                          .tv_nsec = (long)(d->wake_ns % NS)};
    pthread_cond_timedwait(&d->changed, &d->lock, &at);
  }
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

enum arming {
  FIRST_HEADER, /* a new connection: its header within header_s */
  NEXT_HEADER,  /* a request line: the rest within header_s, if earlier */
  IDLE          /* answered: the next header within idle_s */
};

/* Sets w's deadline; wakes the watchdog if it would sleep past it. */
static void arm(struct serve_deadlines *d, struct watched *w, enum arming how) {
  int64_t deadline = monotonic_ns() + (how == IDLE ? d->idle_ns : d->header_ns);
  pthread_mutex_lock(&d->lock);
  /* a request line may shorten the keep-alive wait, never lengthen it */
  if (!(how == NEXT_HEADER && w->waiting && w->deadline_ns < deadline)) {
    w->deadline_ns = deadline;
    w->limit_s = how == IDLE ? d->idle_s : d->header_s;
  }
  w->idle = how == IDLE;
  w->waiting = true;
  if (w->deadline_ns < d->wake_ns)
    pthread_cond_signal(&d->changed);
  pthread_mutex_unlock(&d->lock);
}

int serve_deadlines_start(unsigned header_s, unsigned idle_s,
                          const struct serve_proxy *proxy,
                          void (*log)(const char *addr, unsigned seconds),
                          struct serve_deadlines **ret) {
  struct serve_deadlines *d = calloc(1, sizeof(*d));
  pthread_condattr_t attr;
  if (d == NULL)
    return -ENOMEM;
  d->header_s = header_s;
  d->idle_s = idle_s;
  d->header_ns = header_s * NS;
  d->idle_ns = idle_s * NS;
  d->wake_ns = INT64_MAX;
  d->list.next = d->list.prev = &d->list;
  d->log = log;
  d->proxy = proxy;
  pthread_mutex_init(&d->lock, NULL);
  /* the watchdog's sleep on the clock the deadlines are in */
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&d->changed, &attr);
  pthread_condattr_destroy(&attr);
  int r = pthread_create(&d->thread, NULL, watch, d);
  if (r != 0) {
    pthread_cond_destroy(&d->changed);
    pthread_mutex_destroy(&d->lock);
    free(d);
    return -r;
  }
  *ret = d;
  return 0;
}

void serve_deadlines_stop(struct serve_deadlines *d) {
  pthread_mutex_lock(&d->lock);
  d->stop = true;
  pthread_cond_signal(&d->changed);
  pthread_mutex_unlock(&d->lock);
  pthread_join(d->thread, NULL);
  pthread_cond_destroy(&d->changed);
  pthread_mutex_destroy(&d->lock);
  free(d);
}

/* ---- libmicrohttpd's hooks ----------------------------------------------- */

static struct watched *watched_of(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info != NULL ? info->socket_context : NULL;
}

/* The peer as the log names it: before a request there is no
 * X-Forwarded-For, so behind the trusted proxy it is the proxy, logged as
 * such. */
static void name_client(const struct serve_deadlines *d,
                        struct MHD_Connection *connection, char *out,
                        size_t size) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  serve_address_text(d->proxy, info != NULL ? info->client_addr : NULL, out,
                     size);
}

static void opened(struct serve_deadlines *d, struct MHD_Connection *connection,
                   void **socket_context) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  /* without memory or its socket the connection keeps only
   * libmicrohttpd's inactivity timeout */
  struct watched *w = info != NULL ? calloc(1, sizeof(*w)) : NULL;
  if (w == NULL)
    return;
  w->fd = info->connect_fd;
  name_client(d, connection, w->addr, sizeof(w->addr));
  pthread_mutex_lock(&d->lock);
  w->next = &d->list;
  w->prev = d->list.prev;
  d->list.prev->next = w;
  d->list.prev = w;
  pthread_mutex_unlock(&d->lock);
  *socket_context = w;
  arm(d, w, FIRST_HEADER);
}

static void closed(struct serve_deadlines *d, void **socket_context) {
  struct watched *w = *socket_context;
  if (w == NULL)
    return;
  pthread_mutex_lock(&d->lock);
  w->prev->next = w->next;
  w->next->prev = w->prev;
  pthread_mutex_unlock(&d->lock);
  free(w);
  *socket_context = NULL;
}

void serve_deadlines_notify(void *cls, struct MHD_Connection *connection,
                            void **socket_context,
                            enum MHD_ConnectionNotificationCode code) {
  if (code == MHD_CONNECTION_NOTIFY_STARTED)
    opened(cls, connection, socket_context);
  else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
    closed(cls, socket_context);
}

void *serve_deadlines_request_line(void *cls, const char *uri,
                                   struct MHD_Connection *connection) {
  struct serve_deadlines *d = cls;
  struct watched *w = watched_of(connection);
  (void)uri;
  if (w != NULL)
    arm(d, w, NEXT_HEADER);
  return NULL;
}

void serve_deadlines_completed(void *cls, struct MHD_Connection *connection,
                               void **request_context,
                               enum MHD_RequestTerminationCode code) {
  struct serve_deadlines *d = cls;
  struct watched *w = watched_of(connection);
  (void)request_context;
  (void)code;
  if (w != NULL)
    arm(d, w, IDLE);
}

void serve_deadlines_header_in(struct serve_deadlines *d,
                               struct MHD_Connection *connection) {
  struct watched *w = watched_of(connection);
  if (w == NULL)
    return;
  pthread_mutex_lock(&d->lock);
  w->waiting = false;
  pthread_mutex_unlock(&d->lock);
}

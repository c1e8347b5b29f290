/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RRD files through an rrdcached daemon (see rrdcached_client.h).
 *
 * librrd's rrdc_* calls report two kinds of failure the same way: the
 * daemon refusing a request (its answer is in rrd_get_error(), prefixed
 * "rrdcached@<address>: ") and the connection breaking (librrd then closes
 * it).  rrdc_is_connected() after the call tells them apart, which is what
 * lets the store keep "the daemon is away" (-ENOTCONN, try the row again
 * later) apart from "this file has a problem".
 */
#include "pvecg/rrdcached_client.h"

#include "pvecg/rrd_words.h"
#include "rrdcached_cloexec.h"

#include "rrd_text.h"

#include <rrd.h>
#include <rrd_client.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct rrdcached_client {
  char *address; /* passed to rrdc_connect exactly as configured, so its
                    "already connected to this daemon" test matches */
  bool unix_socket;
  struct rrd_access access;
};

/* ---- messages ---------------------------------------------------------- */

/* ---- the connection ---------------------------------------------------- */

static bool connected(const struct rrdcached_client *c) {
  return rrdc_is_connected(c->address) != 0;
}

int rrdcached_client_connect(struct rrdcached_client *c, char *err,
                             size_t err_size) {
  if (connected(c))
    return 0;
  rrd_clear_error();
  if (rrdc_connect(c->address) != 0 || !connected(c)) {
    rrd_text_set(err, err_size, "%s", rrd_text_librrd_error("no reason given"));
    return -ENOTCONN;
  }
  rrdcached_socket_set_cloexec(c->address);
  return 0;
}

void rrdcached_client_disconnect(struct rrdcached_client *c) {
  (void)c;
  rrdc_disconnect();
}

/*
 * Every request goes through here: connect if needed, make the request,
 * and when the connection broke under it (a restarted daemon, or one that
 * closed an idle connection), connect and make it once more.  A request
 * returns 0, -ENOTCONN when the connection broke (see failed()), or
 * another negative errno when the daemon answered with an error, whose
 * text perform() copies to err.
 */
struct request {
  int (*call)(struct rrdcached_client *c, void *arg);
  void *arg;
};

bool rrdcached_socket_failed(int error) {
  switch (error) {
  case ECONNRESET:
  case ECONNABORTED:
  case ENOTCONN:
  case ETIMEDOUT:
  case EAGAIN:
  case EINTR:
  case ENETRESET:
  case ENETUNREACH:
  case EHOSTUNREACH:
    return true;
  default:
    return false;
  }
}

/* A failed librrd call: the daemon's refusal, or a lost connection. */
static int failed(const struct rrdcached_client *c) {
  return connected(c) ? -EIO : -ENOTCONN;
}

static int perform(struct rrdcached_client *c, const struct request *req,
                   char *err, size_t err_size) {
  for (int attempt = 0; attempt < 2; attempt++) {
    if (rrdcached_client_connect(c, err, err_size) != 0)
      return -ENOTCONN;
    rrd_clear_error();
    errno = 0;
    int r = req->call(c, req->arg);
    int error = errno;
    /* librrd made the request again on a connection of its own making */
    if (error == EPIPE)
      rrdcached_socket_set_cloexec(c->address);
    if (r != -ENOTCONN && rrdcached_socket_failed(error)) {
      /* whatever librrd made of it, the answer was not read: drop the
       * connection (and librrd's buffer with it) and ask again */
      rrdcached_client_disconnect(c);
      rrd_set_error("%s", strerror(error));
      r = -ENOTCONN;
    }
    if (r != -ENOTCONN) {
      if (r != 0)
        rrd_text_set(err, err_size, "%s",
                     rrd_text_librrd_error("no reason given"));
      return r;
    }
  }
  rrd_text_set(err, err_size, "the connection to %s broke: %s", c->address,
               rrd_text_librrd_error("no reason given"));
  return -ENOTCONN;
}

/* ---- the store's operations -------------------------------------------- */

struct info_call {
  const char *path;
  rrd_info_t *info;
};

static int call_info(struct rrdcached_client *c, void *arg) {
  struct info_call *ic = arg;
  ic->info = rrdc_info(ic->path);
  int error = errno;
  /* an answer that was not read is not the file's info (call_fetch) */
  if (ic->info != NULL && rrdcached_socket_failed(error)) {
    rrd_info_free(ic->info);
    ic->info = NULL;
    errno = error;
    return 0;
  }
  return ic->info != NULL ? 0 : failed(c);
}

/* A missing file, as the daemon words it (strerror of its own host).  Over
 * a unix socket the file is local and stat() answers instead. */
static int info_failure(const char *why) {
  if (strstr(why, "No such file or directory") != NULL)
    return -ENOENT;
  if (strstr(why, "Permission denied") != NULL) /* outside -b with -B */
    return -EACCES;
  return -EIO;
}

static int local_presence(const char *path, char *why, size_t why_size) {
  struct stat st;
  if (stat(path, &st) != 0) {
    int r = errno == ENOTDIR ? -ENOENT : -errno;
    char text[128];
    if (r != -ENOENT)
      rrd_text_set(why, why_size, "%s", strerror_r(-r, text, sizeof(text)));
    return r;
  }
  if (!S_ISREG(st.st_mode)) {
    rrd_text_set(why, why_size, "not a regular file");
    return -EIO;
  }
  return 0;
}

static int daemon_check(void *ctx, const struct rrd_layout *layout,
                        const char *path, char *why, size_t why_size) {
  struct rrdcached_client *c = ctx;
  if (c->unix_socket) {
    int r = local_presence(path, why, why_size);
    if (r != 0)
      return r;
  }
  struct info_call ic = {.path = path};
  struct request req = {call_info, &ic};
  char text[512] = "";
  int r = perform(c, &req, text, sizeof(text));
  if (r == -EIO)
    r = info_failure(text);
  if (r != 0) {
    if (r != -ENOENT)
      rrd_text_set(why, why_size, "%s", text);
    return r;
  }
  r = rrd_words_check_info(layout, ic.info, why, why_size);
  rrd_info_free(ic.info);
  return r;
}

struct create_call {
  const char *path;
  const struct rrd_layout *layout;
  time_t start;
  struct rrd_words_definitions *defs;
};

static int call_create(struct rrdcached_client *c, void *arg) {
  struct create_call *cc = arg;
  /* A file deleted while the daemon still caches rows for it would get
   * them on its next flush; FORGET drops them (and fails harmlessly for
   * a file it does not know). */
  rrdc_forget(cc->path);
  rrd_clear_error();
  if (rrdc_create_r2(cc->path, cc->layout->step, cc->start,
                     1 /* no overwrite */, NULL, NULL, cc->defs->argc,
                     cc->defs->argv) == 0)
    return 0;
  int r = failed(c);
  if (r == -ENOTCONN)
    return r;
  /* rrdcached 1.7.2 answers some CREATE errors in two lines ("...\nDid you
   * pass -R to the daemon?"): the second would be read as the answer to
   * the next request, so that one starts on a fresh connection. */
  char reason[512];
  snprintf(reason, sizeof(reason), "%s",
           rrd_text_librrd_error("no reason given"));
  rrdc_disconnect();
  rrd_set_error("%s", reason);
  return strstr(reason, "File exists") != NULL ? -EEXIST : -EIO;
}

static int daemon_create(void *ctx, const struct rrd_layout *layout,
                         const char *path, time_t start, char *err,
                         size_t err_size) {
  struct rrd_words_definitions defs;
  if (rrd_words_definitions(layout, &defs) != 0) {
    rrd_text_set(err, err_size, "layout %s cannot be expressed", layout->name);
    return -EIO;
  }
  struct create_call cc = {path, layout, start, &defs};
  struct request req = {call_create, &cc};
  return perform(ctx, &req, err, err_size);
}

struct update_call {
  const char *path;
  const char *row;
};

static int call_update(struct rrdcached_client *c, void *arg) {
  struct update_call *uc = arg;
  const char *values[1] = {uc->row};
  return rrdc_update(uc->path, 1, values) != 0 ? failed(c) : 0;
}

static int daemon_update(void *ctx, const char *path, const char *row,
                         time_t *file_last, char *err, size_t err_size) {
  struct update_call uc = {path, row};
  struct request req = {call_update, &uc};
  char text[512] = "";
  int r = perform(ctx, &req, text, sizeof(text));
  if (r != 0)
    rrd_text_set(err, err_size, "%s", text);
  if (r == -EIO && rrd_words_refusal(text, file_last) == 0)
    return -ESTALE;
  return r;
}

struct flush_call {
  const char *path;
};

static int call_flush(struct rrdcached_client *c, void *arg) {
  struct flush_call *fc = arg;
  return rrdc_flush(fc->path) != 0 ? failed(c) : 0;
}

int rrdcached_client_flush(struct rrdcached_client *c, const char *path,
                           char *err, size_t err_size) {
  struct flush_call fc = {path};
  struct request req = {call_flush, &fc};
  return perform(c, &req, err, err_size);
}

struct fetch_call {
  const char *path, *cf;
  time_t start, end; /* asked for: librrd moves rows->start and end */
  struct rrdcached_rows *rows;
};

static void free_rows(struct rrdcached_rows *rows) {
  for (unsigned long i = 0; rows->names != NULL && i < rows->ds_count; i++)
    rrd_freemem(rows->names[i]);
  rrd_freemem(rows->names);
  rrd_freemem(rows->data);
  rows->names = NULL;
  rows->data = NULL;
}

static int call_fetch(struct rrdcached_client *c, void *arg) {
  struct fetch_call *fc = arg;
  struct rrdcached_rows *rows = fc->rows;
  *rows = (struct rrdcached_rows){.start = fc->start, .end = fc->end};
  int r = rrdc_fetch(fc->path, fc->cf, &rows->start, &rows->end, &rows->step,
                     &rows->ds_count, &rows->names, &rows->data);
  int error = errno;
  /* the answer was not read (see rrdcached_socket_failed): whatever
   * librrd made of it is not the rows, and perform() asks again */
  if (r == 0 && rrdcached_socket_failed(error))
    free_rows(rows);
  errno = error;
  return r != 0 ? failed(c) : 0;
}

int rrdcached_client_fetch(struct rrdcached_client *c, const char *path,
                           const char *cf, struct rrdcached_rows *rows,
                           char *err, size_t err_size) {
  struct fetch_call fc = {path, cf, rows->start, rows->end, rows};
  struct request req = {call_fetch, &fc};
  return perform(c, &req, err, err_size);
}

/* INFO reads the file as it is on disk: rows the daemon still holds are
 * written first, so the last update includes them. */
static int daemon_last_update(void *ctx, const char *path, time_t *ret,
                              char *err, size_t err_size) {
  struct rrdcached_client *c = ctx;
  int r = rrdcached_client_flush(c, path, err, err_size);
  if (r == -ENOTCONN)
    return r;
  struct info_call ic = {.path = path};
  struct request req = {call_info, &ic};
  r = perform(c, &req, err, err_size);
  if (r != 0)
    return r == -ENOTCONN ? r : info_failure(err);
  r = -EIO;
  for (const rrd_info_t *i = ic.info; i != NULL; i = i->next)
    if (i->type == RD_I_CNT && strcmp(i->key, "last_update") == 0) {
      *ret = (time_t)i->value.u_cnt;
      r = 0;
    }
  rrd_info_free(ic.info);
  if (r != 0)
    rrd_text_set(err, err_size, "the daemon's INFO has no last_update");
  return r;
}

int rrdcached_client_info(struct rrdcached_client *c, const char *path,
                          struct rrd_info_t **ret, char *err, size_t err_size) {
  struct info_call ic = {.path = path};
  struct request req = {call_info, &ic};
  int r = perform(c, &req, err, err_size);
  if (r != 0)
    return r == -ENOTCONN ? r : info_failure(err);
  *ret = ic.info;
  return 0;
}

/* ---- the client -------------------------------------------------------- */

static bool address_valid(const char *a) {
  if (a == NULL || a[0] == '\0')
    return false;
  for (const unsigned char *p = (const unsigned char *)a; *p; p++)
    if (*p <= 0x20 || *p == 0x7f)
      return false;
  /* "unix:relative" would be resolved against collectd's working
   * directory, and librrd does not accept it anyway */
  return strncmp(a, "unix:", 5) != 0 || a[5] == '/';
}

bool rrdcached_address_is_unix(const char *address) {
  return address[0] == '/' || strncmp(address, "unix:", 5) == 0;
}

int rrdcached_client_new(const char *address, struct rrdcached_client **ret) {
  if (!address_valid(address) || ret == NULL)
    return -EINVAL;
  struct rrdcached_client *c = calloc(1, sizeof(*c));
  if (c == NULL || (c->address = strdup(address)) == NULL) {
    free(c);
    return -ENOMEM;
  }
  c->unix_socket = rrdcached_address_is_unix(address);
  c->access = (struct rrd_access){
      .ctx = c,
      .local = c->unix_socket,
      .check = daemon_check,
      .create = daemon_create,
      .update = daemon_update,
      .last_update = daemon_last_update,
  };
  *ret = c;
  return 0;
}

void rrdcached_client_free(struct rrdcached_client *c) {
  if (c == NULL)
    return;
  rrdc_disconnect();
  free(c->address);
  free(c);
}

bool rrdcached_client_is_unix(const struct rrdcached_client *c) {
  return c->unix_socket;
}

const char *rrdcached_client_address(const struct rrdcached_client *c) {
  return c->address;
}

const struct rrd_access *rrdcached_client_access(struct rrdcached_client *c) {
  return &c->access;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An answer's forms (see serve_reply.h): a JSON body written by a
 * handler's fill(), and Proxmox's {"data":null,"message":...} failure.
 */
#include "serve_reply.h"

#include "pvecg/json_writer.h"
#include "serve_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char out_of_memory[] =
    "{\"data\":null,\"message\":\"out of memory\"}";

/* A JSON body written by fill(), or a 500 when no memory is left. */
void serve_json_reply(struct serve_reply *r, int status,
                      void (*fill)(struct json_writer *, const void *),
                      const void *arg) {
  char *body = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&body, &size);
  r->content_type = SERVE_JSON_TYPE;
  r->cache_control = "no-store";
  if (out != NULL) {
    struct json_writer w;
    json_writer_init(&w, out);
    fill(&w, arg);
    if (fclose(out) == 0) {
      r->status = status;
      r->body = body;
      r->size = size;
      return;
    }
  }
  free(body);
  r->status = 500;
  r->data = out_of_memory;
  r->size = sizeof(out_of_memory) - 1;
  snprintf(r->message, sizeof(r->message), "out of memory");
}

static void fill_error(struct json_writer *w, const void *arg) {
  const struct serve_error *e = arg;
  json_begin_object(w);
  json_key(w, "data");
  json_null(w);
  json_key(w, "message");
  json_string(w, e->message);
  if (e->param[0] != '\0') {
    json_key(w, "errors");
    json_begin_object(w);
    json_key(w, e->param);
    json_string(w, e->param_problem);
    json_end_object(w);
  }
  json_end_object(w);
}

void serve_error_reply(struct serve_reply *r, const struct serve_error *e) {
  serve_json_reply(r, e->status, fill_error, e);
  if (r->status == e->status && e->param[0] != '\0')
    snprintf(r->message, sizeof(r->message), "%s (%s: %s)", e->message,
             e->param, e->param_problem);
  else if (r->status == e->status)
    snprintf(r->message, sizeof(r->message), "%s", e->message);
}

void serve_fail_reply(struct serve_reply *r, int status, const char *what) {
  struct serve_error e = {.status = status};
  snprintf(e.message, sizeof(e.message), "%s", what);
  serve_error_reply(r, &e);
}

void serve_reply_free(struct serve_reply *reply) {
  free(reply->body);
  *reply = (struct serve_reply){0};
}

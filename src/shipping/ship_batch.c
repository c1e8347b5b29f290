/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shipper's batches (see ship.h): the text of whole file slices in a
 * memory stream (remote write: one request the export gathered of them),
 * the cursors each batch carries, and what an answer does to them.  Over HTTP
 * the store takes one batch while the next is made; the sender's post returns
 * once the batch before is in, which is when that batch's cursors are committed
 * and the state saved.
 */
#include "ship_internal.h"

#include "pvecg/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int marks_add(struct ship_marks *m, struct ship_entry *entry,
                     const struct ship_mark *mark, size_t rows, size_t start) {
  m->rows += rows;
  /* A file's later slice in the same batch replaces its earlier one. */
  if (m->count > 0 && m->item[m->count - 1].entry == entry) {
    m->item[m->count - 1].mark = *mark;
    return 0;
  }
  struct ship_pending *grown =
      grow_array(m->item, m->count + 1, &m->capacity, sizeof(*grown), 64);
  if (grown == NULL)
    return -ENOMEM;
  m->item = grown;
  m->item[m->count++] = (struct ship_pending){entry, *mark, start};
  return 0;
}

static void marks_clear(struct ship_marks *m) {
  m->count = 0;
  m->rows = 0;
}

/* Every file goes on from what the store acknowledged (Graphite: from the
 * trailing cursor), and is read again even if it did not change. */
static void rewind_cursors(struct ship *sh) {
  for (size_t i = 0; i < sh->state.count; i++) {
    struct ship_entry *e = &sh->state.entry[i];
    e->next = e->acked;
    e->candidate = (struct ship_mark){0};
    e->read_mtime = (struct timespec){0};
  }
}

int ship_batch_open(struct ship *sh) {
  struct ship_options *o = sh->o;
  int r = 0;
  if (sh->net != NULL && !net_sender_alive(sh->net))
    ship_batch_close(sh); /* carbon went away: connect anew, resend */
  if (sh->http != NULL || sh->net != NULL)
    return 0;
  if (o->http) {
    o->http_options.cap = sh->cap.learned; /* what passed before */
    o->http_options.stop = o->stop;
    r = http_sender_open(&o->http_options, &sh->http, sh->err, sizeof(sh->err));
  } else
    r = net_sender_open(&o->net_target, o->timeout, o->stop, &sh->net, sh->err,
                        sizeof(sh->err));
  /* A new connection: Graphite's resend window starts over from the
   * cursors the state keeps. */
  if (r == 0)
    rewind_cursors(sh);
  return r;
}

int ship_batch_add(struct ship *sh, struct ship_entry *entry,
                   const struct ship_mark *mark, size_t rows, size_t start) {
  return marks_add(&sh->building, entry, mark, rows, start);
}

/* Remote write: the batch is the request the export gathered. */
static bool remote(const struct ship *sh) {
  return sh->o->run.format == EXPORT_REMOTE_WRITE;
}

static size_t batch_bytes(const struct ship *sh) {
  return remote(sh) ? export_run_remote_size(&sh->o->run)
                    : (size_t)ftello(sh->out);
}

size_t ship_batch_offset(const struct ship *sh) {
  return remote(sh) ? export_run_remote_unit(&sh->o->run)
                    : (size_t)ftello(sh->out);
}

bool ship_batch_full(const struct ship *sh) {
  return batch_bytes(sh) >= sh->o->run.batch_max;
}

int ship_batch_post_request(void *ctx, struct http_message *m,
                            const char *label, char *err, size_t err_size) {
  struct ship *sh = ctx;
  sh->building.batch = ++sh->posted;
  return http_sender_post_whole(sh->http, m, label, err, err_size);
}

/* Graphite: a cursor is committed once its rows went `resend` seconds
 * ago, so a new connection sends the rows of that window again. */
static void commit_trailing(struct ship *sh, struct ship_entry *e,
                            const struct ship_mark *mark, time_t now) {
  if (e->candidate.t != 0 && now - e->candidate_at >= (time_t)sh->o->resend) {
    e->acked = e->candidate;
    e->candidate = (struct ship_mark){0};
  }
  if (sh->o->resend == 0)
    e->acked = *mark;
  else if (e->candidate.t == 0) {
    e->candidate = *mark;
    e->candidate_at = now;
  }
}

/* The store has the batch: its cursors move, the state is saved. */
static int commit(struct ship *sh, struct ship_marks *m) {
  if (m->count == 0)
    return 0;
  time_t now = time(NULL);
  for (size_t i = 0; i < m->count; i++) {
    struct ship_pending *p = &m->item[i];
    if (sh->o->http)
      p->entry->acked = p->mark;
    else
      commit_trailing(sh, p->entry, &p->mark, now);
  }
  sh->state.stats.rows_sent += m->rows;
  sh->state.stats.last_success = now;
  if (sh->http != NULL)
    ship_answer_delivered(sh, m);
  marks_clear(m);
  ship_save(sh);
  return 0;
}

void ship_save(struct ship *sh) {
  char err[SHIP_ERR_SIZE];
  int r = ship_state_save(sh->o->state_dir, &sh->state, err, sizeof(err));
  if (r < 0 && !sh->save_failed)
    ship_log(sh,
             "%s; shipping goes on with the state in memory (after a restart "
             "the rows since the last save are sent again)",
             err);
  else if (r == 0 && sh->save_failed)
    ship_log(sh, "%s/%s.state is saved again", sh->o->state_dir, sh->state.id);
  sh->save_failed = r < 0;
  sh->dirty = r < 0;
}

/* The store did not take it (or a stop gave it up, which is no failure of
 * the store's): every cursor goes back to what it acknowledged, and the
 * connection is made anew next time. */
static int fail(struct ship *sh, int r) {
  struct ship_stats *st = &sh->state.stats;
  if (r != -ECANCELED) {
    st->rows_failed += sh->inflight.rows + sh->building.rows;
    st->batches_failed++;
    st->last_failure = time(NULL);
    sh->dirty = true;
  }
  marks_clear(&sh->inflight);
  marks_clear(&sh->building);
  rewind_cursors(sh);
  rewind(sh->out);
  if (remote(sh))
    export_run_remote_discard(&sh->o->run);
  if (sh->http != NULL) {
    http_sender_failure(sh->http, &sh->failure);
  } else {
    sh->failure = (struct store_answer){.verdict = STORE_AWAY};
    store_words_quote(sh->err, strlen(sh->err), sh->failure.words,
                      sizeof(sh->failure.words));
  }
  ship_batch_close(sh);
  return r;
}

static int send_text(struct ship *sh, const char *text, size_t len) {
  if (remote(sh)) /* posted by ship_batch_post_request() */
    return export_run_remote_flush(&sh->o->run, sh->err, sizeof(sh->err));
  if (sh->net != NULL)
    return net_sender_send(sh->net, text, len, sh->err, sizeof(sh->err));
  sh->building.batch = ++sh->posted;
  return http_sender_post(sh->http, text, len, "a batch", sh->err,
                          sizeof(sh->err));
}

int ship_batch_send(struct ship *sh) {
  if (fflush(sh->out) != 0)
    return fail(sh, -ENOMEM);
  size_t len = batch_bytes(sh);
  if (len == 0 && sh->building.count == 0)
    return 0;
  if (sh->http == NULL && sh->net == NULL)
    return fail(sh, -ENOTCONN);
  int r = len > 0 ? send_text(sh, sh->text, len) : 0;
  if (r < 0)
    return fail(sh, r);
  rewind(sh->out);
  if (sh->net != NULL) {
    commit(sh, &sh->building); /* a state not saved is logged; rows go on */
    return 0;
  }
  /* The post returned: the batch before this one is in. */
  commit(sh, &sh->inflight);
  struct ship_marks was = sh->inflight;
  sh->inflight = sh->building;
  sh->building = was;
  marks_clear(&sh->building);
  return 0;
}

int ship_batch_finish(struct ship *sh) {
  int r = ship_batch_send(sh);
  if (r < 0 || sh->http == NULL)
    return r;
  r = http_sender_finish(sh->http, sh->err, sizeof(sh->err));
  if (r < 0)
    return fail(sh, r);
  commit(sh, &sh->inflight);
  return 0;
}

void ship_batch_close(struct ship *sh) {
  http_sender_free(sh->http);
  net_sender_free(sh->net);
  sh->http = NULL;
  sh->net = NULL;
  sh->posted = 0; /* a new sender counts from 0 */
  sh->counted = (struct http_sender_stats){0};
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shipper's parts (see ship.h): the pass over the files (ship.c),
 * which files a pass reads (ship_scan.c), the batches and what their
 * acknowledgement commits (ship_batch.c), what the store's answers do to
 * the shipper (ship_answer.c), and what it says (ship_log.c).
 */
#ifndef PVECG_SHIP_INTERNAL_H
#define PVECG_SHIP_INTERNAL_H

#include "pvecg/export_files.h"
#include "pvecg/guest_directories.h"
#include "pvecg/ship.h"
#include "ship_cap.h"
#include "ship_state.h"

#include <stdint.h>

#define SHIP_ERR_SIZE 1024

/* A file's rows in a batch: where its cursor goes once the batch is in,
 * and where its text starts in the batch (remote write: its unit), to
 * name a line (the samples) the store skipped. */
struct ship_pending {
  struct ship_entry *entry;
  struct ship_mark mark;
  size_t start;
};

struct ship_marks {
  struct ship_pending *item;
  size_t count, capacity;
  uint64_t rows;
  size_t batch; /* the sender's number of the batch (HTTP) */
};

struct ship {
  struct ship_options *o;
  struct ship_state state;
  struct export_files files;
  /* The directories the last scan read; each file's entry until the next
   * scan (files.count of them); when that scan was (time()). */
  struct export_dirs dirs;
  struct ship_entry **entry_of;
  size_t entry_of_capacity;
  time_t scanned_at;
  size_t kept;                      /* files kept open between passes */
  struct guest_directories *guests; /* each cluster's, read when asked */
  bool dirty;                       /* the state changed since it was saved */
  bool guests_stale;                /* read them again before the next files */
  bool guests_unknown;              /* a guest had no configuration */
  time_t guests_loaded_at;
  struct http_sender *http;
  struct net_sender *net;
  FILE *out; /* the batch being made */
  char *text;
  size_t text_len;
  /* HTTP: the batch in the sender's hands, and the one being made. */
  struct ship_marks inflight, building;
  size_t posted; /* batches handed to this sender */
  /* The store's health as the log tells it. */
  bool down;
  time_t down_since, down_logged_at;
  uint64_t rows_at_down;
  /* Why the latest batch failed (sender's words), and how often in a row
   * the target was refused; no request goes before hold_until
   * (monotonic s): a store that asked to wait, a refusing one backed off. */
  struct store_answer failure;
  unsigned refused_in_row;
  double hold_until;
  char refusal_logged[SHIP_ERR_SIZE]; /* the refusal logged last */
  /* The sender's totals already added to the state; partial writes not
   * logged yet, when they were last logged; points skipped logged this pass. */
  struct http_sender_stats counted;
  struct ship_cap cap; /* the request size, a 413's hint */
  size_t dropped_unlogged;
  char dropped_words[STORE_WORDS_SIZE];
  time_t dropped_logged_at;
  /* Remote write: refused samples not logged yet, the latest refusal's
   * words, when such a line was last logged. */
  size_t refused_unlogged;
  char refused_words[STORE_WORDS_SIZE];
  time_t refused_logged_at;
  unsigned skips_logged;
  bool save_failed; /* logged once until a save works again */
  char err[SHIP_ERR_SIZE];
};

/* ship_scan.c */
/* A cursor belongs to one file: another file under the same name (a VMID
 * used again, a file made anew) starts over from its first row. */
void ship_restart(struct ship *sh, struct ship_entry *e, const char *why);
/* The files of this pass, each with its entry (entry_of), its identity
 * checked.  Returns 0 or a negative errno, logged. */
int ship_scan(struct ship *sh, time_t now);
/* Closes the file the entry keeps open, if any. */
void ship_drop_kept(struct ship *sh, struct ship_entry *e);

/* ship_batch.c */
int ship_batch_open(struct ship *sh);
/* Notes that the file's rows up to mark, whose text starts at start in
 * the batch, are in the batch being made. */
int ship_batch_add(struct ship *sh, struct ship_entry *entry,
                   const struct ship_mark *mark, size_t rows, size_t start);
bool ship_batch_full(const struct ship *sh);
/* Where the next file's rows start in the batch: a byte of its text
 * (remote write: a unit of its request), to name what the store skipped. */
size_t ship_batch_offset(const struct ship *sh);
/* Remote write: how the export's request goes (export_run.remote_post,
 * ctx the shipper), a batch's whole, numbered as the sender's batches. */
int ship_batch_post_request(void *ctx, struct http_message *m,
                            const char *label, char *err, size_t err_size);
/* Hands the batch over (HTTP: returns once the batch before is in). 0 or
 * a negative errno with the reason in sh->err and sh->failure (-EPROTO:
 * the store refused the target); then every cursor is back where the
 * store last acknowledged it and the sender is closed. */
int ship_batch_send(struct ship *sh);
/* Sends what is left and waits for the store's answer. */
int ship_batch_finish(struct ship *sh);
void ship_batch_close(struct ship *sh);
/* Saves the state, saying a failure once (the shipper goes on with the
 * state in memory). */
void ship_save(struct ship *sh);

/* ship_answer.c */
/* Whether the pass may send: not while the store's wait runs. */
bool ship_answer_may_send(const struct ship *sh);
/* What the pass's outcome r does: the condition, the back-off, the lines. */
void ship_answer_pass(struct ship *sh, int r);
/* A delivered batch: the sender's new totals into the state, the points
 * it skipped named by file (m: the batch's marks), the size it learned. */
void ship_answer_delivered(struct ship *sh, const struct ship_marks *m);
/* The request size into the batches, the sender and the state. */
void ship_answer_apply_cap(struct ship *sh);
/* Before a pass: a larger size after an hour of success. */
void ship_answer_try_larger(struct ship *sh);

/* ship_log.c */
void ship_log(const struct ship *sh, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ship_log_down(struct ship *sh, time_t now);
void ship_log_up(struct ship *sh, time_t now);
void ship_log_dropped(struct ship *sh);
void ship_log_samples_refused(struct ship *sh);
void ship_log_refused(struct ship *sh, time_t hold);
void ship_log_skip(struct ship *sh, const char *key,
                   const struct http_sender_skip *skip);
void ship_log_problem(struct ship *sh, struct ship_entry *e, int r,
                      const char *why);

#endif

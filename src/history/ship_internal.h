/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shipper's parts (see ship.h): the pass over the files (ship.c), the
 * batches and what their acknowledgement commits (ship_batch.c), and what
 * it says (ship_log.c).
 */
#ifndef PVECG_SHIP_INTERNAL_H
#define PVECG_SHIP_INTERNAL_H

#include "pvecg/export_files.h"
#include "pvecg/guest_directories.h"
#include "pvecg/ship.h"
#include "ship_state.h"

#include <stdint.h>

#define SHIP_ERR_SIZE 1024

/* A file's rows in a batch: where its cursor goes once the batch is in. */
struct ship_pending {
  struct ship_entry *entry;
  struct ship_mark mark;
};

struct ship_marks {
  struct ship_pending *item;
  size_t count, capacity;
  uint64_t rows;
};

struct ship {
  struct ship_options *o;
  struct ship_state state;
  struct export_files files;
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
  /* The store's health as the log tells it. */
  bool down;
  time_t down_since, down_said;
  uint64_t rows_at_down;
  /* InfluxDB's partial writes: the sender's count already added to the
   * state, the points not said yet, when they were last said. */
  size_t dropped_counted, dropped_unsaid;
  time_t dropped_said_at;
  char err[SHIP_ERR_SIZE];
};

/* ship_batch.c */
int ship_batch_open(struct ship *sh);
/* Notes that the file's rows up to mark are in the batch being made. */
int ship_batch_add(struct ship *sh, struct ship_entry *entry,
                   const struct ship_mark *mark, size_t rows);
bool ship_batch_full(const struct ship *sh);
/* Hands the batch over (HTTP: returns once the batch before is in). 0 or
 * a negative errno with the reason in sh->err; then every cursor is back
 * where the store last acknowledged it and the sender is closed. */
int ship_batch_send(struct ship *sh);
/* Sends what is left and waits for the store's answer. */
int ship_batch_finish(struct ship *sh);
void ship_batch_close(struct ship *sh);

/* ship_log.c */
void ship_log(const struct ship *sh, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ship_log_down(struct ship *sh, time_t now);
void ship_log_up(struct ship *sh, time_t now);
void ship_log_dropped(struct ship *sh);
void ship_log_problem(struct ship *sh, struct ship_entry *e, int r,
                      const char *why);

#endif

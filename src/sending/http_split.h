/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One batch of lines delivered whatever the store answers (see
 * store_answer.h), for http_sender.c: a batch it finds too large (413) is
 * sent in halves, and the size that passed is remembered; a batch it
 * cannot parse (400 naming a line, nothing written) is halved until the
 * line is found, and that line alone is skipped; a line still too large
 * alone is skipped too.  Partial writes are counted by reason.  Only a
 * refusal of the target itself or a store away ends the batch early: then
 * nothing of it counts, and the whole batch goes again later (a point sent
 * twice is one point to these stores).  A batch of which not one line
 * passes while line after line is refused is the target's fault too (a
 * wrong precision=, a wrong format): skipping every row would lose them.
 * Before saying so, the batch's last line is tried alone: a batch that
 * merely starts with bad rows goes on.
 *
 * Pure but for the try callback, which does one request with its own
 * retries while the store is away, so the halving is tested without a
 * network.
 */
#ifndef PVECG_HTTP_SPLIT_H
#define PVECG_HTTP_SPLIT_H

#include "pvecg/store_answer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Lines refused one by one before a batch of which none passed is taken
 * for the target's fault. */
#define HTTP_SPLIT_SYSTEMATIC 8

/* A line the store would not take alone. */
struct http_split_skip {
  size_t offset, len;           /* in the batch */
  enum store_verdict why;       /* STORE_TOO_LARGE or STORE_BAD_LINE */
  char words[STORE_WORDS_SIZE]; /* what the store said of it */
};

struct http_split_outcome {
  /* STORE_TAKEN: every line is settled (taken, dropped or skipped);
   * STORE_REFUSED or STORE_AWAY: the batch is not, see answer. */
  enum store_verdict verdict;
  struct store_answer answer;  /* the failure, or the latest refusal */
  struct store_answer partial; /* the latest partial write (status 0: none) */
  uint64_t requests;           /* answered, one per piece tried */
  uint64_t lines_taken;        /* in pieces taken whole or in part */
  uint64_t dropped[STORE_REASONS];
  struct http_split_skip *skip; /* malloc'ed, in batch order */
  size_t skips;
  bool cap_lowered; /* a 413 lowered *cap */
};

/* One request with its retries: the answer that settles it. */
typedef void (*http_split_try)(void *ctx, const char *body, size_t len,
                               struct store_answer *ret);

/*
 * Delivers body through try, in pieces of at most *cap bytes (0: no
 * limit known), cut between lines; a 413 lowers *cap to half the piece it
 * refused.  Returns 0 with *ret filled (free ret->skip), or -ENOMEM.
 */
int http_split_send(const char *body, size_t len, size_t *cap,
                    http_split_try try_piece, void *ctx,
                    struct http_split_outcome *ret);

/* What is still to send of a batch (bytes, or a message's units) as a
 * stack of parts, the first on top: parts go in the batch's order and the
 * stack stays as deep as the halvings, whatever the size. */
struct http_part {
  size_t at, len;
};
struct http_parts {
  struct http_part *stack;
  size_t depth, room;
};
/* Puts [at, at + len) on top, unless it is empty: 0 or -ENOMEM. */
int http_parts_push(struct http_parts *parts, size_t at, size_t len);

/* The number of lines in text (a last line without '\n' counts). */
size_t http_split_lines(const char *text, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `pvecg ship` keeps for one target: per RRD file the cursor (the
 * newest row the store acknowledged) with the rebuilt counters after it,
 * and the target's totals.  One text file per target in the state
 * directory, "<id>.state":
 *
 *   pvecg-ship-state 4
 *   target <id> <what the target is, for a person: no query, no password>
 *   stats <rows sent> <rows failed> <batches failed> <points dropped>
 *         <last success> <last failure> <lag>          (one line)
 *   answers <batch cap> <dropped: retention> <type_conflict> <limit>
 *           <unparsable> <other> <skipped: too large> <unparsable>
 *           <refused batches> <condition>              (one line)
 *   refusal <time> <status> <the store's words, or "-">
 *   samples <sent> <refused: too_old> <out_of_order> <duplicate> <other>
 *   file <layout>/<name> <dev> <inode> <last update> <cursor> <counters>
 *   file <cluster>/<layout>/<name> ...     (a file of a named cluster)
 *   ...
 *   end <number of file lines>
 *
 * <counters> is "-" or "<column>=<total>,..." for each counter that has
 * started: a whole number of at most 17 digits as its digits, any other
 * total as "x" and the 16 hex digits of the double's bits, so every total
 * reads back as the same double (and is written without printf: a total
 * with a fraction is the rule for the stall counters).  Times are epoch
 * seconds; <lag> the seconds of rows the files held that the store had not
 * acknowledged at the last pass. <batch cap> is the largest request the store
 * (or a proxy) is known to take after a 413, 0 for none met; <condition> 0
 * while the store takes the rows, 1 while it is away, 2 while it refuses the
 * target; the refusal line keeps the latest answer that was not a taking.
 * The samples line counts remote write's samples: those taken, and those
 * the store refused (a file's rows refused alone, store_refusal_of()),
 * whose rows are not sent again.  Version 3 (without the samples line),
 * version 2 (also every total in decimal, %.17g) and version 1 (also
 * without the answers and refusal lines) are read as well.
 *
 * It is saved only after the store acknowledged rows: written to a
 * temporary file, fsync'ed, the previous version kept as "<id>.state.prev"
 * (a hard link), renamed over the old one, the directory fsync'ed.  A
 * file that does not parse (truncated, edited, another version) is
 * refused with its line; ship_state_load() then falls back to the
 * previous version (the rows since it are sent again: to these stores the
 * same series and time twice are one point), and with neither refuses to
 * go on rather than start over from nothing or from now.
 */
#ifndef PVECG_SHIP_STATE_H
#define PVECG_SHIP_STATE_H

#include "pvecg/export_counter.h"
#include "pvecg/rrd_file_name.h"
#include "pvecg/store_answer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* "<layout>/<name>", "<cluster>/<layout>/<name>" for a named cluster's */
#define SHIP_KEY_SIZE (2 * RRD_FILE_NAME_MAX + 26)
#define SHIP_ID_SIZE 17 /* 16 hex digits */
#define SHIP_TARGET_SIZE 256

/* How far a file's rows went: the newest row and the counters after it. */
struct ship_mark {
  time_t t; /* 0: no row yet */
  struct export_counter counter;
};

struct rrd_direct;

struct ship_entry {
  char key[SHIP_KEY_SIZE];
  uint64_t dev, ino;  /* the file the cursor belongs to */
  time_t last_update; /* the file's, at the latest pass */
  struct ship_mark acked;
  /* Not saved: the shipper's own while it runs. */
  struct ship_mark next;      /* where the next rows start */
  struct ship_mark candidate; /* Graphite: the acked cursor to be */
  time_t candidate_at;        /* when the candidate's rows went */
  bool seen;                  /* found by the latest scan */
  int problem;                /* the error last logged of it (0: none) */
  bool checked;               /* this inode passed the layout check */
  struct timespec mtime;      /* the file's at the latest scan */
  struct timespec read_mtime; /* when all its rows were last read */
  struct rrd_direct *kept;    /* the file kept open between passes, or NULL */
};

enum ship_condition { SHIP_TAKING, SHIP_AWAY, SHIP_REFUSED };

struct ship_stats {
  uint64_t rows_sent, rows_failed, batches_failed, dropped;
  time_t last_success, last_failure;
  time_t lag;
  uint64_t batch_cap;
  uint64_t dropped_by[STORE_REASONS];
  uint64_t skipped[2]; /* points: [0] too large, [1] unparsable */
  uint64_t refused;    /* batches refused as the target's fault */
  enum ship_condition condition;
  int refusal_status; /* 0: no answer (a connection that failed) */
  time_t refusal_at;
  char refusal[STORE_WORDS_SIZE]; /* "" when none */
  /* Remote write: samples taken, and refused (a file's rows refused
   * alone, passed), by refusal. */
  uint64_t samples_sent;
  uint64_t samples_refused_by[STORE_REFUSALS];
};

struct ship_state {
  char id[SHIP_ID_SIZE];
  char target[SHIP_TARGET_SIZE];
  struct ship_stats stats;
  struct ship_entry *entry; /* sorted by key */
  size_t count, capacity;
};

/* The id of a target: 16 hex digits of a hash of everything that decides
 * what lands where (format, names, prefix, URL). */
void ship_state_id(const char *identity, char id[SHIP_ID_SIZE]);

/* The entry of key, or NULL. */
struct ship_entry *ship_state_find(struct ship_state *state, const char *key);

/* The entry of key, added (cursor 0) when missing.  NULL: no memory, or a
 * key too long. */
struct ship_entry *ship_state_add(struct ship_state *state, const char *key);

/* Removes the entries for which keep() says false. */
void ship_state_retain(struct ship_state *state,
                       bool (*keep)(struct ship_entry *, void *), void *ctx);

/* Writes the state as the file holds it.  Returns 0 or -EIO. */
int ship_state_format(const struct ship_state *state, FILE *out);

/* Reads a state file's text into *ret (freed with ship_state_free()).
 * Returns 0, -ENOMEM, or -EINVAL with "line N: what is wrong" in err. */
int ship_state_parse(const char *text, size_t len, struct ship_state *ret,
                     char *err, size_t err_size);

/* Reads one state file, whichever target's (state->id ""): 0, -EINVAL
 * for a file that is not a whole state (with why), or the negative errno
 * of a file that cannot be read (-ENOENT: there is none). */
int ship_state_read(const char *path, struct ship_state *state, char *why,
                    size_t why_size);

/*
 * Loads <dir>/<id>.state into *state (whose id and target are kept):
 * 0 when loaded; 1 when there is none yet (an empty state); 2 when it was
 * refused or missing and <id>.state.prev was loaded instead, with what was
 * wrong in err; -EINVAL when neither could be read, with the reason and
 * what to do in err; another negative errno, with a message in err, when
 * the directory or the file cannot be read at all (that is not damage).
 */
int ship_state_load(const char *dir, struct ship_state *state, char *err,
                    size_t err_size);

/* Saves the state durably (see above).  Returns 0 or a negative errno with
 * a message in err. */
int ship_state_save(const char *dir, const struct ship_state *state, char *err,
                    size_t err_size);

void ship_state_free(struct ship_state *state);

#endif

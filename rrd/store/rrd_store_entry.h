/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One file of the store and what a row does to it.
 *
 * An entry is everything the store keeps per (layout, name): the file's
 * path, what rrd_store_entry.c learnt about the file (struct entry_file:
 * checked, foreign, held because another writer updates it, its last
 * update) and what rrd_store_report.c needs to decide when a problem is
 * logged (struct entry_trouble).  Each of those two files alone changes its
 * part; the table (rrd_store_table.c) only finds entries, and rrd_store.c
 * holds the entry's lock while a row passes through:
 *
 *   rrd_store.c -> rrd_store_table.c   the entry of (layout, name)
 *               -> rrd_store_entry.c   the row applied, or why not: an event
 *               -> rrd_store_report.c  the event as outcome, message, log
 */
#ifndef PVECG_RRD_STORE_ENTRY_H
#define PVECG_RRD_STORE_ENTRY_H

#include "rrd_keyed_table.h"
#include "rrd_store_dirs.h"
#include "pvecg/rrd_access.h"
#include "pvecg/rrd_layout.h"
#include "pvecg/rrd_store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define STORE_WHY_SIZE 256

/* What the store was made with, for every row. */
struct store_config {
  char *data_dir; /* without trailing '/' ("" for the root) */
  unsigned long recheck_seconds;
  unsigned long max_ahead_seconds;
  const struct rrd_access *access;
  struct store_dirs *dirs; /* whether a file may have been replaced */
};

enum entry_state {
  ENTRY_UNCHECKED, /* not examined yet, or must be again */
  ENTRY_OK,        /* has our layout; last_update is the file's */
  ENTRY_FOREIGN,   /* another layout or not an RRD: never written */
  ENTRY_HELD,      /* another writer updates it: left alone for a while */
};

/* The file as rrd_store_entry.c knows it. */
struct entry_file {
  enum entry_state state;
  time_t last_update;
  bool have_identity; /* dev/ino of the file that was checked */
  dev_t dev;
  ino_t ino;
  struct store_dir *dir;    /* its directory, once looked up */
  uint64_t seen_in_epoch;   /* the directory's epoch when dev/ino held */
  time_t next_check;        /* FOREIGN/HELD: when to examine it again */
  char why[STORE_WHY_SIZE]; /* FOREIGN: the difference last reported */
  time_t other_last;        /* HELD: the other writer's last update */
  time_t next_verify; /* OK: when to check whether someone else wrote it */
  bool wrote;         /* a row of ours is in the file */
  bool pending;       /* a row is prepared and its answer not in yet */
  bool dirty;         /* updated since rrd_store_take_dirty() */
};

/* The file's problems as rrd_store_report.c counts them. */
struct entry_trouble {
  /* Rows that could not be written since the last one that was. */
  unsigned long problem_rows;
  bool reported; /* ...and one of them was logged */
  /* Back-off of FAILED/STALE/HELD lines; kept across recoveries so a file
   * that flaps does not log every row.  backoff is 0 until the first. */
  time_t last_problem;
  time_t next_report;
  unsigned long backoff;
  unsigned long suppressed;
};

/* When the file last had a row, for letting go of a file that has none
 * any more (a guest gone): under the table's lock. */
struct entry_use {
  atomic_uint users; /* rows between finding the entry and being done */
  time_t used_at;    /* the wall clock of its latest row */
  time_t last_t;     /* that row's time */
  time_t spacing;    /* between its latest two rows' times; 0: one so far */
};

struct entry {
  struct rrd_keyed key; /* first: the table's (layout, cluster, name) */
  char *path;           /* NULL when it would not fit in PATH_MAX */
  pthread_mutex_t lock;
  struct entry_file file;
  struct entry_trouble trouble;
  struct entry_use use;
};

/* One row on its way through the store. */
struct store_row {
  const struct store_config *config;
  struct entry *e;  /* locked */
  time_t t;         /* the row's time */
  const char *text; /* the row as librrd takes it */
  time_t now;       /* the wall clock */
};

/* What happened to a row at its file. */
enum store_event_kind {
  STORE_APPLIED,       /* the row is in the file (created first: created) */
  STORE_NOT_NEWER,     /* not newer than the file's last update */
  STORE_SAME_SECOND,   /* a row of ours for that second is in already */
  STORE_AHEAD,         /* too far ahead of this host's clock */
  STORE_FOREIGN,       /* the file is found not to be ours */
  STORE_STILL_FOREIGN, /* ...and is not examined again yet */
  STORE_HELD,          /* another writer is found to update the file */
  STORE_STILL_HELD,    /* ...and is not examined again yet */
  STORE_FAILED,        /* a step failed: failure says which */
  STORE_UNAVAILABLE,   /* the daemon could not be reached */
};

enum store_failure {
  STORE_FAIL_PATH,        /* the path does not fit in PATH_MAX */
  STORE_FAIL_DIRECTORY,   /* the layout's directory cannot be made */
  STORE_FAIL_CREATE,      /* the file cannot be created */
  STORE_FAIL_VANISHED,    /* it appeared and vanished while creating it */
  STORE_FAIL_LOOKUP,      /* it cannot be looked up */
  STORE_FAIL_LAST_UPDATE, /* its last update cannot be read */
  STORE_FAIL_WRITE,       /* the row was refused */
};

struct store_event {
  enum store_event_kind kind;
  enum store_failure failure; /* FAILED */
  bool created;               /* APPLIED: the file was made for this row */
  bool not_rrd;               /* FOREIGN: not an RRD at all */
  bool new_reason;            /* FOREIGN: why differs from the last time */
  bool ours_is_row;           /* HELD: theirs is ahead of this row, not of
                                 the last row written here */
  time_t theirs, ours;        /* HELD: their last update, and ours */
  char detail[512]; /* librrd's or the system's words, or the daemon's */
};

/* The start a new file gets, as pmxcfs gives it: local midnight of now's
 * day (a row older than that starts the file just before it). */
time_t store_start_time(time_t now);

/* Applies the row to its file, or finds why not; fills ev. */
void store_entry_write(const struct store_row *row, struct store_event *ev);

/* store_entry_write() in two halves, for rows sent in batches: everything
 * up to the update (1: the row is to be sent, ev->created says whether
 * its file was made for it; 0: done, ev says why), with the writer check
 * (whether someone else wrote the file), when due, put in check (check_size
 * bytes; "" when none) to go just before the row, or made at once when
 * check is NULL; and the daemon's answers to both (check NULL when none was
 * sent). */
int store_entry_prepare(const struct store_row *row, char *check,
                        size_t check_size, struct store_event *ev);
void store_entry_answered(const struct store_row *row,
                          const struct rrd_store_answer *check,
                          const struct rrd_store_answer *answer,
                          struct store_event *ev);

#endif

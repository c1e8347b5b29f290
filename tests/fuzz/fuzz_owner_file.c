/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rrd_owner_file_parse (rrd/owner/rrd_owner_file.c), which
 * reads pve_rrd's owners file into its table at start and after `pvecg check
 * --owners` changed it: a damaged file must never crash the writer nor
 * hand a file to a host seen colliding.  Checks, beyond memory safety:
 * another version gives -EPROTO and no owner; every record of the table
 * is whole; no owner is also marked as seen colliding; the owners written
 * again read back without a problem, as many, and write the same bytes
 * again.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "pvecg/rrd_owner.h"

#include "pvecg/rrd_file_name.h"

struct walk {
  size_t owners, marks;
  const char *file, *owner; /* the file walked, its owner */
};

/* Every record whole (a guest's layout, names the writer would accept, a
 * host without NUL, an interval or time in range), and no owner of a file
 * also marked as seen colliding over it (the records come by file). */
static int check_whole(const struct rrd_owner_record *r, void *ctx) {
  struct walk *w = ctx;
  FUZZ_CHECK(r->layout != NULL && r->layout->kind == RRD_LAYOUT_GUEST);
  FUZZ_CHECK(rrd_file_name_problem(r->name) == NULL);
  FUZZ_CHECK(r->cluster[0] == '\0' ||
             rrd_cluster_name_problem(r->cluster) == NULL);
  FUZZ_CHECK(strlen(r->host) < RRD_OWNER_HOST_SIZE && r->host[0] != '\0');
  if (r->name != w->file)
    w->owner = NULL;
  w->file = r->name;
  if (!r->collision) {
    FUZZ_CHECK(r->interval > 0 && r->interval <= 86400);
    w->owner = r->host;
    w->owners++;
  } else {
    FUZZ_CHECK(r->since >= 0);
    FUZZ_CHECK(w->owner == NULL || strcmp(w->owner, r->host) != 0);
    w->marks++;
  }
  return 0;
}

static char *text_of(struct rrd_owner *o, size_t *len) {
  char *text = NULL;
  FUZZ_CHECK(rrd_owner_file_text(o, &text, len) == 0);
  return text;
}

/* The owners written and read again: the same, and the same bytes. */
static void check_round_trip(struct rrd_owner *first, const struct walk *w) {
  size_t len, len2;
  char *text = text_of(first, &len);
  struct rrd_owner *again;
  struct rrd_owner_read read;
  FUZZ_CHECK(rrd_owner_new(NULL, &again) == 0);
  FUZZ_CHECK(rrd_owner_file_parse(text, len, again, 0, &read) == 0);
  FUZZ_CHECK(!read.cut && read.bad_lines == 0);
  FUZZ_CHECK(read.owners == w->owners && read.marks == w->marks);
  char *text2 = text_of(again, &len2);
  FUZZ_CHECK(len == len2 && memcmp(text, text2, len) == 0);
  free(text);
  free(text2);
  rrd_owner_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct rrd_owner *o;
  struct rrd_owner_read read;
  struct walk w = {0};
  FUZZ_CHECK(rrd_owner_new(NULL, &o) == 0);
  int r = rrd_owner_file_parse((const char *)data, size, o, 0, &read);
  FUZZ_CHECK(r == 0 || r == -EPROTO);
  FUZZ_CHECK(rrd_owner_each(o, check_whole, &w) == 0);
  FUZZ_CHECK(r == 0 || w.owners + w.marks == 0);
  FUZZ_CHECK(w.owners <= read.owners && w.marks <= read.marks);
  if (r == 0)
    check_round_trip(o, &w);
  rrd_owner_free(o);
  return 0;
}

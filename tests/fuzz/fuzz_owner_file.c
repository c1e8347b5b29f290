/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rrd_owner_file_parse (rrd/rrd_owner_file.c), which reads
 * pve_rrd's owners file at start and after `pvecg check --owners` changed
 * it: a damaged file must never crash the writer nor hand a file to a host
 * seen colliding.  Checks, beyond memory safety: another version gives
 * -EPROTO and no record; every record is whole (a guest's layout, names
 * the writer would accept, a host without NUL, an interval or time in
 * range); a file without problems has all its records counted by its end
 * line; the records written again read back the same, without a problem,
 * and write the same bytes again; and taken into memory by the owners'
 * rule (rrd_owner_replace), no owner is also marked as seen colliding.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "rrd_owner.h"

#include "pvecg/rrd_file_name.h"
#include "pvecg/rrd_owner_file.h"

static void check_whole(const struct rrd_owner_record *r) {
  FUZZ_CHECK(r->layout != NULL && r->layout->kind == RRD_LAYOUT_GUEST);
  FUZZ_CHECK(rrd_file_name_problem(r->name) == NULL);
  FUZZ_CHECK(r->cluster[0] == '\0' ||
             rrd_cluster_name_problem(r->cluster) == NULL);
  FUZZ_CHECK(memchr(r->host, '\0', sizeof(r->host)) != NULL);
  FUZZ_CHECK(r->host[0] != '\0');
  if (r->kind == RRD_OWNER_RECORD_OWNER)
    FUZZ_CHECK(r->interval > 0 && r->interval <= 86400);
  else
    FUZZ_CHECK(r->kind == RRD_OWNER_RECORD_COLLISION && r->since >= 0);
}

static bool same(const struct rrd_owner_record *a,
                 const struct rrd_owner_record *b) {
  return a->kind == b->kind && rrd_owner_same_file(a, b) &&
         strcmp(a->host, b->host) == 0 &&
         memcmp(&a->interval, &b->interval, sizeof(a->interval)) == 0 &&
         a->since == b->since;
}

static char *text_of(const struct rrd_owner_records *f, size_t *len) {
  char *text = NULL;
  FILE *out = open_memstream(&text, len);
  FUZZ_CHECK(out != NULL && rrd_owner_file_write(out, f->r, f->count) == 0);
  fclose(out);
  return text;
}

/* The records written and read again: the same, and the same bytes. */
static void check_round_trip(const struct rrd_owner_records *first) {
  size_t len, len2;
  char *text = text_of(first, &len);
  struct rrd_owner_records again = {0};
  FUZZ_CHECK(rrd_owner_file_parse(text, len, &again) == 0);
  FUZZ_CHECK(!again.cut && again.bad_lines == 0);
  FUZZ_CHECK(again.count == first->count);
  for (size_t i = 0; i < first->count; i++)
    FUZZ_CHECK(same(&first->r[i], &again.r[i]));
  char *text2 = text_of(&again, &len2);
  FUZZ_CHECK(len == len2 && memcmp(text, text2, len) == 0);
  free(text);
  free(text2);
  free(again.r);
}

/* Whatever the file says, no owner is also marked as seen colliding. */
static void check_rule(struct rrd_owner_records *f) {
  struct rrd_owner *o;
  FUZZ_CHECK(rrd_owner_new(&o) == 0);
  if (f->count > 1)
    qsort(f->r, f->count, sizeof(*f->r), rrd_owner_file_order);
  for (size_t i = 0, j; i < f->count; i = j) {
    for (j = i + 1; j < f->count && rrd_owner_same_file(&f->r[i], &f->r[j]);)
      j++;
    FUZZ_CHECK(rrd_owner_replace(o, &f->r[i], j - i, 0) >= 0);
  }
  struct rrd_owner_record *snap;
  size_t n;
  FUZZ_CHECK(rrd_owner_snapshot(o, false, &snap, &n) == 0);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      FUZZ_CHECK(!(snap[i].kind == RRD_OWNER_RECORD_OWNER &&
                   snap[j].kind == RRD_OWNER_RECORD_COLLISION &&
                   rrd_owner_same_file(&snap[i], &snap[j]) &&
                   strcmp(snap[i].host, snap[j].host) == 0));
  free(snap);
  rrd_owner_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct rrd_owner_records f = {0};
  int r = rrd_owner_file_parse((const char *)data, size, &f);
  FUZZ_CHECK(r == 0 || r == -EPROTO);
  if (r == -EPROTO) {
    FUZZ_CHECK(f.count == 0);
    return 0;
  }
  for (size_t i = 0; i < f.count; i++)
    check_whole(&f.r[i]);
  check_round_trip(&f);
  if (size < 65536)
    check_rule(&f);
  free(f.r);
  return 0;
}

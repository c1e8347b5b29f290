/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rrd_owner_file_parse (rrd/rrd_owner_file.c), which reads
 * pve_rrd's owners file at start and `pvecg check --owners`' requests: a
 * damaged file must never crash the writer nor hand a file to a host seen
 * colliding.  Checks, beyond memory safety: another version gives -EPROTO
 * and no record; every record passed is whole (a guest's layout, names the
 * writer would accept, a host without NUL, an interval or time in range);
 * a text without problems has all its records counted by its end line;
 * the records written again read back as the same records, without a
 * problem, and write the same bytes again; and taken back by the owners'
 * rule (rrd_owner_restore), no owner is also marked as seen colliding.
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

#define RECORDS_MAX 4096

struct records {
  struct rrd_owner_record r[RECORDS_MAX];
  size_t n, seen;
};

static struct records first, again;

static int collect(const struct rrd_owner_record *r, void *ctx) {
  struct records *c = ctx;
  c->seen++;
  if (c->n < RECORDS_MAX)
    c->r[c->n++] = *r;
  return 0;
}

static void check_whole(const struct rrd_owner_record *r) {
  FUZZ_CHECK(r->layout != NULL && r->layout->kind == RRD_LAYOUT_GUEST);
  FUZZ_CHECK(rrd_file_name_problem(r->name) == NULL);
  FUZZ_CHECK(r->cluster[0] == '\0' ||
             rrd_cluster_name_problem(r->cluster) == NULL);
  FUZZ_CHECK(memchr(r->host, '\0', sizeof(r->host)) != NULL);
  if (r->kind == RRD_OWNER_RECORD_FORGET)
    FUZZ_CHECK(r->host[0] == '\0');
  else
    FUZZ_CHECK(r->host[0] != '\0');
  if (r->kind == RRD_OWNER_RECORD_OWNER)
    FUZZ_CHECK(r->interval > 0 && r->interval <= 86400);
  if (r->kind == RRD_OWNER_RECORD_COLLISION)
    FUZZ_CHECK(r->since >= 0);
}

static bool same(const struct rrd_owner_record *a,
                 const struct rrd_owner_record *b) {
  return a->kind == b->kind && a->layout == b->layout &&
         strcmp(a->cluster, b->cluster) == 0 && strcmp(a->name, b->name) == 0 &&
         strcmp(a->host, b->host) == 0 &&
         memcmp(&a->interval, &b->interval, sizeof(a->interval)) == 0 &&
         a->since == b->since;
}

/* The records written and read again: the same, and the same bytes. */
static void check_round_trip(void) {
  char *text = NULL, *text2 = NULL;
  size_t len = 0, len2 = 0;
  FILE *f = open_memstream(&text, &len);
  FUZZ_CHECK(f != NULL && rrd_owner_file_write(f, first.r, first.n) == 0);
  fclose(f);
  struct rrd_owner_file_problems p;
  memset(&again, 0, sizeof(again));
  FUZZ_CHECK(rrd_owner_file_parse(text, len, collect, &again, &p) == 0);
  FUZZ_CHECK(!p.truncated && p.bad_lines == 0 && p.first[0] == '\0');
  FUZZ_CHECK(again.n == first.n);
  for (size_t i = 0; i < first.n; i++)
    FUZZ_CHECK(same(&first.r[i], &again.r[i]));
  f = open_memstream(&text2, &len2);
  FUZZ_CHECK(f != NULL && rrd_owner_file_write(f, again.r, again.n) == 0);
  fclose(f);
  FUZZ_CHECK(len == len2 && memcmp(text, text2, len) == 0);
  free(text);
  free(text2);
}

/* Whatever the file says, no owner is also marked as seen colliding. */
static void check_rule(void) {
  struct rrd_owner *o;
  FUZZ_CHECK(rrd_owner_new(&o) == 0);
  for (size_t i = 0; i < first.n; i++)
    rrd_owner_restore(o, &first.r[i], 0);
  struct rrd_owner_record *snap;
  size_t n;
  unsigned long long changes;
  FUZZ_CHECK(rrd_owner_snapshot(o, &snap, &n, &changes) == 0);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      FUZZ_CHECK(!(snap[i].kind == RRD_OWNER_RECORD_OWNER &&
                   snap[j].kind == RRD_OWNER_RECORD_COLLISION &&
                   snap[i].layout == snap[j].layout &&
                   strcmp(snap[i].cluster, snap[j].cluster) == 0 &&
                   strcmp(snap[i].name, snap[j].name) == 0 &&
                   strcmp(snap[i].host, snap[j].host) == 0));
  free(snap);
  rrd_owner_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct rrd_owner_file_problems p;
  memset(&first, 0, sizeof(first));
  int r = rrd_owner_file_parse((const char *)data, size, collect, &first, &p);
  FUZZ_CHECK(r == 0 || r == -EPROTO);
  FUZZ_CHECK(memchr(p.first, '\0', sizeof(p.first)) != NULL);
  if (r == -EPROTO) {
    FUZZ_CHECK(first.seen == 0 && p.first[0] != '\0');
    return 0;
  }
  FUZZ_CHECK((p.first[0] != '\0') == (p.truncated || p.bad_lines > 0));
  if (first.seen > RECORDS_MAX)
    return 0; /* more than the target keeps: checked for safety only */
  for (size_t i = 0; i < first.n; i++)
    check_whole(&first.r[i]);
  check_round_trip();
  if (size < 65536)
    check_rule();
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for rrd/file/rrd_header.c, which decides whether bytes read from
 * a file are an RRD header of the expected layout and where a range of
 * rows lies in the file.  Input: a layout's index, a range (start, end,
 * a row limit), then the header's bytes (its definitions and live head,
 * then the row pointers; zeros past the input's end).  Checks, beyond
 * memory safety: the check returns 0 or -EPROTO and writes nothing on
 * -EPROTO; a file of another size is always refused; a taken header has
 * row pointers inside their archives and archives inside the file; and
 * every row of a span is where a row-by-row oracle puts it; the reading
 * of a kept file's live head agrees with the whole check.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "fuzz_check.h"
#include "pvecg/rrd_layout.h"
#include "rrd_header.h"

#define HEAD_MAX 8192
#define PTRS_MAX (RRD_HEADER_RRA_MAX * 8)

struct input {
  const struct rrd_layout *layout;
  int64_t start, end;
  size_t max_rows;
  unsigned char head[HEAD_MAX], ptrs[PTRS_MAX];
};

static size_t take(const uint8_t **data, size_t *size, void *out, size_t n) {
  size_t k = *size < n ? *size : n;
  memset(out, 0, n);
  memcpy(out, *data, k);
  *data += k;
  *size -= k;
  return k;
}

/* Row by row: the ring position of row i of the range, or -1 when the
 * archive does not hold it. */
static long oracle_position(const struct rrd_layout *l,
                            const struct rrd_header *h, size_t rra, time_t t) {
  time_t reso = (time_t)(l->rra[rra].steps * l->step);
  time_t newest = h->last_update - h->last_update % reso;
  time_t oldest = newest - (time_t)(l->rra[rra].rows - 1) * reso;
  if (t < oldest || t > newest)
    return -1;
  long back = (long)((newest - t) / reso);
  long rows = (long)l->rra[rra].rows;
  return ((long)h->cur_row[rra] - back + rows) % rows;
}

static void check_span(const struct input *in, const struct rrd_header *h,
                       size_t rra) {
  const struct rrd_layout *l = in->layout;
  time_t reso = (time_t)(l->rra[rra].steps * l->step);
  /* the range aligned to the archive, as the export plans it */
  time_t start = (time_t)(in->start % 100000000) * reso;
  time_t end = start + (time_t)((uint64_t)in->end % 3000) * reso;
  struct rrd_header_span s;
  int r = rrd_header_span(l, h, rra, start, end, in->max_rows, &s);
  if (end <= start) {
    FUZZ_CHECK(r == -EINVAL);
    return;
  }
  FUZZ_CHECK(r == 0);
  size_t n = (size_t)((end - start) / reso);
  n = n < in->max_rows ? n : in->max_rows;
  FUZZ_CHECK(s.before + s.count + s.after == n);
  for (size_t i = 0; i < n; i++) {
    long want = oracle_position(l, h, rra, start + (time_t)(i + 1) * reso);
    if (i < s.before || i >= s.before + s.count)
      FUZZ_CHECK(want == -1);
    else
      FUZZ_CHECK(want == (long)((s.first + (i - s.before)) % l->rra[rra].rows));
  }
}

/* What a kept file's refresh reads (the live head, the row pointers):
 * 0 or -EPROTO, nothing written on -EPROTO, and where the whole check took
 * the same bytes, the same last update and row pointers. */
static void check_live(const struct input *in,
                       const struct rrd_header_plan *plan,
                       const struct rrd_header *whole) {
  struct rrd_header h, untouched;
  memset(&h, 0x33, sizeof(h));
  untouched = h;
  const unsigned char *live =
      in->head + plan->head_len - rrd_header_live_size();
  int r = rrd_header_live(in->layout, live, in->ptrs, &h);
  FUZZ_CHECK(r == 0 || r == -EPROTO);
  if (r < 0) {
    FUZZ_CHECK(whole == NULL);
    FUZZ_CHECK(memcmp(&h, &untouched, sizeof(h)) == 0);
    return;
  }
  FUZZ_CHECK(h.last_update >= 0);
  for (size_t i = 0; i < in->layout->rra_count; i++) {
    FUZZ_CHECK(h.cur_row[i] < in->layout->rra[i].rows);
    FUZZ_CHECK(whole == NULL || h.cur_row[i] == whole->cur_row[i]);
  }
  FUZZ_CHECK(whole == NULL || h.last_update == whole->last_update);
  FUZZ_CHECK(memcmp(h.rra_offset, untouched.rra_offset, sizeof(h.rra_offset)) ==
             0);
}

static void check(const struct input *in) {
  const struct rrd_layout *l = in->layout;
  struct rrd_header_plan plan;
  FUZZ_CHECK(rrd_header_plan(l, &plan) == 0);
  FUZZ_CHECK(plan.head_len <= HEAD_MAX && plan.ptr_len <= PTRS_MAX);
  struct rrd_header h, untouched;
  memset(&h, 0x5a, sizeof(h));
  untouched = h;
  FUZZ_CHECK(rrd_header_check(l, &plan, plan.file_size + 8, in->head, in->ptrs,
                              &h) == -EPROTO);
  FUZZ_CHECK(memcmp(&h, &untouched, sizeof(h)) == 0);
  int r = rrd_header_check(l, &plan, plan.file_size, in->head, in->ptrs, &h);
  FUZZ_CHECK(r == 0 || r == -EPROTO);
  check_live(in, &plan, r == 0 ? &h : NULL);
  if (r < 0) {
    FUZZ_CHECK(memcmp(&h, &untouched, sizeof(h)) == 0);
    return;
  }
  FUZZ_CHECK(h.last_update >= 0);
  for (size_t i = 0; i < l->rra_count; i++) {
    uint64_t bytes = l->rra[i].rows * l->ds_count * 8;
    FUZZ_CHECK(h.cur_row[i] < l->rra[i].rows);
    FUZZ_CHECK(h.rra_offset[i] >= plan.data_offset &&
               h.rra_offset[i] + bytes <= plan.file_size);
    check_span(in, &h, i);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct input in;
  uint8_t which = 0;
  uint16_t limit = 0;
  take(&data, &size, &which, 1);
  in.layout = rrd_layouts[which % rrd_layouts_count];
  take(&data, &size, &in.start, sizeof(in.start));
  take(&data, &size, &in.end, sizeof(in.end));
  take(&data, &size, &limit, sizeof(limit));
  in.max_rows = limit;
  struct rrd_header_plan plan;
  FUZZ_CHECK(rrd_header_plan(in.layout, &plan) == 0);
  take(&data, &size, in.head, plan.head_len);
  take(&data, &size, in.ptrs, plan.ptr_len);
  check(&in);
  return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An RRD file's header checked against its layout, and where rows lie (see
 * rrd_header.h).  The structures are librrd's own (rrd_format.h), so the
 * offsets are those of the library that writes the files on this host; a
 * file of another architecture or byte order fails the float cookie or
 * the counts and is refused, as librrd refuses it.
 */
#include "rrd_header.h"

/* rrd_format.h is librrd's description of the file; it is only offered
 * to those who ask for it by this name. */
#define RRD_EXPORT_DEPRECATED
#include <rrd.h>
#include <rrd_format.h>

#include <errno.h>
#include <math.h>
#include <string.h>

/* Far beyond any time a file holds, near enough to 0 that the span's
 * arithmetic cannot overflow. */
#define TIME_LIMIT ((time_t)1 << 53)

int rrd_header_plan(const struct rrd_layout *layout,
                    struct rrd_header_plan *ret) {
  size_t ds = layout->ds_count, rra = layout->rra_count;
  if (ds == 0 || ds > RRD_LAYOUT_DS_MAX || rra == 0 || rra > RRD_HEADER_RRA_MAX)
    return -E2BIG;
  size_t head = sizeof(stat_head_t) + ds * sizeof(ds_def_t) +
                rra * sizeof(rra_def_t) + sizeof(live_head_t);
  uint64_t ptrs =
      head + ds * sizeof(pdp_prep_t) + rra * ds * sizeof(cdp_prep_t);
  uint64_t data = ptrs + rra * sizeof(rra_ptr_t), rows = 0;
  for (size_t i = 0; i < rra; i++)
    rows += layout->rra[i].rows;
  *ret = (struct rrd_header_plan){.head_len = head,
                                  .ptr_offset = ptrs,
                                  .ptr_len = rra * sizeof(rra_ptr_t),
                                  .live_offset = head - sizeof(live_head_t),
                                  .data_offset = data,
                                  .file_size = data + rows * ds * 8};
  return 0;
}

/* A fixed-size name field: NUL-terminated inside it, and equal to want. */
static bool field_is(const char *field, size_t size, const char *want) {
  return memchr(field, '\0', size) != NULL && strcmp(field, want) == 0;
}

static bool stat_head_fits(const struct rrd_layout *layout,
                           const stat_head_t *h) {
  static const double float_cookie = FLOAT_COOKIE;
  return memcmp(h->cookie, RRD_COOKIE, sizeof(h->cookie)) == 0 &&
         (memcmp(h->version, RRD_VERSION3, sizeof(h->version)) == 0 ||
          memcmp(h->version, RRD_VERSION4, sizeof(h->version)) == 0) &&
         memcmp(&h->float_cookie, &float_cookie, sizeof(float_cookie)) == 0 &&
         h->ds_cnt == layout->ds_count && h->rra_cnt == layout->rra_count &&
         h->pdp_step == layout->step;
}

/* As rrd_words_check_info() compares a column: name, type, heartbeat,
 * min 0 (unknown for a column that may be negative), the layout's max. */
static bool ds_fits(const struct rrd_layout *layout, size_t i,
                    const ds_def_t *d) {
  const struct rrd_ds_def *want = &layout->ds[i];
  double min = d->par[DS_min_val].u_val, max = d->par[DS_max_val].u_val;
  return field_is(d->ds_nam, sizeof(d->ds_nam), want->name) &&
         field_is(d->dst, sizeof(d->dst), rrd_ds_type_name(want->type)) &&
         d->par[DS_mrhb_cnt].u_cnt == layout->heartbeat &&
         (want->negative ? isnan(min) : min == 0) &&
         rrd_layout_max_is(layout, max);
}

static bool rra_fits(const struct rrd_layout *layout, size_t i,
                     const rra_def_t *r) {
  const struct rrd_rra_def *want = &layout->rra[i];
  return field_is(r->cf_nam, sizeof(r->cf_nam), rrd_cf_name(want->cf)) &&
         r->row_cnt == want->rows && r->pdp_cnt == want->steps &&
         r->par[RRA_cdp_xff_val].u_val == layout->xff;
}

static bool definitions_fit(const struct rrd_layout *layout,
                            const unsigned char *head) {
  const unsigned char *p = head + sizeof(stat_head_t);
  for (size_t i = 0; i < layout->ds_count; i++, p += sizeof(ds_def_t)) {
    ds_def_t d;
    memcpy(&d, p, sizeof(d));
    if (!ds_fits(layout, i, &d))
      return false;
  }
  for (size_t i = 0; i < layout->rra_count; i++, p += sizeof(rra_def_t)) {
    rra_def_t r;
    memcpy(&r, p, sizeof(r));
    if (!rra_fits(layout, i, &r))
      return false;
  }
  return true;
}

/* A last update a file can hold. */
static bool live_fits(const void *bytes, time_t *last_update) {
  live_head_t live;
  memcpy(&live, bytes, sizeof(live));
  *last_update = live.last_up;
  return live.last_up >= 0 && live.last_up < TIME_LIMIT &&
         live.last_up_usec >= 0 && live.last_up_usec < 1000000;
}

/* Row pointers inside their archives, into cur_row. */
static bool ptrs_fit(const struct rrd_layout *layout, const void *ptrs,
                     unsigned long cur_row[RRD_HEADER_RRA_MAX]) {
  for (size_t i = 0; i < layout->rra_count; i++) {
    rra_ptr_t p;
    memcpy(&p, (const unsigned char *)ptrs + i * sizeof(p), sizeof(p));
    if (p.cur_row >= layout->rra[i].rows)
      return false;
    cur_row[i] = p.cur_row;
  }
  return true;
}

int rrd_header_check(const struct rrd_layout *layout,
                     const struct rrd_header_plan *plan, uint64_t file_size,
                     const void *head, const void *ptrs,
                     struct rrd_header *ret) {
  stat_head_t h;
  memcpy(&h, head, sizeof(h));
  struct rrd_header out = {0};
  if (file_size != plan->file_size || !stat_head_fits(layout, &h) ||
      !definitions_fit(layout, head) ||
      !live_fits((const unsigned char *)head + plan->head_len -
                     sizeof(live_head_t),
                 &out.last_update) ||
      !ptrs_fit(layout, ptrs, out.cur_row))
    return -EPROTO;
  uint64_t at = plan->data_offset;
  for (size_t i = 0; i < layout->rra_count; i++) {
    out.rra_offset[i] = at;
    at += layout->rra[i].rows * layout->ds_count * sizeof(rrd_value_t);
  }
  *ret = out;
  return 0;
}

int rrd_header_live(const struct rrd_layout *layout, const void *live,
                    const void *ptrs, struct rrd_header *header) {
  time_t last;
  unsigned long cur_row[RRD_HEADER_RRA_MAX];
  if (layout->rra_count > RRD_HEADER_RRA_MAX || !live_fits(live, &last) ||
      !ptrs_fit(layout, ptrs, cur_row))
    return -EPROTO;
  header->last_update = last;
  memcpy(header->cur_row, cur_row, layout->rra_count * sizeof(cur_row[0]));
  return 0;
}

size_t rrd_header_live_size(void) { return sizeof(live_head_t); }

/* How many of the n rows ending at first, first + reso, ... lie before
 * lo (all of them aligned to reso). */
static size_t rows_before(time_t first, time_t reso, size_t n, time_t lo) {
  if (first >= lo)
    return 0;
  time_t k = (lo - first) / reso;
  return (size_t)k < n ? (size_t)k : n;
}

int rrd_header_span(const struct rrd_layout *layout,
                    const struct rrd_header *header, size_t rra, time_t start,
                    time_t end, size_t max_rows, struct rrd_header_span *ret) {
  if (rra >= layout->rra_count || rra >= RRD_HEADER_RRA_MAX)
    return -EINVAL;
  const struct rrd_rra_def *def = &layout->rra[rra];
  time_t reso = (time_t)(def->steps * layout->step);
  if (reso <= 0 || start >= end || start <= -TIME_LIMIT || end >= TIME_LIMIT ||
      start % reso != 0 || end % reso != 0 || header->last_update < 0)
    return -EINVAL;
  /* librrd's fetch: the newest row ends at the last update's step, the
   * oldest rows - 1 steps before it; rows outside are unknown. */
  time_t newest = header->last_update - header->last_update % reso;
  time_t oldest = newest - (time_t)(def->rows - 1) * reso;
  size_t n = (size_t)((end - start) / reso);
  if (n > max_rows)
    n = max_rows;
  time_t first = start + reso;
  struct rrd_header_span s = {.before = rows_before(first, reso, n, oldest)};
  time_t last = first + (time_t)(n - 1) * reso;
  if (n > s.before && last > newest)
    s.after = (size_t)((last - newest) / reso) < n - s.before
                  ? (size_t)((last - newest) / reso)
                  : n - s.before;
  s.count = n - s.before - s.after;
  if (s.count > 0) {
    time_t t = first + (time_t)s.before * reso;
    unsigned long back = (unsigned long)((newest - t) / reso);
    s.first = (header->cur_row[rra] + def->rows - back) % def->rows;
  }
  *ret = s;
  return 0;
}

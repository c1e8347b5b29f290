/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An RRD file's header as librrd lays it out on this host, checked against
 * the layout the file must have, and where a range of an archive's rows
 * lies in the file: pure arithmetic over bytes already read, so the unit
 * tests and the fuzzer reach every case without files.  rrd_direct.c does
 * the reading.
 *
 * The file is: the static head, the layout's data sources and archives,
 * the live head (last update), each data source's and each archive's
 * preparation areas (not needed to read rows), one row pointer per archive,
 * then each archive's rows, oldest archive first, ds_count doubles a row.
 * Only the versions whose structures are the ones rrd_format.h describes
 * (0003, 0004) are taken; anything else is -EPROTO.
 */
#ifndef PVECG_RRD_HEADER_H
#define PVECG_RRD_HEADER_H

#include "pvecg/rrd_layout.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* pve2's layouts have 10 archives, the 9.0 ones 8. */
#define RRD_HEADER_RRA_MAX 16

/* Where the parts of a file of the layout lie, from the layout alone. */
struct rrd_header_plan {
  size_t head_len;      /* bytes from 0 up to the end of the live head */
  uint64_t ptr_offset;  /* the archives' row pointers */
  size_t ptr_len;       /* rra_count of them */
  uint64_t live_offset; /* the live head: the last update */
  uint64_t data_offset; /* the first archive's first row */
  uint64_t file_size;   /* the whole file */
};

/* What a checked header says. */
struct rrd_header {
  time_t last_update;
  unsigned long cur_row[RRD_HEADER_RRA_MAX]; /* each archive's newest row */
  uint64_t rra_offset[RRD_HEADER_RRA_MAX];   /* each archive's row 0 */
};

/* Offsets of a file of the layout.  -E2BIG for a layout too wide for
 * RRD_HEADER_RRA_MAX or RRD_LAYOUT_DS_MAX. */
int rrd_header_plan(const struct rrd_layout *layout,
                    struct rrd_header_plan *ret);

/*
 * Checks the header read from a file of plan->file_size bytes: head
 * (plan->head_len bytes from offset 0) and ptrs (plan->ptr_len bytes from
 * plan->ptr_offset).  Everything must be the layout's: cookie, version,
 * float cookie, counts, step, every data source (name, type, heartbeat,
 * min, max) and archive (CF, steps, rows, xff), a last update and row
 * pointers that can be.  Returns 0 with *ret filled, or -EPROTO.
 */
int rrd_header_check(const struct rrd_layout *layout,
                     const struct rrd_header_plan *plan, uint64_t file_size,
                     const void *head, const void *ptrs,
                     struct rrd_header *ret);

/*
 * What an update changes, read again from a file whose header passed
 * rrd_header_check() (*header): the live head (plan's last
 * sizeof(live_head_t) bytes of the head, `live`) and the row pointers
 * (ptrs).  Checked as rrd_header_check() checks them; the definitions are
 * not looked at.  Returns 0 with header's last update and row pointers
 * replaced, or -EPROTO with *header untouched.
 */
int rrd_header_live(const struct rrd_layout *layout, const void *live,
                    const void *ptrs, struct rrd_header *header);

/* The size of the live head: the bytes `live` points to above. */
size_t rrd_header_live_size(void);

/* A run of an archive's rows as a fetch returns them: `before` unknown rows
 * (older than the archive holds), `count` rows from ring position `first`
 * on (wrapping at the archive's end), `after` unknown rows (newer). */
struct rrd_header_span {
  size_t before, count, after;
  unsigned long first;
};

/*
 * The rows ending at start + step, ..., end of archive rra (step being its
 * resolution; start and end multiples of it), at most max_rows of them,
 * oldest first, as librrd's fetch places them.  Returns 0, or -EINVAL for
 * an unaligned or empty range or an archive the layout does not have.
 */
int rrd_header_span(const struct rrd_layout *layout,
                    const struct rrd_header *header, size_t rra, time_t start,
                    time_t end, size_t max_rows, struct rrd_header_span *ret);

#endif

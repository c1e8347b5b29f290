/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guests' rows of one interval, kept while the sampler reads and sent
 * when every guest is read: collectd's dispatch costs about three times as
 * much when its calls are spread between file reads (docs/performance.md).
 *
 * What is kept between the reads is as small as it can be, since every
 * byte written there competes with the kernel's reads for the cache: each
 * guest's row in columns (144 bytes at pve-vm-9.0's 17), and its whole
 * sample (616 bytes and the name) only in runs that send more than the row.
 * Copying the whole sample of every guest made the reads about 1 us per
 * guest dearer (docs/performance.md).
 */
#ifndef PVECG_GUEST_BATCH_H
#define PVECG_GUEST_BATCH_H

#include "pvecg/guest.h"
#include "pvecg/guest_config.h"
#include "pvecg/guest_row.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct batched_row {
  uint32_t vmid;
  uint32_t type;   /* enum guest_type */
  double values[]; /* the map's width columns */
};

struct batched_sample {
  struct guest_sample sample;
  char name[GUEST_CONFIG_NAME_SIZE]; /* sample.name points into sampler
                                      * state that a rescan may move */
};

struct guest_batch {
  const struct guest_row_map *map;
  bool whole; /* this run keeps the whole samples */
  size_t len;
  unsigned char *rows; /* len rows of row_size bytes */
  size_t row_size, cap;
  struct batched_sample *samples; /* in whole runs, row i's */
  size_t samples_cap;
};

/* An empty batch of rows on map's columns; map must outlive it. */
void guest_batch_init(struct guest_batch *batch,
                      const struct guest_row_map *map);
void guest_batch_free(struct guest_batch *batch);

/* Empties the batch for a run; whole: keep each guest's whole sample. */
void guest_batch_start(struct guest_batch *batch, bool whole);

/* Keeps s's row (and in a whole run its sample and name).  Returns false,
 * keeping nothing of s, when there is no memory. */
bool guest_batch_add(struct guest_batch *batch, const struct guest_sample *s);

const struct batched_row *guest_batch_row(const struct guest_batch *batch,
                                          size_t i);

/* Row i's whole sample, its name pointing into the batch; NULL unless the
 * run keeps whole samples. */
const struct guest_sample *guest_batch_sample(struct guest_batch *batch,
                                              size_t i);

#endif

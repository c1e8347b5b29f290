/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pvecg/guest_batch.h"
#include "pvecg/grow.h"

#include <stdlib.h>
#include <string.h>

void guest_batch_init(struct guest_batch *batch,
                      const struct guest_row_map *map) {
  memset(batch, 0, sizeof(*batch));
  batch->map = map;
  batch->row_size = sizeof(struct batched_row) + map->width * sizeof(double);
}

void guest_batch_free(struct guest_batch *batch) {
  free(batch->rows);
  free(batch->samples);
  memset(batch, 0, sizeof(*batch));
}

void guest_batch_start(struct guest_batch *batch, bool whole) {
  batch->whole = whole;
  batch->len = 0;
}

/* The arrays' first capacity: a small node's guests without a move. */
#define FIRST_CAPACITY 64

static bool add_sample(struct guest_batch *batch, size_t i,
                       const struct guest_sample *s) {
  struct batched_sample *samples =
      grow_array(batch->samples, i + 1, &batch->samples_cap, sizeof(*samples),
                 FIRST_CAPACITY);
  if (!samples)
    return false;
  batch->samples = samples;
  samples[i].sample = *s;
  strncpy(samples[i].name, s->name ? s->name : "", sizeof(samples[i].name));
  samples[i].name[sizeof(samples[i].name) - 1] = '\0';
  return true;
}

bool guest_batch_add(struct guest_batch *batch, const struct guest_sample *s) {
  size_t i = batch->len;
  unsigned char *rows = grow_array(batch->rows, i + 1, &batch->cap,
                                   batch->row_size, FIRST_CAPACITY);
  if (!rows)
    return false;
  batch->rows = rows;
  if (batch->whole && !add_sample(batch, i, s))
    return false;
  struct batched_row *r = (struct batched_row *)(rows + i * batch->row_size);
  r->vmid = s->vmid;
  r->type = (uint32_t)s->type;
  guest_row_fill(batch->map, s, r->values);
  batch->len++;
  return true;
}

const struct batched_row *guest_batch_row(const struct guest_batch *batch,
                                          size_t i) {
  return (const struct batched_row *)(batch->rows + i * batch->row_size);
}

const struct guest_sample *guest_batch_sample(struct guest_batch *batch,
                                              size_t i) {
  if (!batch->whole)
    return NULL;
  struct batched_sample *kept = &batch->samples[i];
  kept->sample.name = kept->name; /* the array may have moved since */
  return &kept->sample;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `pvecg sample` shows of one run of the sampler: per guest its VMID,
 * type, name, memhost, the some/full avg10 of cpu, io and memory pressure,
 * and swap; as an aligned table for people or one JSON object for scripts.
 *
 * The sampler's samples live only during its visit callback, so the view
 * keeps copies (names included).
 */
#ifndef PVECG_SAMPLE_VIEW_H
#define PVECG_SAMPLE_VIEW_H

#include "pvecg/guest.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct sample_guest {
  uint32_t vmid;
  enum guest_type type;
  char *name; /* NULL when unknown */
  bool memhost_valid;
  uint64_t memhost; /* bytes: usage minus page cache */
  bool some_valid[PSI_RESOURCE_COUNT], full_valid[PSI_RESOURCE_COUNT];
  double some[PSI_RESOURCE_COUNT], full[PSI_RESOURCE_COUNT]; /* avg10, % */
  bool swap_valid;
  uint64_t swap; /* bytes */
};

struct sample_view {
  time_t time;      /* when the run started, epoch seconds */
  uint64_t took_us; /* how long the run took */
  struct sample_guest *guest;
  size_t count, capacity;
};

/* Copies what the view shows of s.  Returns 0 or -ENOMEM. */
int sample_view_add(struct sample_view *view, const struct guest_sample *s);

/* Orders the guests by type, then VMID (a run that re-lists the guests
 * may visit them out of order). */
void sample_view_sort(struct sample_view *view);

/* Forgets the guests (keeps the array for the next run). */
void sample_view_clear(struct sample_view *view);
void sample_view_free(struct sample_view *view);

/*
 * The table: a header line, one line per guest with unknown values as
 * "-", memhost and swap in binary units ("1.5 GiB"), pressure with two
 * decimals as the kernel prints it, and a last line saying how many
 * guests were sampled and how long it took.
 */
void sample_view_table(const struct sample_view *view, FILE *out);

/* One line of JSON: {"time":..,"took_us":..,"guests":[{"vmid":..,
 * "type":..,"name":..,"memhost":..,"pressurecpusome":..,...,"swap":..}]}
 * with bytes exact and unknown values as null. */
void sample_view_json(const struct sample_view *view, FILE *out);

/* bytes in binary units with one decimal ("512 B", "1.0 KiB", "3.2 GiB"). */
void sample_format_bytes(uint64_t bytes, char *buf, size_t size);

#endif

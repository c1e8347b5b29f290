/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One remote write request as gathered (export_remote.h): its series'
 * labels and samples in growing arrays, and where each file's rows start
 * among the samples (a unit).  Handed to the HTTP sender whole
 * (http_sender_post_whole()), which owns it then and encodes any run of
 * units as a request of its own: a store that refuses some samples of a
 * request (Prometheus rolls the whole request back) is asked again with
 * halves, so that only the file whose rows it refuses is skipped.
 */
#ifndef PVECG_REMOTE_REQUEST_H
#define PVECG_REMOTE_REQUEST_H

#include "remote_write.h"

#include "pvecg/http_sender.h"

#include <stddef.h>

struct remote_request_series {
  size_t label_at, label_count, sample_at, sample_count;
};

struct remote_request {
  char *text; /* labels' names and values, NUL-ended */
  size_t text_len, text_cap;
  size_t *label; /* offsets into text: name, value, name, value... */
  size_t label_len, label_cap;
  struct remote_write_sample *sample;
  size_t sample_len, sample_cap;
  struct remote_request_series *series;
  size_t series_len, series_cap;
  size_t *unit; /* the sample each unit starts at; unit[0] is 0 */
  size_t unit_len, unit_cap;
};

/* An empty request (NULL: out of memory). */
struct remote_request *remote_request_new(void);

/* Empties it, keeping its memory. */
void remote_request_clear(struct remote_request *q);

/* A unit starts at the next sample.  0 or -ENOMEM. */
int remote_request_unit(struct remote_request *q);

/* The number remote_request_unit() gives the unit it starts next. */
size_t remote_request_next_unit(const struct remote_request *q);

/* The request as a message the sender owns: its units, their encoding,
 * its freeing. */
struct http_message remote_request_message(struct remote_request *q);

/* Units [from, to) as a snappy body of the caller's to free, with the
 * samples in it.  0 or -ENOMEM. */
int remote_request_encode(void *q, size_t from, size_t to, char **body,
                          size_t *len, size_t *samples);

void remote_request_free(void *q);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file's history as Prometheus remote write requests: the series and
 * samples the OpenMetrics export writes (export_openmetrics.h: the same
 * names, id and cluster labels, counters as rebuilt, pve_guest_info), in
 * requests of at most about `max` bytes of protobuf before snappy, each
 * posted whole through the caller's post (export_run: the HTTP sender's
 * http_sender_post_whole()).  A series
 * longer than a request goes on in the next one, its samples still in
 * time order; a label of empty value is left out, as Prometheus reads it.
 */
#ifndef PVECG_EXPORT_REMOTE_H
#define PVECG_EXPORT_REMOTE_H

#include "export_openmetrics.h"

#include "pvecg/http_sender.h"

#include <stddef.h>

struct export_remote;

/* Posts one request, a message post owns from then on (its units: the
 * files' rows, see remote_request.h), with a label that names it in a
 * message.  Returns 0 or an error with the reason in err. */
typedef int (*export_remote_post)(void *ctx, struct http_message *m,
                                  const char *label, char *err,
                                  size_t err_size);

/* Returns NULL when out of memory. */
struct export_remote *export_remote_new(export_remote_post post, void *ctx,
                                        size_t max);

/* Adds the gathered rows of src (and, info not NULL, its guest's
 * pve_guest_info first), posting every request that fills up.  Returns
 * the samples added in *samples and 0, or post's error or -ENOMEM with
 * the reason in err. */
int export_remote_file(struct export_remote *rw, const struct export_series *s,
                       const struct export_source *src,
                       const struct export_guest_info *info, size_t *samples,
                       char *err, size_t err_size);

/* The bytes of protobuf gathered for the next request, at most. */
size_t export_remote_size(const struct export_remote *rw);

/* The unit the next file's rows start in the request gathered. */
size_t export_remote_unit(const struct export_remote *rw);

/* Forgets what is gathered, posting nothing. */
void export_remote_discard(struct export_remote *rw);

/* Posts what is gathered.  0 or an error as export_remote_file(). */
int export_remote_flush(struct export_remote *rw, char *err, size_t err_size);

void export_remote_free(struct export_remote *rw);

#endif

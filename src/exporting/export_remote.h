/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file's history as Prometheus remote write requests: the series and
 * samples the OpenMetrics export writes (export_openmetrics.h: the same
 * names, id and cluster labels, counters as rebuilt, pve_guest_info), in
 * requests of at most about `max` bytes of protobuf before snappy, each
 * posted whole to the HTTP sender (http_sender_post_whole()).  A series
 * longer than a request goes on in the next one, its samples still in
 * time order; a label of empty value is left out, as Prometheus reads it.
 */
#ifndef PVECG_EXPORT_REMOTE_H
#define PVECG_EXPORT_REMOTE_H

#include "export_openmetrics.h"
#include "pvecg/http_sender.h"

#include <stddef.h>

struct export_remote;

/* Returns NULL when out of memory. */
struct export_remote *export_remote_new(struct http_sender *http, size_t max);

/* Adds the gathered rows of src (and, info not NULL, its guest's
 * pve_guest_info), posting every request that fills up.  Returns the
 * samples added in *samples and 0, or a sender's error (http_sender.h)
 * or -ENOMEM with the reason in err. */
int export_remote_file(struct export_remote *rw, const struct export_series *s,
                       const struct export_source *src,
                       const struct export_guest_info *info, size_t *samples,
                       char *err, size_t err_size);

/* Posts what is gathered.  0 or an error as export_remote_file(). */
int export_remote_flush(struct export_remote *rw, char *err, size_t err_size);

void export_remote_free(struct export_remote *rw);

#endif

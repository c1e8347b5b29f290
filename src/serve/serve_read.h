/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading files while the server answers on several threads.  librrd's
 * error state and its rrdcached client are process-wide, and the newest
 * rows come through one daemon connection of the server's own, so every
 * read of a file happens between serve_read_begin() and serve_read_end();
 * writing an answer's text, most of its time, happens outside.
 */
#ifndef PVECG_SERVE_READ_H
#define PVECG_SERVE_READ_H

#include "pvecg/rrd_last.h"
#include "pvecg/serve.h"

void serve_read_begin(void);
void serve_read_end(void);

/* The newest row of path (see rrd_last.h), through the server's reader
 * for config's daemon, made at the first call.  Only between
 * serve_read_begin() and serve_read_end(). */
int serve_read_last(const struct serve_config *config, const char *path,
                    struct rrd_last_row *ret, char *err, size_t err_size);

#endif

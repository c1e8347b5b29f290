/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Message helpers shared by the librrd and rrdcached file operations:
 * they report into caller buffers that may be absent, and quote librrd's
 * per-thread error text.  Internal to rrd/.
 */
#ifndef PVECG_RRD_TEXT_H
#define PVECG_RRD_TEXT_H

#include <stddef.h>

/* vsnprintf into buf, unless buf is NULL or size is 0. */
__attribute__((format(printf, 3, 4))) void rrd_text_set(char *buf, size_t size,
                                                        const char *fmt, ...);

/* librrd's error text of this thread, or fallback when it set none. */
const char *rrd_text_librrd_error(const char *fallback);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A string into a buffer of a given size, cut to fit and always ended:
 * what snprintf(dst, size, "%s", src) does, for a fraction of its cost
 * (no format to parse, no stream set up).  The shipper names every file
 * several times per pass, and that formatting was a sixth of its work.
 */
#ifndef PVECG_TEXT_COPY_H
#define PVECG_TEXT_COPY_H

#include <stddef.h>

/* Copies src into dst[size], at most size - 1 bytes of it, and ends it;
 * returns the bytes copied (nothing when size is 0). */
size_t text_copy(char *dst, size_t size, const char *src);

/* text_copy of src after the len bytes already in dst; returns the new
 * length (len itself when dst is already full). */
size_t text_append(char *dst, size_t size, size_t len, const char *src);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text made in a buffer without printf: a string cut to fit and always
 * ended (what snprintf(dst, size, "%s", src) does, for a fraction of its
 * cost: no format to parse, no stream set up), and a number's digits.
 * The shipper names every file several times per pass and writes every
 * row's values and every file's state line: printf was a sixth of it.
 */
#ifndef PVECG_TEXT_COPY_H
#define PVECG_TEXT_COPY_H

#include <stddef.h>
#include <stdint.h>

/* The most digits text_u64 writes (2^64 - 1 has 20). */
#define TEXT_U64_DIGITS 20

/* Copies src into dst[size], at most size - 1 bytes of it, and ends it;
 * returns the bytes copied (nothing when size is 0). */
size_t text_copy(char *dst, size_t size, const char *src);

/* text_copy of src after the len bytes already in dst; returns the new
 * length (len itself when dst is already full). */
size_t text_append(char *dst, size_t size, size_t len, const char *src);

/* v's decimal digits at dst, most significant first, not ended; returns
 * how many (at most TEXT_U64_DIGITS). */
size_t text_u64(char *dst, uint64_t v);

#endif

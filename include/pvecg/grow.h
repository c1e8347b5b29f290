/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one way an array grows: room for `need` items, the capacity
 * doubling from `first`, so that adding n items costs O(n) moves.  Every
 * list the libraries build (files, guests, clusters, batches, skips...)
 * grows through it.
 */
#ifndef PVECG_GROW_H
#define PVECG_GROW_H

#include <stddef.h>

/* Returns items, moved as realloc() moves it, with room for at least need
 * items of size bytes (*capacity updated); NULL without memory or when
 * the size overflows, items then untouched and still the caller's. */
void *grow_array(void *items, size_t need, size_t *capacity, size_t size,
                 size_t first);

#endif

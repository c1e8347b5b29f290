/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file kept open read through a shared read-only mapping: the page
 * cache's own pages, so a pass over a thousand files kept open reads
 * what their writers changed without a system call per read (the
 * shipper's passes spent a third of their CPU in small preads).
 *
 * A mapped file truncated under it (a copy put over it in place) raises
 * SIGBUS on a read of a page past its new end (within its last page the
 * kernel gives zeros: the callers' checks of the header see those).  The first
 * mapping installs a handler for it that turns such a fault inside
 * rrd_map_read() into -EPROTO (the file is no longer what was mapped); a SIGBUS
 * anywhere else goes to the handler there was before, or ends the process as it
 * would have.
 */
#ifndef PVECG_RRD_MAP_H
#define PVECG_RRD_MAP_H

#include <stddef.h>
#include <stdint.h>

struct rrd_map {
  const unsigned char *bytes; /* NULL: not mapped */
  size_t len;
};

/* Maps the first len bytes of fd.  Returns 0 or a negative errno (the
 * caller then reads with pread, as before). */
int rrd_map_open(struct rrd_map *map, int fd, size_t len);

/* Exactly len bytes at offset into buf.  Returns 0, or -EPROTO: past the
 * mapping's end, or past the file's end since a truncation. */
int rrd_map_read(const struct rrd_map *map, void *buf, size_t len,
                 uint64_t offset);

void rrd_map_close(struct rrd_map *map);

#endif

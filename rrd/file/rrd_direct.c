/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An RRD file read with pread (see rrd_direct.h): the header's
 * definitions checked by rrd_header.c at the open and every few minutes,
 * and in between only what an update moves (the last update and the row
 * pointers), then the rows of one archive, in one read or two where the
 * ring wraps.  Every pass reads the last update and the row pointers from
 * the file: nothing about them is carried from an earlier pass but the
 * bytes to compare with.
 */
#include "pvecg/rrd_direct.h"

#include "pvecg/monotonic.h"
#include "rrd_header.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HEAD_MAX 8192 /* pve-node-9.0's definitions take 3.8 KiB */
#define TRIES 8       /* reads of a file an update keeps changing */
#define LIVE_SIZE 16  /* the live head: last update, its microseconds */

struct rrd_direct {
  int fd;
  uint64_t size; /* at the last whole check */
  const struct rrd_layout *layout;
  struct rrd_header_plan plan;
  struct rrd_header header;
  double checked_at; /* monotonic s of the last whole check */
  /* As read: what an update changes in the header. */
  unsigned char live[LIVE_SIZE];
  unsigned char ptrs[RRD_HEADER_RRA_MAX * sizeof(uint64_t)];
};

/* Exactly len bytes at offset: a short file is not the layout's. */
static int read_at(const struct rrd_direct *f, void *buf, size_t len,
                   uint64_t offset) {
  int fd = f->fd;
  size_t done = 0;
  while (done < len) {
    ssize_t n =
        pread(fd, (char *)buf + done, len - done, (off_t)(offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -EIO;
    if (n == 0)
      return -EPROTO;
    done += (size_t)n;
  }
  return 0;
}

static int read_header(struct rrd_direct *f, uint64_t size) {
  unsigned char head[HEAD_MAX];
  if (f->plan.head_len > sizeof(head) || f->plan.head_len < LIVE_SIZE ||
      f->plan.ptr_len > sizeof(f->ptrs) || rrd_header_live_size() != LIVE_SIZE)
    return -EPROTO;
  int r = read_at(f, head, f->plan.head_len, 0);
  if (r == 0)
    r = read_at(f, f->ptrs, f->plan.ptr_len, f->plan.ptr_offset);
  if (r == 0)
    r = rrd_header_check(f->layout, &f->plan, size, head, f->ptrs, &f->header);
  memcpy(f->live, head + f->plan.head_len - LIVE_SIZE, LIVE_SIZE);
  if (r == 0) {
    f->checked_at = monotonic_seconds();
    f->size = size;
  }
  return r;
}

/* The live head and the row pointers, as an update leaves them: two
 * small reads, not one of the preparation areas between them (12 KiB for
 * pve-vm-9.0), whose copy out of the page cache is most of the cost once
 * thousands of files' headers no longer fit in the CPU's caches. */
static int read_moving(const struct rrd_direct *f,
                       unsigned char live[LIVE_SIZE], unsigned char *ptrs) {
  const struct rrd_header_plan *p = &f->plan;
  int r = read_at(f, live, LIVE_SIZE, p->live_offset);
  return r == 0 ? read_at(f, ptrs, p->ptr_len, p->ptr_offset) : r;
}

static int read_live(struct rrd_direct *f) {
  int r = read_moving(f, f->live, f->ptrs);
  if (r == 0)
    r = rrd_header_live(f->layout, f->live, f->ptrs, &f->header);
  return r;
}

/* A regular file, not followed through a symbolic link (as the layout
 * check has it), and not a FIFO that would block the open.  Without
 * touching its access time where the owner (or root) reads it: a file
 * written every minute would otherwise have its inode written after each
 * read. */
static int open_file(const char *path, int *fd, uint64_t *size) {
  int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  *fd = open(path, flags | O_NOATIME);
  if (*fd < 0 && errno == EPERM)
    *fd = open(path, flags);
  if (*fd < 0)
    return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -EIO;
  struct stat st;
  if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
    close(*fd);
    *fd = -1;
    return -EPROTO;
  }
  *size = (uint64_t)st.st_size;
  return 0;
}

int rrd_direct_open(const char *path, const struct rrd_layout *layout,
                    struct rrd_direct **ret) {
  struct rrd_direct *f = calloc(1, sizeof(*f));
  if (f == NULL)
    return -ENOMEM;
  f->layout = layout;
  uint64_t size = 0;
  int r = rrd_header_plan(layout, &f->plan) < 0 ? -EPROTO : 0;
  if (r == 0)
    r = open_file(path, &f->fd, &size);
  else
    f->fd = -1;
  if (r == 0)
    r = read_header(f, size);
  if (r < 0) {
    rrd_direct_close(f);
    return r;
  }
  *ret = f;
  return 0;
}

static int refresh(struct rrd_direct *file, unsigned recheck_seconds) {
  if (monotonic_seconds() - file->checked_at < (double)recheck_seconds)
    return read_live(file);
  struct stat st;
  if (fstat(file->fd, &st) != 0 || st.st_size < 0)
    return -EIO;
  return read_header(file, (uint64_t)st.st_size);
}

int rrd_direct_refresh(struct rrd_direct *file, unsigned recheck_seconds,
                       bool *moved) {
  unsigned char live[LIVE_SIZE], ptrs[sizeof(file->ptrs)];
  memcpy(live, file->live, sizeof(live));
  memcpy(ptrs, file->ptrs, file->plan.ptr_len);
  int r = refresh(file, recheck_seconds);
  if (moved != NULL)
    *moved = memcmp(live, file->live, sizeof(live)) != 0 ||
             memcmp(ptrs, file->ptrs, file->plan.ptr_len) != 0;
  return r;
}

time_t rrd_direct_last_update(const struct rrd_direct *file) {
  return file->header.last_update;
}

/* The layout's archive of cf at resolution seconds, or -EINVAL. */
static int archive_of(const struct rrd_layout *layout, enum rrd_cf cf,
                      unsigned long resolution) {
  for (size_t i = 0; i < layout->rra_count; i++)
    if (layout->rra[i].cf == cf &&
        layout->rra[i].steps * layout->step == resolution)
      return (int)i;
  return -EINVAL;
}

/* The span's rows into values: unknown before and after, the ring's rows
 * in one read, or two where it wraps.  A span wholly outside the archive
 * (asked for from a plan made before the file grew) is all unknown. */
static int read_span(const struct rrd_direct *f, size_t rra,
                     const struct rrd_header_span *s, double *values) {
  size_t width = f->layout->ds_count, row_bytes = width * sizeof(double);
  unsigned long rows = f->layout->rra[rra].rows;
  for (size_t i = 0; i < s->before * width; i++)
    values[i] = NAN;
  double *at = values + s->before * width;
  for (size_t i = 0; i < s->after * width; i++)
    at[s->count * width + i] = NAN;
  if (s->count == 0)
    return 0;
  size_t first = s->count < rows - s->first ? s->count : rows - s->first;
  uint64_t base = f->header.rra_offset[rra];
  int r = read_at(f, at, first * row_bytes, base + s->first * row_bytes);
  if (r == 0 && first < s->count)
    r = read_at(f, at + first * width, (s->count - first) * row_bytes, base);
  return r;
}

/* Whether an update changed the last update or a row pointer since they
 * were read.  Both are compared: an update writes them one after the
 * other, so a header read in the middle of one can have the new last
 * update with the old pointers, which only the pointers tell once it is
 * done. */
static int header_moved(const struct rrd_direct *f, bool *moved) {
  unsigned char live[LIVE_SIZE], ptrs[sizeof(f->ptrs)];
  int r = read_moving(f, live, ptrs);
  *moved = r == 0 && (memcmp(live, f->live, LIVE_SIZE) != 0 ||
                      memcmp(ptrs, f->ptrs, f->plan.ptr_len) != 0);
  return r;
}

/* Whether another process is updating the file.  librrd's update holds a
 * write lock on the whole file (fcntl) from before its first change to
 * after its last, and for each row moves the archive's pointer and writes
 * the row before the last update: a header read while the writer is
 * paused between the two pairs the new pointer with the old time, every
 * row a step off, and reads the same after the rows, so comparing the
 * header cannot tell.  F_GETLK asks without taking a lock: a read lock
 * held here would make the writer's F_SETLK fail and its update be lost.
 * Where locks cannot be asked about, the header's comparison is all. */
static bool being_updated(const struct rrd_direct *f) {
  struct flock lock = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
  return fcntl(f->fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
}

/* Before try i (from 1) of a read an update was under: 1, 2, 4, 8, 16,
 * 16 ... ms, about a tenth of a second in all, for the update to end. */
static void pause_before(int i) {
  long ms = i < 5 ? 1L << (i - 1) : 16;
  struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

static int fetch_once(struct rrd_direct *f, size_t rra, time_t start,
                      time_t end, size_t max_rows, struct rrd_series *ret) {
  struct rrd_header_span s;
  int r = rrd_header_span(f->layout, &f->header, rra, start, end, max_rows, &s);
  if (r < 0)
    return r;
  size_t n = s.before + s.count + s.after, width = f->layout->ds_count;
  double *values = n > 0 ? malloc(n * width * sizeof(double)) : NULL;
  if (n > 0 && values == NULL)
    return -ENOMEM;
  if (n > 0 && (r = read_span(f, rra, &s, values)) < 0) {
    free(values);
    return r;
  }
  unsigned long reso = f->layout->rra[rra].steps * f->layout->step;
  *ret = (struct rrd_series){.start = start,
                             .step = reso,
                             .ds_count = width,
                             .row_count = n,
                             .values = values,
                             .values_malloced = true};
  return 0;
}

/* The rows are taken when no other process is updating the file just
 * after they were read, and the header read again after that is the one
 * they were read by.  An update that wrote anything after the header
 * was read shows: by its lock while it goes on, by the header once it is done
 * (its last write is a last update, later than any before).  One that
 * wrote nothing after it left a header and rows that agree. */
int rrd_direct_fetch(struct rrd_direct *file, enum rrd_cf cf,
                     unsigned long resolution, time_t start, time_t end,
                     size_t max_rows, struct rrd_series *ret) {
  int rra = archive_of(file->layout, cf, resolution);
  if (rra < 0)
    return rra;
  for (int i = 0; i < TRIES; i++) {
    if (i > 0) {
      pause_before(i);
      int r = read_live(file);
      if (r < 0)
        return r == -EPROTO ? -EIO : r;
    }
    struct rrd_series s;
    bool moved = false;
    int r = fetch_once(file, (size_t)rra, start, end, max_rows, &s);
    if (r < 0)
      return r == -EPROTO ? -EIO : r;
    bool busy = being_updated(file);
    r = header_moved(file, &moved);
    if (r == 0 && !moved && !busy) {
      *ret = s;
      return 0;
    }
    rrd_series_free(&s); /* read under an update, or the header went bad */
    if (r < 0)
      return r == -EPROTO ? -EIO : r;
  }
  return -EAGAIN;
}

void rrd_direct_close(struct rrd_direct *file) {
  if (file == NULL)
    return;
  if (file->fd >= 0)
    close(file->fd);
  free(file);
}

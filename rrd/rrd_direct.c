/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An RRD file read with pread (see rrd_direct.h): the header's two parts
 * that matter (definitions with the last update; the row pointers),
 * checked by rrd_header.c, then the rows of one archive, in one read or
 * two where the ring wraps.  The preparation areas between them, most of
 * a header, are never read.  A file kept open (refreshed) is read through
 * a shared mapping from its first refresh on (rrd_map.c): the same bytes,
 * without a system call per read.
 */
#include "pvecg/rrd_direct.h"

#include "pvecg/monotonic.h"
#include "rrd_header.h"
#include "rrd_map.h"

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
  uint64_t size;      /* at the last whole check */
  struct rrd_map map; /* from the first refresh on, where it maps */
  bool map_tried;
  const struct rrd_layout *layout;
  struct rrd_header_plan plan;
  struct rrd_header header;
  double checked_at; /* monotonic s of the last whole check */
  /* The last update of the last header rows were taken by (no update was
   * under way then, see rrd_direct_fetch); -1 when the header was read
   * from the file since. */
  time_t settled_at;
  /* The row pointers were worked out from that header's, not read: a torn
   * pair differs from them, where the rings never realign. */
  bool worked_out;
  bool never_realign;
  /* As read: what an update changes in the header. */
  unsigned char live[LIVE_SIZE];
  unsigned char ptrs[RRD_HEADER_RRA_MAX * sizeof(uint64_t)];
};

/* Exactly len bytes at offset: a short file is not the layout's. */
static int read_at(const struct rrd_direct *f, void *buf, size_t len,
                   uint64_t offset) {
  if (f->map.bytes != NULL)
    return rrd_map_read(&f->map, buf, len, offset);
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
  f->settled_at = -1;
  f->worked_out = false;
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

/* A file left this long without an update is taken as never updated
 * again; see rings_never_realign. */
#define REALIGN_NEVER_SECONDS (10ULL * 365 * 86400)

/* Whether one update that writes a row always moves some archive's
 * pointer, unless it follows a gap of REALIGN_NEVER_SECONDS or more.
 * librrd moves each pointer by the rows the update's span crossed in that
 * archive, modulo its rows; all come back only where every archive that
 * crossed a row crossed at least all of its rows.  An archive of one step
 * per row crosses whenever any does, so the gap is at least its ring; an
 * archive whose resolution that reaches crosses too, and lengthens the
 * gap to its own ring, and so on: 10.9 years for PVE 9's layouts (and
 * pvecg's), 1.3 years for pve2's, whose reads ask about the lock. */
static bool rings_never_realign(const struct rrd_layout *layout) {
  uint64_t gap = 0;
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < layout->rra_count; i++) {
      const struct rrd_rra_def *def = &layout->rra[i];
      uint64_t reso = (uint64_t)def->steps * layout->step;
      uint64_t ring = (uint64_t)(def->rows > 0 ? def->rows - 1 : 0) * reso;
      if ((def->steps == 1 || reso <= gap) && ring > gap) {
        gap = ring;
        grew = true;
      }
    }
  }
  return gap >= REALIGN_NEVER_SECONDS;
}

/* The live head and the row pointers only: what an update writes.  With
 * guess, the pointers are worked out from the last update (an update
 * moves them by the rows it writes) instead of read: the reading after the
 * rows compares them with the file's and reads them where they differ. */
static int read_live(struct rrd_direct *f, bool guess) {
  int r = read_at(f, f->live, LIVE_SIZE, f->plan.head_len - LIVE_SIZE);
  if (r == 0 && guess &&
      rrd_header_guess(f->layout, f->live, &f->header, f->ptrs) == 0) {
    f->worked_out = f->settled_at >= 0 && f->never_realign;
    return 0;
  }
  f->settled_at = -1;
  f->worked_out = false;
  if (r == 0)
    r = read_at(f, f->ptrs, f->plan.ptr_len, f->plan.ptr_offset);
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
  f->never_realign = rings_never_realign(layout);
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

int rrd_direct_refresh(struct rrd_direct *file, unsigned recheck_seconds) {
  if (!file->map_tried && file->size <= SIZE_MAX) {
    file->map_tried = true; /* not mapped: pread, as a file read once */
    rrd_map_open(&file->map, file->fd, (size_t)file->size);
  }
  if (monotonic_seconds() - file->checked_at < (double)recheck_seconds)
    return read_live(file, true);
  struct stat st;
  if (fstat(file->fd, &st) != 0 || st.st_size < 0)
    return -EIO;
  return read_header(file, (uint64_t)st.st_size);
}

int rrd_direct_stat(const struct rrd_direct *file, struct stat *st) {
  return fstat(file->fd, st) == 0 ? 0 : -errno;
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
  int r = read_at(f, live, LIVE_SIZE, f->plan.head_len - LIVE_SIZE);
  if (r == 0)
    r = read_at(f, ptrs, f->plan.ptr_len, f->plan.ptr_offset);
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
 * after they were read (or the pointers they were read by were worked out
 * from a header rows were taken by), and the header read again after that
 * is the one they were read by.  An update that wrote anything after the header
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
      int r = read_live(file, false);
      if (r < 0)
        return r == -EPROTO ? -EIO : r;
    }
    struct rrd_series s;
    bool moved = false;
    int r = fetch_once(file, (size_t)rra, start, end, max_rows, &s);
    if (r < 0)
      return r == -EPROTO ? -EIO : r;
    /* Worked-out pointers need no question: an update under way has
     * moved a pointer before its row, and it differs from them. */
    bool busy = !file->worked_out && being_updated(file);
    r = header_moved(file, &moved);
    if (r == 0 && !moved && !busy) {
      file->settled_at = file->header.last_update;
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
  rrd_map_close(&file->map);
  if (file->fd >= 0)
    close(file->fd);
  free(file);
}

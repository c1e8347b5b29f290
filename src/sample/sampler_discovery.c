/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which guests there are: each run lists qemu.slice/ and lxc/ (one
 * getdents per directory, skipped when cgroupfs says the children did not
 * change), which also gives inode numbers, so a name whose inode changed is
 * a re-created cgroup and is reopened.  New directories are collected as
 * pending, opened, and merged into the array sorted by (type, vmid); guests
 * no longer listed are dropped.
 */
#include "sampler_internal.h"

#include "pvecg/vmid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int compare_guest(const void *a, const void *b) {
  uint64_t ka = ((const struct guest *)a)->key;
  uint64_t kb = ((const struct guest *)b)->key;
  return ka < kb ? -1 : ka > kb;
}

static struct guest *find_guest(struct sampler *s, uint64_t key) {
  if (s->count == 0)
    return NULL; /* bsearch must not be given a NULL array */
  struct guest probe = {.key = key};
  return bsearch(&probe, s->guests, s->count, sizeof(*s->guests),
                 compare_guest);
}

static int add_pending(struct sampler *s, uint64_t key, ino_t ino) {
  if (s->pending_count == s->pending_cap) {
    size_t cap = s->pending_cap ? s->pending_cap * 2 : 64;
    struct pending *p = realloc(s->pending, cap * sizeof(*p));
    if (!p)
      return -ENOMEM;
    s->pending = p;
    s->pending_cap = cap;
  }
  s->pending[s->pending_count++] = (struct pending){.key = key, .ino = ino};
  return 0;
}

/* The guest's VMID when name is a guest directory of that type. */
static int parse_entry(enum guest_type type, const struct dirent *de,
                       uint32_t *vmid) {
  /* Only real directories: a symlink is never followed out of the root. */
  if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
    return -ENOTDIR;
  return type == GUEST_QEMU ? vmid_parse_scope_name(de->d_name, vmid)
                            : vmid_parse_string(de->d_name, vmid);
}

static bool is_directory_at(DIR *dir, const char *name) {
  struct stat st;
  return fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR(st.st_mode);
}

static int note_entry(struct sampler *s, enum guest_type type, DIR *dir,
                      const struct dirent *de) {
  uint32_t vmid;
  if (parse_entry(type, de, &vmid) < 0)
    return 0;
  if (de->d_type == DT_UNKNOWN && !is_directory_at(dir, de->d_name))
    return 0;
  uint64_t key = guest_key(type, vmid);
  struct guest *g = find_guest(s, key);
  if (g && g->ino == de->d_ino) {
    g->listed = s->scan_gen;
    return 0;
  }
  /* New, or re-created under the same name (the old one is left unlisted
   * and dropped). */
  if (s->config.accept && !s->config.accept(type, vmid, s->config.accept_ctx))
    return 0;
  return add_pending(s, key, de->d_ino);
}

/* Lists one type directory.  A missing directory just means no guests of
 * that type are running. */
static int list_type_dir(struct sampler *s, enum guest_type type) {
  char path[PATH_MAX];
  int n = snprintf(path, sizeof(path), "%s/%s", s->config.cgroup_root,
                   sampler_type_dirs[type]);
  if (n < 0 || (size_t)n >= sizeof(path))
    return -ENAMETOOLONG;
  DIR *dir = opendir(path);
  if (!dir)
    return errno == ENOENT ? 0 : -errno;
  int err = 0;
  struct dirent *de;
  errno = 0;
  while (err == 0 && (de = readdir(dir)) != NULL)
    err = note_entry(s, type, dir, de);
  if (err == 0 && errno != 0)
    err = -errno;
  closedir(dir);
  return err;
}

/* Drops guests that are gone or were not listed by the last scan. */
static void drop_stale(struct sampler *s) {
  size_t kept = 0;
  for (size_t i = 0; i < s->count; i++) {
    struct guest *g = &s->guests[i];
    if (g->gone || g->listed != s->scan_gen) {
      sampler_guest_close_files(g);
      s->kept_count -= g->kept;
      continue;
    }
    s->guests[kept++] = *g;
  }
  s->count = kept;
}

static int ensure_capacity(struct sampler *s, size_t want) {
  if (want <= s->cap)
    return 0;
  size_t cap = s->cap ? s->cap : 64;
  while (cap < want)
    cap *= 2;
  struct guest *g = realloc(s->guests, cap * sizeof(*g));
  if (!g)
    return -ENOMEM;
  s->guests = g;
  s->cap = cap;
  return 0;
}

/* Opens the pending guests and merges them into the sorted array. */
static int add_pending_guests(struct sampler *s, double now) {
  int err = ensure_capacity(s, s->count + s->pending_count);
  if (err < 0)
    return err;
  size_t before = s->count;
  for (size_t i = 0; i < s->pending_count; i++) {
    struct guest *g = &s->guests[s->count];
    /* A directory that vanished between listing and opening is skipped. */
    if (sampler_guest_init(s, g, s->pending[i].key, now) == 0)
      s->count++;
  }
  s->pending_count = 0;
  if (s->count != before)
    qsort(s->guests, s->count, sizeof(*s->guests), compare_guest);
  return 0;
}

/* Marks the guests of a type directory that was not listed as still
 * there: unchanged, or unreadable this time (they are kept until it can be
 * listed again). */
static void keep_type(struct sampler *s, enum guest_type type) {
  for (size_t i = 0; i < s->count; i++)
    if (sampler_key_type(s->guests[i].key) == type)
      s->guests[i].listed = s->scan_gen;
}

/* Lists one type directory unless cgroupfs says its children are the same
 * as at the last listing. */
static int scan_type(struct sampler *s, enum guest_type type) {
  char dir[PATH_MAX];
  int n = snprintf(dir, sizeof(dir), "%s/%s", s->config.cgroup_root,
                   sampler_type_dirs[type]);
  if (n < 0 || (size_t)n >= sizeof(dir))
    return -ENAMETOOLONG;
  uint64_t token;
  if (!dir_change_check(&s->changes[type], dir, &token)) {
    s->listings_skipped++;
    keep_type(s, type);
    return 0;
  }
  s->listings++;
  size_t pending_before = s->pending_count;
  int err = list_type_dir(s, type);
  if (err < 0) {
    s->pending_count = pending_before;
    keep_type(s, type);
    return err;
  }
  dir_change_listed(&s->changes[type], token);
  return 0;
}

int sampler_scan(struct sampler *s, double now) {
  s->scan_gen++;
  int listed = 0, first_err = 0;
  for (int t = 0; t < GUEST_TYPE_COUNT; t++) {
    if (!s->config.types[t])
      continue;
    int err = scan_type(s, (enum guest_type)t);
    if (err < 0)
      first_err = first_err ? first_err : err;
    else
      listed++;
  }
  drop_stale(s);
  int err = add_pending_guests(s, now);
  if (err < 0)
    return err;
  return listed == 0 && first_err ? first_err : 0;
}

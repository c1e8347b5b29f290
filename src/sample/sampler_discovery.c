/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which guests there are: each run lists qemu.slice/ and lxc/ (one
 * getdents per directory, skipped when cgroupfs says the children did not
 * change), which also gives inode numbers, so a name whose inode changed is
 * a re-created cgroup and is reopened.  New directories are collected as
 * pending, opened, and merged into the array sorted by (type, vmid); guests
 * no longer listed are dropped.  New guests keep their files open while
 * the descriptor budget allows.  A guest whose configuration is on another
 * node (an incoming migration, a leftover scope) is passed over as if it
 * were not listed, and picked up when its configuration arrives.
 */
#include "sampler_discovery.h"

#include "pvecg/grow.h"
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

static struct guest *find_guest(struct sampler_discovery *d, uint64_t key) {
  if (d->count == 0)
    return NULL; /* bsearch must not be given a NULL array */
  struct guest probe = {.key = key};
  return bsearch(&probe, d->guests, d->count, sizeof(*d->guests),
                 compare_guest);
}

static int add_pending(struct sampler_discovery *d, uint64_t key, ino_t ino) {
  struct sampler_pending *p =
      grow_array(d->pending, d->pending_count + 1, &d->pending_cap,
                 sizeof(*d->pending), 64);
  if (p == NULL)
    return -ENOMEM;
  d->pending = p;
  d->pending[d->pending_count++] =
      (struct sampler_pending){.key = key, .ino = ino};
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

static int note_entry(struct sampler_discovery *d, enum guest_type type,
                      DIR *dir, const struct dirent *de) {
  uint32_t vmid;
  if (parse_entry(type, de, &vmid) < 0 ||
      !local_configs_hold(&d->local, type, vmid))
    return 0;
  if (de->d_type == DT_UNKNOWN && !is_directory_at(dir, de->d_name))
    return 0;
  uint64_t key = guest_key(type, vmid);
  struct guest *g = find_guest(d, key);
  if (g && g->ino == de->d_ino) {
    g->listed = d->scan_gen;
    return 0;
  }
  /* New, or re-created under the same name (the old one is left unlisted
   * and dropped). */
  if (d->config->accept &&
      !d->config->accept(type, vmid, d->config->accept_ctx))
    return 0;
  return add_pending(d, key, de->d_ino);
}

/* Lists one type directory.  A missing directory just means no guests of
 * that type are running. */
static int list_type_dir(struct sampler_discovery *d, enum guest_type type) {
  char path[PATH_MAX];
  int n = snprintf(path, sizeof(path), "%s/%s", d->config->cgroup_root,
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
    err = note_entry(d, type, dir, de);
  if (err == 0 && errno != 0)
    err = -errno;
  closedir(dir);
  return err;
}

/* Drops guests that are gone or were not listed by the last scan. */
static void drop_stale(struct sampler_discovery *d) {
  size_t kept = 0;
  for (size_t i = 0; i < d->count; i++) {
    struct guest *g = &d->guests[i];
    if (g->gone || g->listed != d->scan_gen) {
      sampler_guest_close_files(g);
      d->kept_count -= g->kept;
      continue;
    }
    d->guests[kept++] = *g;
  }
  d->count = kept;
}

static int ensure_capacity(struct sampler_discovery *d, size_t want) {
  if (want <= d->cap)
    return 0;
  size_t cap = d->cap ? d->cap : 64;
  while (cap < want)
    cap *= 2;
  struct guest *g = realloc(d->guests, cap * sizeof(*g));
  if (!g)
    return -ENOMEM;
  d->guests = g;
  d->cap = cap;
  return 0;
}

/* Whether one more guest's files fit the descriptor budget.  With KSM
 * statistics a VM keeps its QEMU process's ksm_stat open too; containers
 * are counted the same, which only errs on the safe side. */
static bool budget_allows(const struct sampler_discovery *d) {
  size_t budget = d->config->fd_budget;
  size_t per_guest =
      (size_t)__builtin_popcount(d->dirs.wanted) + (d->config->ksm ? 1 : 0);
  return budget == 0 || (d->kept_count + 1) * per_guest <= budget;
}

/* Opens a new guest; beyond the budget its files are closed again and
 * opened for each sample instead. */
static int add_guest(struct sampler_discovery *d, struct guest *g, uint64_t key,
                     double now) {
  int err = sampler_guest_open(&d->dirs, g, key, now);
  if (err < 0)
    return err;
  g->listed = d->scan_gen;
  g->kept = budget_allows(d);
  if (g->kept)
    d->kept_count++;
  else
    sampler_guest_close_files(g);
  return 0;
}

/* Opens the pending guests and merges them into the sorted array. */
static int add_pending_guests(struct sampler_discovery *d, double now) {
  int err = ensure_capacity(d, d->count + d->pending_count);
  if (err < 0)
    return err;
  size_t before = d->count;
  for (size_t i = 0; i < d->pending_count; i++) {
    struct guest *g = &d->guests[d->count];
    /* A directory that vanished between listing and opening is skipped. */
    if (add_guest(d, g, d->pending[i].key, now) == 0)
      d->count++;
  }
  d->pending_count = 0;
  if (d->count != before)
    qsort(d->guests, d->count, sizeof(*d->guests), compare_guest);
  return 0;
}

/* Marks the guests of a type directory that was not listed as still
 * there: unchanged, or unreadable this time (they are kept until it can be
 * listed again). */
static void keep_type(struct sampler_discovery *d, enum guest_type type) {
  for (size_t i = 0; i < d->count; i++)
    if (sampler_key_type(d->guests[i].key) == type)
      d->guests[i].listed = d->scan_gen;
}

/* Lists one type directory unless cgroupfs says its children are the same
 * as at the last listing. */
static int scan_type(struct sampler_discovery *d, enum guest_type type) {
  char dir[PATH_MAX];
  int n = snprintf(dir, sizeof(dir), "%s/%s", d->config->cgroup_root,
                   sampler_type_dirs[type]);
  if (n < 0 || (size_t)n >= sizeof(dir))
    return -ENAMETOOLONG;
  uint64_t token;
  if (!dir_change_check(&d->changes[type], dir, &token)) {
    d->listings_skipped++;
    keep_type(d, type);
    return 0;
  }
  d->listings++;
  size_t pending_before = d->pending_count;
  int err = list_type_dir(d, type);
  if (err < 0) {
    d->pending_count = pending_before;
    keep_type(d, type);
    return err;
  }
  dir_change_listed(&d->changes[type], token);
  return 0;
}

int sampler_discovery_scan(struct sampler_discovery *d, double now) {
  d->scan_gen++;
  if (local_configs_refresh(&d->local))
    sampler_discovery_forget(d);
  int listed = 0, first_err = 0;
  for (int t = 0; t < GUEST_TYPE_COUNT; t++) {
    if (!d->config->types[t])
      continue;
    int err = scan_type(d, (enum guest_type)t);
    if (err < 0)
      first_err = first_err ? first_err : err;
    else
      listed++;
  }
  drop_stale(d);
  int err = add_pending_guests(d, now);
  if (err < 0)
    return err;
  return listed == 0 && first_err ? first_err : 0;
}

void sampler_discovery_init(struct sampler_discovery *d,
                            const struct sampler_config *config,
                            unsigned wanted) {
  *d = (struct sampler_discovery){
      .config = config,
      .dirs = {.cgroup_root = config->cgroup_root,
               .memory_root = config->memory_root,
               .wanted = wanted},
  };
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    dir_change_init(&d->changes[t]);
  local_configs_init(&d->local, config->pve_config_dir);
}

void sampler_discovery_free(struct sampler_discovery *d) {
  for (size_t i = 0; i < d->count; i++)
    sampler_guest_close_files(&d->guests[i]);
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    dir_change_close(&d->changes[t]);
  local_configs_free(&d->local);
  free(d->guests);
  free(d->pending);
}

void sampler_discovery_forget(struct sampler_discovery *d) {
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    dir_change_forget(&d->changes[t]);
}

size_t sampler_discovery_fd_count(const struct sampler_discovery *d) {
  size_t n = 0;
  for (size_t i = 0; i < d->count; i++)
    for (int f = 0; f < GUEST_FILE_COUNT; f++)
      n += d->guests[i].fd[f] >= 0;
  for (size_t i = 0; i < d->count; i++)
    n += d->guests[i].ksm_fd >= 0;
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    n += d->changes[t].fd >= 0;
  return n;
}

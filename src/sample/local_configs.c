/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guests whose configuration this node holds (see local_configs.h).
 */
#include "local_configs.h"

#include "pvecg/grow.h"
#include "pvecg/pmxcfs_version.h"
#include "pvecg/vmid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* pmxcfs writes "vmlist" third, within the first hundred bytes. */
#define VERSION_HEAD 512

static const char *const config_dirs[GUEST_TYPE_COUNT] = {
    [GUEST_QEMU] = "qemu-server",
    [GUEST_LXC] = "lxc",
};

struct key_list {
  uint64_t *keys;
  size_t count, cap;
};

void local_configs_init(struct local_configs *lc, const char *dir) {
  *lc = (struct local_configs){.dir = dir, .scope = SAMPLER_SCOPE_ALL};
}

void local_configs_free(struct local_configs *lc) {
  free(lc->keys);
  lc->keys = NULL;
  lc->count = lc->cap = 0;
}

/* .version's guest list counter: 0, -ENOENT without the file (no pmxcfs
 * tree), another negative errno when it cannot be read or understood. */
static int read_counter(const char *dir, uint64_t *ret) {
  char path[PATH_MAX], head[VERSION_HEAD];
  if (snprintf(path, sizeof(path), "%s/.version", dir) >= (int)sizeof(path))
    return -ENAMETOOLONG;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return -errno;
  ssize_t n = pread(fd, head, sizeof(head), 0);
  int err = n < 0 ? -errno : 0;
  close(fd);
  if (err < 0)
    return err;
  return pmxcfs_version_vmlist(head, (size_t)n, ret) < 0 ? -EBADMSG : 0;
}

static int add_key(struct key_list *l, uint64_t key) {
  uint64_t *k = grow_array(l->keys, l->count + 1, &l->cap, sizeof(*k), 64);
  if (k == NULL)
    return -ENOMEM;
  l->keys = k;
  l->keys[l->count++] = key;
  return 0;
}

/* "<vmid>.conf" of a guest of that type, into l. */
static int list_type(const char *dir, enum guest_type type,
                     struct key_list *l) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof(path), "%s/%s", dir, config_dirs[type]) >=
      (int)sizeof(path))
    return -ENAMETOOLONG;
  DIR *d = opendir(path);
  if (d == NULL)
    return errno == ENOENT ? 0 : -errno; /* no guests of that type */
  int err = 0;
  struct dirent *de;
  errno = 0;
  while (err == 0 && (de = readdir(d)) != NULL) {
    size_t len = strlen(de->d_name);
    uint32_t vmid;
    if (len > 5 && strcmp(de->d_name + len - 5, ".conf") == 0 &&
        vmid_parse(de->d_name, len - 5, &vmid) == 0)
      err = add_key(l, guest_key(type, vmid));
  }
  if (err == 0 && errno != 0)
    err = -errno;
  closedir(d);
  return err;
}

static int compare_key(const void *a, const void *b) {
  uint64_t ka = *(const uint64_t *)a, kb = *(const uint64_t *)b;
  return ka < kb ? -1 : ka > kb;
}

/* Takes a new listing; returns whether it differs from the one before. */
static bool take(struct local_configs *lc, struct key_list *l) {
  qsort(l->keys, l->count, sizeof(*l->keys), compare_key);
  bool changed = lc->scope != SAMPLER_SCOPE_THIS_NODE ||
                 l->count != lc->count ||
                 (l->count > 0 &&
                  memcmp(l->keys, lc->keys, l->count * sizeof(*l->keys)) != 0);
  free(lc->keys);
  lc->keys = l->keys;
  lc->count = l->count;
  lc->cap = l->cap;
  lc->scope = SAMPLER_SCOPE_THIS_NODE;
  return changed;
}

bool local_configs_refresh(struct local_configs *lc) {
  if (lc->dir[0] == '\0')
    return false;
  uint64_t vmlist = 0;
  int r = read_counter(lc->dir, &vmlist);
  if (r == -ENOENT) {
    bool changed = lc->scope != SAMPLER_SCOPE_NO_TREE;
    lc->scope = SAMPLER_SCOPE_NO_TREE;
    lc->listed = false;
    return changed;
  }
  if (r == 0 && lc->listed && vmlist == lc->vmlist)
    return false;
  struct key_list l = {0};
  int err = 0;
  for (int t = 0; t < GUEST_TYPE_COUNT && err == 0; t++)
    err = list_type(lc->dir, (enum guest_type)t, &l);
  if (err < 0) { /* the listing before stands; tried again next run */
    free(l.keys);
    lc->listed = false;
    return false;
  }
  /* An unreadable counter lists every run: never a stale answer. */
  lc->listed = r == 0;
  lc->vmlist = vmlist;
  return take(lc, &l);
}

bool local_configs_hold(const struct local_configs *lc, enum guest_type type,
                        uint32_t vmid) {
  if (lc->scope != SAMPLER_SCOPE_THIS_NODE)
    return true;
  uint64_t key = guest_key(type, vmid);
  return lc->count > 0 && bsearch(&key, lc->keys, lc->count, sizeof(*lc->keys),
                                  compare_key) != NULL;
}

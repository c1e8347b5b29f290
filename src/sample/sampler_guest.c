/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A guest's cgroup directory and its descriptors (see sampler_guest.h):
 * the path from the key, opening the wanted files relative to the
 * directory opened O_PATH (the memory controller's from the v1 hierarchy
 * on hybrid hosts), looking again for the missing ones, and closing them.
 */
#include "sampler_guest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const sampler_type_dirs[GUEST_TYPE_COUNT] = {
    [GUEST_QEMU] = "qemu.slice",
    [GUEST_LXC] = "lxc",
};

/* <root>/qemu.slice/<vmid>.scope or <root>/lxc/<vmid>. */
int sampler_guest_dir_path(const char *root, uint64_t key, char *buf,
                           size_t size) {
  enum guest_type type = sampler_key_type(key);
  int n = snprintf(buf, size, "%s/%s/%u%s", root, sampler_type_dirs[type],
                   (unsigned)sampler_key_vmid(key),
                   type == GUEST_QEMU ? ".scope" : "");
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int open_dir(const char *path) {
  int fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

void sampler_guest_close_files(struct guest *g) {
  for (int i = 0; i < GUEST_FILE_COUNT; i++) {
    if (g->fd[i] >= 0)
      close(g->fd[i]);
    g->fd[i] = -1;
  }
  if (g->ksm_fd >= 0)
    close(g->ksm_fd);
  g->ksm_fd = -1;
}

/* Opens the files of mask that are not open yet, relative to dirfd. */
static void open_files(struct guest *g, int dirfd, unsigned mask) {
  for (int i = 0; i < GUEST_FILE_COUNT; i++) {
    if (!(mask & (1u << i)) || g->fd[i] >= 0)
      continue;
    const char *name = guest_file_name((enum guest_file)i, g->memory_version);
    /* O_NONBLOCK: a FIFO in the file's place must not make open() wait
     * for a writer (no effect on kernfs or regular files). */
    g->fd[i] =
        openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (g->fd[i] >= 0)
      g->missing &= ~(1u << i);
    else
      g->missing |= 1u << i;
  }
}

/* The files of the memory controller: on hybrid hosts they are in the v1
 * hierarchy. */
#define MEMORY_FILES                                                           \
  (1u << GUEST_FILE_MEMORY_USAGE | 1u << GUEST_FILE_MEMORY_STAT |              \
   1u << GUEST_FILE_MEMORY_EVENTS | 1u << GUEST_FILE_MEMORY_SWAP)

/* On hybrid hosts the memory controller lives in the v1 hierarchy, in a
 * directory of the same relative path. */
static void open_memory_v1(const struct guest_dirs *dirs, struct guest *g) {
  char path[PATH_MAX];
  if (dirs->memory_root[0] == '\0' ||
      sampler_guest_dir_path(dirs->memory_root, g->key, path, sizeof(path)) < 0)
    return;
  int dirfd = open_dir(path);
  if (dirfd < 0)
    return;
  g->memory_version = CGROUP_MEMORY_V1;
  /* Only the wanted ones: memory.oom_control is ExtraStats', and opening
   * it regardless held a descriptor per guest that nothing read. */
  open_files(g, dirfd, MEMORY_FILES & g->missing);
  close(dirfd);
}

/* (Re)opens whatever of the guest's files is not open.  Returns the
 * directory's inode through ino, or a negative errno when the guest's
 * cgroup2 directory itself cannot be opened. */
static int open_missing(const struct guest_dirs *dirs, struct guest *g,
                        ino_t *ino) {
  char path[PATH_MAX];
  int err =
      sampler_guest_dir_path(dirs->cgroup_root, g->key, path, sizeof(path));
  if (err < 0)
    return err;
  int dirfd = open_dir(path);
  if (dirfd < 0)
    return dirfd;
  struct stat st;
  if (fstat(dirfd, &st) < 0) {
    err = -errno;
    close(dirfd);
    return err;
  }
  *ino = st.st_ino;
  unsigned want = g->missing;
  if (g->memory_version == CGROUP_MEMORY_V2)
    open_files(g, dirfd, want);
  else
    open_files(g, dirfd, want & ~MEMORY_FILES);
  close(dirfd);
  /* No memory.current in cgroup2: try the v1 memory hierarchy. */
  if (g->memory_version == CGROUP_MEMORY_V2 && (g->missing & MEMORY_FILES) &&
      g->fd[GUEST_FILE_MEMORY_USAGE] < 0 && g->fd[GUEST_FILE_MEMORY_STAT] < 0)
    open_memory_v1(dirs, g);
  else if (g->memory_version == CGROUP_MEMORY_V1 && (want & MEMORY_FILES))
    open_memory_v1(dirs, g);
  return 0;
}

int sampler_guest_open(const struct guest_dirs *dirs, struct guest *g,
                       uint64_t key, double now) {
  memset(g, 0, sizeof(*g));
  g->key = key;
  for (int i = 0; i < GUEST_FILE_COUNT; i++)
    g->fd[i] = -1;
  g->ksm_fd = -1;
  g->memory_version = CGROUP_MEMORY_V2;
  g->missing = dirs->wanted;
  g->retry_wait = SAMPLER_MISSING_RETRY_SECONDS;
  g->retry_at = now + g->retry_wait;
  guest_settings_init(&g->settings);
  int err = open_missing(dirs, g, &g->ino);
  if (err < 0)
    sampler_guest_close_files(g);
  return err;
}

/* A guest beyond the descriptor budget has its files opened for each
 * sample (and closed after it), like a naive reader. */
static int open_unkept(const struct guest_dirs *dirs, struct guest *g) {
  ino_t ino;
  g->missing = dirs->wanted;
  g->memory_version = CGROUP_MEMORY_V2;
  if (open_missing(dirs, g, &ino) < 0 || ino != g->ino) {
    sampler_guest_close_files(g);
    return -ENODEV;
  }
  return 0;
}

int sampler_guest_ready(const struct guest_dirs *dirs, struct guest *g,
                        double now) {
  if (!g->kept)
    return open_unkept(dirs, g);
  if (!g->missing || now < g->retry_at)
    return 0;
  ino_t ino;
  if (open_missing(dirs, g, &ino) < 0 || ino != g->ino)
    return -ENODEV;
  if (g->missing && g->retry_wait < SAMPLER_MISSING_RETRY_MAX_SECONDS)
    g->retry_wait *= 2;
  g->retry_at = now + g->retry_wait;
  return 0;
}

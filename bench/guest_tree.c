/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Real-cgroup and fixture guest trees for the benchmark (see guest_tree.h).
 *
 * Real trees go below the cgroup2 mount found in /proc/self/mountinfo (and
 * its v1 memory twin when cgroup2 has no memory controller, as on hybrid
 * hosts), never below an existing guest directory: the private root
 * pvecg-bench-<pid> keeps the host's own qemu.slice out of every figure.
 */
#include "guest_tree.h"

#include "pvecg/cgroup_roots.h"
#include "fixture_files.h"
#include "interrupt.h"
#include "small_file.h"
#include "temp_dir.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIRST_VMID 100

const char *guest_tree_kind_name(enum guest_tree_kind kind) {
  return kind == GUEST_TREE_CGROUP ? "cgroup" : "fixture";
}

/* dir/name, or -ENAMETOOLONG. */
static int join(char *buf, size_t size, const char *dir, const char *name) {
  int n = snprintf(buf, size, "%s/%s", dir, name);
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int path_join(char *buf, size_t size, const char *root, uint32_t vmid) {
  int n = snprintf(buf, size, "%s/qemu.slice/%u.scope", root, (unsigned)vmid);
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int guest_tree_dir(const struct guest_tree *t, size_t slot, char *buf,
                   size_t size) {
  return path_join(buf, size, t->root, t->vmids[slot]);
}

int guest_tree_memory_dir(const struct guest_tree *t, size_t slot, char *buf,
                          size_t size) {
  return path_join(buf, size, t->memory_root[0] ? t->memory_root : t->root,
                   t->vmids[slot]);
}

static int make_dir(const char *path) {
  return mkdir(path, 0755) < 0 ? -errno : 0;
}

/* rmdir, waiting a little for a cgroup whose last task is still exiting. */
static int remove_dir(const char *path) {
  for (int attempt = 0; attempt < 50; attempt++) {
    if (rmdir(path) == 0 || errno == ENOENT)
      return 0;
    if (errno != EBUSY)
      return -errno;
    usleep(20000);
  }
  return -EBUSY;
}

static int make_guest(const struct guest_tree *t, uint32_t vmid) {
  char dir[PATH_MAX];
  int err = path_join(dir, sizeof(dir), t->root, vmid);
  if (err == 0)
    err = make_dir(dir);
  if (err == 0 && t->kind == GUEST_TREE_FIXTURE)
    err = fixture_files_write(dir);
  if (err == 0 && t->memory_root[0]) {
    err = path_join(dir, sizeof(dir), t->memory_root, vmid);
    if (err == 0)
      err = make_dir(dir);
  }
  return err;
}

static int remove_guest(const struct guest_tree *t, uint32_t vmid) {
  char dir[PATH_MAX];
  int err = path_join(dir, sizeof(dir), t->root, vmid);
  if (err < 0)
    return err;
  if (t->kind == GUEST_TREE_FIXTURE)
    return temp_dir_remove(dir);
  err = remove_dir(dir);
  if (t->memory_root[0] &&
      path_join(dir, sizeof(dir), t->memory_root, vmid) == 0) {
    int err1 = remove_dir(dir);
    err = err ? err : err1;
  }
  return err;
}

/* Leftovers (a guest of a failed replace, say) in a cgroup root: only
 * directories can and need to be removed there, deepest first. */
static int remove_cgroup_entry(const char *path, const struct stat *st,
                               int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  int err = flag == FTW_DP ? remove_dir(path) : 0;
  if (err < 0)
    fprintf(stderr, "pvecg-bench: cannot remove cgroup %s: %s\n", path,
            strerror(-err));
  return 0;
}

static void remove_root(const char *root, enum guest_tree_kind kind) {
  if (!root[0])
    return;
  struct stat st;
  if (lstat(root, &st) < 0)
    return;
  if (kind == GUEST_TREE_FIXTURE)
    temp_dir_remove(root);
  else
    nftw(root, remove_cgroup_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void guest_tree_remove(struct guest_tree *t) {
  for (size_t i = 0; i < t->count; i++) {
    int err = t->vmids[i] ? remove_guest(t, t->vmids[i]) : 0;
    if (err < 0)
      fprintf(stderr, "pvecg-bench: cannot remove guest %u: %s\n",
              (unsigned)t->vmids[i], strerror(-err));
  }
  remove_root(t->root, t->kind);
  remove_root(t->memory_root, t->kind);
  free(t->vmids);
  t->vmids = NULL;
  t->count = 0;
  t->root[0] = t->memory_root[0] = '\0';
}

/* cgroup2 with its own memory controller (pure cgroup2 hosts): enable it
 * down to the guests, as systemd does for machine slices. */
static int enable_memory_v2(const char *dir) {
  char path[PATH_MAX];
  int err = join(path, sizeof(path), dir, "cgroup.subtree_control");
  return err < 0 ? err : small_file_write(path, "+memory");
}

static bool controllers_have_memory(const char *cgroup2_root) {
  char path[PATH_MAX], buf[1024];
  if (join(path, sizeof(path), cgroup2_root, "cgroup.controllers") < 0 ||
      small_file_read(path, buf, sizeof(buf)) < 0)
    return false;
  for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
    if (strcmp(tok, "memory") == 0)
      return true;
  return false;
}

/* root/pvecg-bench-<pid> and its qemu.slice/ in one hierarchy. */
static int make_private_root(const char *mount, char *root, size_t size,
                             bool memory_v2) {
  char name[32], slice[PATH_MAX];
  snprintf(name, sizeof(name), "pvecg-bench-%d", (int)getpid());
  int err = join(root, size, mount, name);
  if (err == 0 && (err = make_dir(root)) < 0)
    root[0] = '\0';
  if (err == 0 && memory_v2)
    err = enable_memory_v2(root);
  if (err == 0)
    err = join(slice, sizeof(slice), root, "qemu.slice");
  if (err == 0)
    err = make_dir(slice);
  if (err == 0 && memory_v2)
    err = enable_memory_v2(slice);
  return err;
}

static int make_cgroup_roots(struct guest_tree *t) {
  struct cgroup_mounts mounts;
  int err = cgroup_roots_detect("/proc/self/mountinfo", &mounts);
  if (err < 0)
    return err;
  if (!mounts.unified[0])
    return -ENOENT;
  bool memory_v2 = controllers_have_memory(mounts.unified);
  err = make_private_root(mounts.unified, t->root, sizeof(t->root), memory_v2);
  /* Without a memory controller anywhere the memory files stay missing. */
  if (err < 0 || memory_v2 || !mounts.memory_v1[0])
    return err;
  return make_private_root(mounts.memory_v1, t->memory_root,
                           sizeof(t->memory_root), false);
}

static int make_fixture_root(struct guest_tree *t) {
  int err = temp_dir_create("pvecg-bench-fixture", t->root, sizeof(t->root));
  if (err < 0) {
    t->root[0] = '\0';
    return err;
  }
  char slice[PATH_MAX];
  err = join(slice, sizeof(slice), t->root, "qemu.slice");
  return err < 0 ? err : make_dir(slice);
}

int guest_tree_create(struct guest_tree *t, size_t count,
                      enum guest_tree_kind kind) {
  memset(t, 0, sizeof(*t));
  t->kind = kind;
  t->vmids = calloc(count ? count : 1, sizeof(*t->vmids));
  if (!t->vmids)
    return -ENOMEM;
  int err =
      kind == GUEST_TREE_CGROUP ? make_cgroup_roots(t) : make_fixture_root(t);
  t->next_vmid = FIRST_VMID;
  for (size_t i = 0; err == 0 && i < count; i++) {
    if (interrupted()) {
      err = -EINTR;
      break;
    }
    err = make_guest(t, t->next_vmid);
    if (err == 0) {
      t->vmids[i] = t->next_vmid++;
      t->count = i + 1;
    }
  }
  if (err < 0)
    guest_tree_remove(t);
  return err;
}

int guest_tree_create_best(struct guest_tree *t, size_t count, bool fixture) {
  if (!fixture) {
    int err = geteuid() == 0 ? guest_tree_create(t, count, GUEST_TREE_CGROUP)
                             : -EPERM;
    if (err == 0 || err == -EINTR || err == -ENOMEM)
      return err;
    fprintf(stderr,
            "pvecg-bench: cannot make real cgroups here (%s): using a "
            "fixture tree\n",
            strerror(-err));
  }
  return guest_tree_create(t, count, GUEST_TREE_FIXTURE);
}

int guest_tree_attach(const struct guest_tree *t, size_t slot, pid_t pid) {
  char dir[PATH_MAX], path[PATH_MAX + 16], text[32];
  snprintf(text, sizeof(text), "%d\n", (int)pid);
  int err = guest_tree_dir(t, slot, dir, sizeof(dir));
  if (err < 0)
    return err;
  snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
  if (t->kind == GUEST_TREE_FIXTURE)
    return small_file_create(path, text);
  if ((err = small_file_write(path, text)) < 0 || !t->memory_root[0])
    return err;
  if ((err = path_join(dir, sizeof(dir), t->memory_root, t->vmids[slot])) < 0)
    return err;
  snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
  return small_file_write(path, text);
}

int guest_tree_replace(struct guest_tree *t, size_t slot, bool same_vmid) {
  uint32_t old = t->vmids[slot];
  int err = remove_guest(t, old);
  if (err < 0)
    return err;
  t->vmids[slot] = 0;
  uint32_t vmid = same_vmid ? old : t->next_vmid++;
  if ((err = make_guest(t, vmid)) < 0)
    return err;
  t->vmids[slot] = vmid;
  return 0;
}

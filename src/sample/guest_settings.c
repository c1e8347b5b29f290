/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A guest's configured CPUs, memory and name (see guest_settings.h).
 */
#include "guest_settings.h"

#include "pvecg/cgroup_stats.h"
#include "pvecg/file_read.h"
#include "pvecg/ksm_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Reads a small file whole (file_read_regular).  Returns its length or a
 * negative errno. */
static ssize_t read_small(const char *path, char *buf, size_t size) {
  size_t len = 0;
  int r = file_read_regular(AT_FDCWD, path, buf, size, &len);
  return r < 0 ? r : (ssize_t)len;
}

void guest_settings_init(struct guest_settings *gs) {
  memset(gs, 0, sizeof(*gs));
  gs->config_error = gs->config_error_reported = -ENOENT;
}

/* The longest wait before limit files that did not exist are looked for
 * again: a controller enabled later is seen within it. */
#define LIMITS_RETRY_MAX_SECONDS 480.0

/* Reads cgroup_dir/name into buf.  Returns its length or a negative errno
 * (-ENOENT: the file does not exist). */
static ssize_t read_limit(const char *cgroup_dir, const char *name, char *buf,
                          size_t size) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof(path), "%s/%s", cgroup_dir, name) >=
      (int)sizeof(path))
    return -ENAMETOOLONG;
  return read_small(path, buf, size);
}

static void read_limits(struct guest_settings *gs, const char *cgroup_dir,
                        double refresh_seconds, double now) {
  char buf[128];
  gs->cpu_max_cpus = 0;
  gs->memory_max = 0;
  ssize_t cpu = read_limit(cgroup_dir, "cpu.max", buf, sizeof(buf));
  if (cpu >= 0)
    cpu_max_parse(buf, (size_t)cpu, &gs->cpu_max_cpus);
  ssize_t mem = read_limit(cgroup_dir, "memory.max", buf, sizeof(buf));
  if (mem >= 0)
    memory_max_parse(buf, (size_t)mem, &gs->memory_max);
  if (cpu != -ENOENT || mem != -ENOENT) {
    gs->limits_wait = gs->limits_at = 0;
    return;
  }
  gs->limits_wait = gs->limits_wait > 0 ? 2 * gs->limits_wait : refresh_seconds;
  if (gs->limits_wait > LIMITS_RETRY_MAX_SECONDS)
    gs->limits_wait = LIMITS_RETRY_MAX_SECONDS;
  gs->limits_at = now + gs->limits_wait;
}

static int config_path(char *buf, size_t size, const char *dir,
                       enum guest_type type, uint32_t vmid) {
  int n = snprintf(buf, size, "%s/%s/%u.conf", dir,
                   type == GUEST_QEMU ? "qemu-server" : "lxc", (unsigned)vmid);
  return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static bool same_mtime(const struct guest_settings *gs, const struct stat *st) {
  return gs->have_mtime && gs->mtime.tv_sec == st->st_mtim.tv_sec &&
         gs->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void read_config(struct guest_settings *gs, enum guest_type type,
                        uint32_t vmid,
                        const struct guest_settings_source *src) {
  char path[PATH_MAX];
  const char *dir = src->pve_config_dir;
  struct stat st;
  if (dir[0] == '\0' || config_path(path, sizeof(path), dir, type, vmid) < 0 ||
      stat(path, &st) < 0) {
    gs->config_error = -ENOENT;
    gs->have_mtime = false;
    return;
  }
  if (same_mtime(gs, &st))
    return;
  ssize_t n = read_small(path, src->buf, src->buf_size);
  int err = n < 0 ? (int)n
                  : guest_config_parse(type, src->buf, (size_t)n, &gs->config);
  gs->config_error = err;
  gs->have_mtime = err == 0;
  gs->mtime = st.st_mtim;
}

/* Whether /proc/<pid>/cgroup names the guest's scope. */
static bool pid_in_scope(const struct guest_settings_source *src, int pid,
                         uint32_t vmid) {
  char path[PATH_MAX], want[64], buf[4096];
  snprintf(path, sizeof(path), "%s/%d/cgroup", src->proc_root, pid);
  ssize_t n = read_small(path, buf, sizeof(buf) - 1);
  if (n < 0)
    return false;
  buf[n] = '\0';
  snprintf(want, sizeof(want), "/qemu.slice/%u.scope\n", (unsigned)vmid);
  return strstr(buf, want) != NULL;
}

/* The first pid in a cgroup.procs. */
static int first_proc(const char *cgroup_dir, char *buf, size_t size) {
  char path[PATH_MAX];
  int pid;
  snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_dir);
  ssize_t n = read_small(path, buf, size);
  if (n <= 0)
    return 0;
  const char *nl = memchr(buf, '\n', (size_t)n);
  size_t len = nl ? (size_t)(nl - buf) + 1 : (size_t)n;
  return pid_file_parse(buf, len, &pid) == 0 ? pid : 0;
}

int guest_pid_start(const char *proc_root, int pid, uint64_t *ret) {
  char path[PATH_MAX], buf[1024];
  snprintf(path, sizeof(path), "%s/%d/stat", proc_root, pid);
  ssize_t n = read_small(path, buf, sizeof(buf));
  if (n < 0)
    return (int)n;
  return pid_stat_start_parse(buf, (size_t)n, ret);
}

/* pid, if it is in the guest's scope, with its start time: read before and
 * after the scope is checked, so that a pid reused in between is not taken
 * for the process that was checked. */
static int checked_pid(const struct guest_settings_source *src, int pid,
                       uint32_t vmid, uint64_t *start) {
  uint64_t before, after;
  if (pid <= 0 || guest_pid_start(src->proc_root, pid, &before) < 0 ||
      !pid_in_scope(src, pid, vmid) ||
      guest_pid_start(src->proc_root, pid, &after) < 0 || before != after)
    return 0;
  *start = before;
  return pid;
}

static int find_qemu_pid(uint32_t vmid, const struct guest_settings_source *src,
                         uint64_t *start) {
  char path[PATH_MAX], buf[64];
  int pid = 0;
  snprintf(path, sizeof(path), "%s/qemu-server/%u.pid", src->run_dir,
           (unsigned)vmid);
  ssize_t n = read_small(path, buf, sizeof(buf));
  if (n >= 0 && pid_file_parse(buf, (size_t)n, &pid) == 0 &&
      (pid = checked_pid(src, pid, vmid, start)) > 0)
    return pid;
  pid = first_proc(src->cgroup_dir, src->buf, src->buf_size);
  return checked_pid(src, pid, vmid, start);
}

void guest_settings_expire(struct guest_settings *gs) { gs->next_check = 0; }

void guest_settings_refresh(struct guest_settings *gs, enum guest_type type,
                            uint32_t vmid,
                            const struct guest_settings_source *src,
                            double now) {
  if (now < gs->next_check)
    return;
  gs->next_check = now + src->refresh_seconds;
  read_config(gs, type, vmid, src);
  if (gs->config_error == -ENOENT && now >= gs->limits_at)
    read_limits(gs, src->cgroup_dir, src->refresh_seconds, now);
  if (src->want_pid && type == GUEST_QEMU)
    gs->pid = find_qemu_pid(vmid, src, &gs->pid_start);
}

void guest_settings_apply(struct guest_settings *gs, unsigned host_cpus,
                          struct guest_sample *out) {
  bool config = gs->config_error == 0;
  out->config_error = gs->config_error;
  out->config_error_before = gs->config_error_reported;
  gs->config_error_reported = gs->config_error;
  out->name = config ? gs->config.name : "";
  /* A config that exists but cannot be used: its values are unknown, not
   * replaced by limits that may say something else. */
  if (!config && gs->config_error != -ENOENT) {
    out->maxcpu_valid = out->maxmem_valid = false;
    return;
  }
  if (config && gs->config.has_cpus)
    out->maxcpu = gs->config.cpus;
  else if (!config && gs->cpu_max_cpus > 0)
    out->maxcpu = gs->cpu_max_cpus;
  else
    out->maxcpu = host_cpus;
  out->maxcpu_valid = out->maxcpu > 0;
  out->maxmem = config ? gs->config.memory : gs->memory_max;
  out->maxmem_valid = out->maxmem > 0;
}

/*
 * The guest sampler (see sampler.h for the contract).
 *
 * State per guest is a small struct with its kept-open descriptors, in an
 * array sorted by (type, vmid).  Each run lists qemu.slice/ and lxc/, which
 * costs one getdents per directory and also tells us inode numbers: a name
 * whose inode changed is a re-created cgroup and is reopened.  The hot path
 * is then a pread per file and a parse; nothing is allocated per guest per
 * run once the set of guests is stable.
 */
#include "sampler.h"

#include "decimal.h"
#include "dir_change.h"
#include "flat_keyed.h"
#include "guest_extra.h"
#include "guest_net.h"
#include "guest_settings.h"
#include "vmid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* memory.stat is the largest file read (~1.5 KiB v1, ~2 KiB on 6.x v2). */
#define SAMPLER_BUF_SIZE 16384
/* How often a guest's missing files are looked for again (a controller can
 * be enabled after the cgroup was made). */
#define MISSING_RETRY_SECONDS 30.0

struct guest {
  uint64_t key; /* type << 32 | vmid: the sort order */
  ino_t ino;    /* of the cgroup2 directory */
  int fd[GUEST_FILE_COUNT];
  enum cgroup_memory_version memory_version;
  unsigned failed;  /* guest_file bits that failed in the last sample */
  unsigned missing; /* guest_file bits that could not be opened */
  double retry_at;  /* monotonic time of the next attempt to open them */
  unsigned listed;  /* scan generation in which the directory was seen */
  unsigned sampled; /* run generation in which it was sampled */
  bool gone;
  bool kept; /* files stay open; otherwise opened for each sample */
  bool cpu_have_prev;
  uint64_t cpu_prev_usec; /* cpu.stat usage_usec at cpu_prev_time */
  double cpu_prev_time;
  struct guest_settings settings;
};

/* A directory found by a scan that is not tracked yet. */
struct pending {
  uint64_t key;
  ino_t ino;
};

struct sampler {
  struct sampler_config config;
  struct guest *guests;
  size_t count, cap;
  struct pending *pending;
  size_t pending_count, pending_cap;
  unsigned scan_gen, run_gen;
  size_t kept_count; /* guests whose files stay open */
  struct dir_change changes[GUEST_TYPE_COUNT];
  unsigned long listings, listings_skipped;
  unsigned host_cpus;
  unsigned wanted_files; /* guest_file bits to open */
  struct guest_net net;
  char config_buf[65536];
  char usage_buf[SAMPLER_BUF_SIZE];
  char buf[SAMPLER_BUF_SIZE];
};

static const char *const type_dirs[GUEST_TYPE_COUNT] = {
    [GUEST_QEMU] = "qemu.slice",
    [GUEST_LXC] = "lxc",
};

static enum guest_type key_type(uint64_t key) {
  return (enum guest_type)(key >> 32);
}

static uint32_t key_vmid(uint64_t key) { return (uint32_t)key; }

static double monotonic_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* <root>/qemu.slice/<vmid>.scope or <root>/lxc/<vmid>. */
static int guest_dir_path(const char *root, uint64_t key, char *buf,
                          size_t size) {
  enum guest_type type = key_type(key);
  int n = snprintf(buf, size, "%s/%s/%u%s", root, type_dirs[type],
                   (unsigned)key_vmid(key), type == GUEST_QEMU ? ".scope" : "");
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int open_dir(const char *path) {
  int fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

static void guest_close_files(struct guest *g) {
  for (int i = 0; i < GUEST_FILE_COUNT; i++) {
    if (g->fd[i] >= 0)
      close(g->fd[i]);
    g->fd[i] = -1;
  }
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
#define ALL_FILES ((1u << GUEST_FILE_COUNT) - 1)

/* On hybrid hosts the memory controller lives in the v1 hierarchy, in a
 * directory of the same relative path. */
static void open_memory_v1(const struct sampler *s, struct guest *g) {
  char path[PATH_MAX];
  if (s->config.memory_root[0] == '\0' ||
      guest_dir_path(s->config.memory_root, g->key, path, sizeof(path)) < 0)
    return;
  int dirfd = open_dir(path);
  if (dirfd < 0)
    return;
  g->memory_version = CGROUP_MEMORY_V1;
  open_files(g, dirfd, MEMORY_FILES);
  close(dirfd);
}

/* (Re)opens whatever of the guest's files is not open.  Returns the
 * directory's inode through ino, or a negative errno when the guest's
 * cgroup2 directory itself cannot be opened. */
static int guest_open_missing(const struct sampler *s, struct guest *g,
                              ino_t *ino) {
  char path[PATH_MAX];
  int err = guest_dir_path(s->config.cgroup_root, g->key, path, sizeof(path));
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
    open_memory_v1(s, g);
  else if (g->memory_version == CGROUP_MEMORY_V1 && (want & MEMORY_FILES))
    open_memory_v1(s, g);
  return 0;
}

/* Whether one more guest's files fit the descriptor budget. */
static bool budget_allows(const struct sampler *s) {
  size_t budget = s->config.fd_budget;
  size_t per_guest = (size_t)__builtin_popcount(s->wanted_files);
  return budget == 0 || (s->kept_count + 1) * per_guest <= budget;
}

static int guest_init(struct sampler *s, struct guest *g, uint64_t key,
                      double now) {
  memset(g, 0, sizeof(*g));
  g->key = key;
  for (int i = 0; i < GUEST_FILE_COUNT; i++)
    g->fd[i] = -1;
  g->memory_version = CGROUP_MEMORY_V2;
  g->missing = s->wanted_files;
  g->retry_at = now + MISSING_RETRY_SECONDS;
  g->listed = s->scan_gen;
  guest_settings_init(&g->settings);
  int err = guest_open_missing(s, g, &g->ino);
  g->kept = err == 0 && budget_allows(s);
  if (g->kept)
    s->kept_count++;
  else
    guest_close_files(g);
  return err;
}

/* A guest beyond the descriptor budget has its files opened for each
 * sample (and closed after it), like a naive reader. */
static int open_unkept(const struct sampler *s, struct guest *g) {
  ino_t ino;
  g->missing = s->wanted_files;
  g->memory_version = CGROUP_MEMORY_V2;
  if (guest_open_missing(s, g, &ino) < 0 || ino != g->ino) {
    guest_close_files(g);
    return -ENODEV;
  }
  return 0;
}

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
                   type_dirs[type]);
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
      guest_close_files(g);
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
    if (guest_init(s, g, s->pending[i].key, now) == 0)
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
    if (key_type(s->guests[i].key) == type)
      s->guests[i].listed = s->scan_gen;
}

/* Lists one type directory unless cgroupfs says its children are the same
 * as at the last listing. */
static int scan_type(struct sampler *s, enum guest_type type) {
  char dir[PATH_MAX];
  int n = snprintf(dir, sizeof(dir), "%s/%s", s->config.cgroup_root,
                   type_dirs[type]);
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

static int scan(struct sampler *s, double now) {
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

/* Reads a kept-open file from offset 0.  A file that fills the buffer would
 * be parsed truncated, so that is an error too. */
static int read_kept(int fd, char *buf, size_t size, size_t *len) {
  if (fd < 0)
    return -ENOENT;
  ssize_t n;
  do
    n = pread(fd, buf, size, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -errno;
  if ((size_t)n >= size)
    return -EFBIG;
  *len = (size_t)n;
  return 0;
}

static bool is_gone_error(int err) { return err == -ENODEV || err == -ENOENT; }

/* ExtraStats: memory.stat is still in s->buf; events and swap are read
 * into the (no longer needed) usage buffer and a small one. */
static int sample_extra(struct sampler *s, const struct guest *g,
                        uint64_t usage, size_t stat_len,
                        struct guest_sample *out) {
  char swap[64];
  size_t elen = 0, wlen = 0;
  int efd = g->fd[GUEST_FILE_MEMORY_EVENTS],
      wfd = g->fd[GUEST_FILE_MEMORY_SWAP];
  int eerr = read_kept(efd, s->usage_buf, sizeof(s->usage_buf), &elen);
  int werr = read_kept(wfd, swap, sizeof(swap), &wlen);
  if ((eerr < 0 && efd >= 0 && is_gone_error(eerr)) ||
      (werr < 0 && wfd >= 0 && is_gone_error(werr)))
    return -ENODEV;
  struct guest_extra_input in = {.version = g->memory_version,
                                 .usage = usage,
                                 .stat = s->buf,
                                 .stat_len = stat_len,
                                 .events = eerr ? NULL : s->usage_buf,
                                 .events_len = elen,
                                 .swap = werr ? NULL : swap,
                                 .swap_len = wlen};
  int perr = 0, pwerr = 0;
  guest_extra_fill(&in, out, &perr, &pwerr);
  out->error[GUEST_FILE_MEMORY_EVENTS] = eerr ? eerr : perr;
  out->error[GUEST_FILE_MEMORY_SWAP] = werr ? werr : pwerr;
  return 0;
}

/* Returns -ENODEV when the guest's cgroup has disappeared. */
static int sample_memory(struct sampler *s, const struct guest *g,
                         struct guest_sample *out) {
  size_t ulen = 0, slen = 0;
  int uerr = read_kept(g->fd[GUEST_FILE_MEMORY_USAGE], s->usage_buf,
                       sizeof(s->usage_buf), &ulen);
  int serr =
      read_kept(g->fd[GUEST_FILE_MEMORY_STAT], s->buf, sizeof(s->buf), &slen);
  out->error[GUEST_FILE_MEMORY_USAGE] = uerr;
  out->error[GUEST_FILE_MEMORY_STAT] = serr;
  if ((uerr && g->fd[GUEST_FILE_MEMORY_USAGE] >= 0 && is_gone_error(uerr)) ||
      (serr && g->fd[GUEST_FILE_MEMORY_STAT] >= 0 && is_gone_error(serr)))
    return -ENODEV;
  if (uerr || serr)
    return 0;
  /* The usage buffer is reused below: keep its value. */
  /* The usage file is checked on its own first so that an error names the
   * file that was malformed. */
  uint64_t usage;
  int err = decimal_parse_u64_file(s->usage_buf, ulen, &usage);
  if (err < 0) {
    out->error[GUEST_FILE_MEMORY_USAGE] = err;
    return 0;
  }
  err = cgroup_memory_parse(g->memory_version, s->usage_buf, ulen, s->buf, slen,
                            &out->memory_used);
  if (err < 0) {
    out->error[GUEST_FILE_MEMORY_STAT] = err;
    return 0;
  }
  out->memory_valid = true;
  return s->config.extra_stats ? sample_extra(s, g, usage, slen, out) : 0;
}

static int sample_pressure(struct sampler *s, const struct guest *g,
                           enum psi_resource r, struct guest_sample *out) {
  enum guest_file file = (enum guest_file)(GUEST_FILE_CPU_PRESSURE + r);
  size_t len = 0;
  int err = read_kept(g->fd[file], s->buf, sizeof(s->buf), &len);
  if (err == 0)
    err = psi_parse(s->buf, len, &out->psi[r]);
  else if (g->fd[file] >= 0 && is_gone_error(err))
    return -ENODEV;
  out->error[file] = err;
  out->psi_valid[r] = err == 0;
  return 0;
}

/* Busy CPUs since the last sample, from cpu.stat's usage_usec. */
static int sample_cpu(struct sampler *s, struct guest *g, double now,
                      struct guest_sample *out) {
  static const char *const keys[] = {"usage_usec"};
  size_t len = 0;
  uint64_t usage = 0, found = 0;
  int fd = g->fd[GUEST_FILE_CPU_STAT];
  int err = read_kept(fd, s->buf, sizeof(s->buf), &len);
  if (err < 0 && fd >= 0 && is_gone_error(err))
    return -ENODEV;
  if (err == 0)
    err = flat_keyed_parse(s->buf, len, keys, 1, &usage, &found);
  if (err == 0 && found != 1)
    err = -ENOMSG;
  out->error[GUEST_FILE_CPU_STAT] = err;
  if (err < 0) {
    g->cpu_have_prev = false;
    return 0;
  }
  /* A counter that went backwards is a reset: unknown, never negative. */
  if (g->cpu_have_prev && usage >= g->cpu_prev_usec && now > g->cpu_prev_time) {
    out->cpu_busy =
        (double)(usage - g->cpu_prev_usec) / 1e6 / (now - g->cpu_prev_time);
    out->cpu_valid = true;
  }
  g->cpu_have_prev = true;
  g->cpu_prev_usec = usage;
  g->cpu_prev_time = now;
  return 0;
}

static int sample_io(struct sampler *s, const struct guest *g,
                     struct guest_sample *out) {
  size_t len = 0;
  int fd = g->fd[GUEST_FILE_IO_STAT];
  int err = read_kept(fd, s->buf, sizeof(s->buf), &len);
  if (err < 0 && fd >= 0 && is_gone_error(err))
    return -ENODEV;
  if (err == 0)
    err = io_stat_parse(s->buf, len, &out->io);
  out->error[GUEST_FILE_IO_STAT] = err;
  out->io_valid = err == 0;
  return 0;
}

static void sample_settings(struct sampler *s, struct guest *g, double now,
                            struct guest_sample *out) {
  if (now >= g->settings.next_check) {
    char dir[PATH_MAX];
    struct guest_settings_source src = {
        .pve_config_dir = s->config.pve_config_dir,
        .cgroup_dir = dir,
        .refresh_seconds = s->config.settings_refresh_seconds,
        .buf = s->config_buf,
        .buf_size = sizeof(s->config_buf),
        .want_pid = s->config.ksm,
        .run_dir = s->config.run_dir,
        .proc_root = s->config.proc_root,
    };
    if (guest_dir_path(s->config.cgroup_root, g->key, dir, sizeof(dir)) == 0)
      guest_settings_refresh(&g->settings, key_type(g->key), key_vmid(g->key),
                             &src, now);
  }
  guest_settings_apply(&g->settings, s->host_cpus, out);
}

/* KSM: /proc/<pid>/ksm_stat of the VM's QEMU process, opened each time
 * (the pid can change while the scope stays). */
static void sample_ksm(struct sampler *s, struct guest *g,
                       struct guest_sample *out) {
  char path[PATH_MAX];
  int pid = g->settings.pid;
  if (pid <= 0)
    return;
  int n =
      snprintf(path, sizeof(path), "%s/%d/ksm_stat", s->config.proc_root, pid);
  if (n < 0 || (size_t)n >= sizeof(path))
    return;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  size_t len = 0;
  int err = fd < 0 ? -errno : read_kept(fd, s->buf, sizeof(s->buf), &len);
  if (fd >= 0)
    close(fd);
  if (err == 0)
    out->ksm_valid = ksm_stat_parse(s->buf, len, &out->ksm) == 0;
  else
    guest_settings_expire(&g->settings); /* look for the pid again */
}

static int sample_files(struct sampler *s, struct guest *g, double now,
                        struct guest_sample *out);

/* Fills out for g.  Returns -ENODEV when the guest has disappeared. */
static int sample_guest(struct sampler *s, struct guest *g, double now,
                        struct guest_sample *out) {
  if (!g->kept) {
    if (open_unkept(s, g) < 0)
      return -ENODEV;
  } else if (g->missing && now >= g->retry_at) {
    ino_t ino;
    if (guest_open_missing(s, g, &ino) < 0 || ino != g->ino)
      return -ENODEV;
    g->retry_at = now + MISSING_RETRY_SECONDS;
  }
  int err = sample_files(s, g, now, out);
  if (!g->kept)
    guest_close_files(g);
  return err;
}

static unsigned failed_files(const struct guest_sample *out) {
  unsigned failed = 0;
  for (int i = 0; i < GUEST_FILE_COUNT; i++) {
    bool optional = GUEST_FILES_OPTIONAL & (1u << i);
    if (out->error[i] && !(optional && out->error[i] == -ENOENT))
      failed |= 1u << i;
  }
  return failed;
}

static int sample_files(struct sampler *s, struct guest *g, double now,
                        struct guest_sample *out) {
  memset(out, 0, sizeof(*out));
  out->vmid = key_vmid(g->key);
  out->type = key_type(g->key);
  out->memory_version = g->memory_version;
  if (sample_memory(s, g, out) < 0)
    return -ENODEV;
  for (int r = 0; r < PSI_RESOURCE_COUNT; r++)
    if (sample_pressure(s, g, (enum psi_resource)r, out) < 0)
      return -ENODEV;
  if (sample_cpu(s, g, now, out) < 0 || sample_io(s, g, out) < 0)
    return -ENODEV;
  sample_settings(s, g, now, out);
  if (s->config.ksm && out->type == GUEST_QEMU)
    sample_ksm(s, g, out);
  out->net_valid =
      guest_net_lookup(&s->net, g->key, &out->netin, &out->netout) == 0;
  out->failed = failed_files(out);
  out->failed_before = g->failed;
  g->failed = out->failed;
  return 0;
}

/* Samples every guest not yet sampled in this run.  Returns true when one
 * turned out to be gone, so the caller lists the directories again. */
static bool sample_all(struct sampler *s, double now, sampler_visit_fn visit,
                       void *ctx) {
  bool any_gone = false;
  struct guest_sample sample;
  for (size_t i = 0; i < s->count; i++) {
    struct guest *g = &s->guests[i];
    if (g->sampled == s->run_gen)
      continue;
    g->sampled = s->run_gen;
    if (sample_guest(s, g, now, &sample) < 0) {
      g->gone = true;
      any_gone = true;
      continue;
    }
    visit(&sample, ctx);
  }
  return any_gone;
}

int sampler_run(struct sampler *s, sampler_visit_fn visit, void *ctx) {
  double now = s->config.clock ? s->config.clock() : monotonic_clock();
  s->run_gen++;
  guest_net_refresh(&s->net);
  int err = scan(s, now);
  if (err < 0)
    return err;
  /* One rescan is enough: it picks up a guest re-created since the first
   * listing; anything later is the next run's business. */
  if (sample_all(s, now, visit, ctx)) {
    for (int t = 0; t < GUEST_TYPE_COUNT; t++)
      dir_change_forget(&s->changes[t]);
    err = scan(s, now);
    if (err < 0)
      return err;
    sample_all(s, now, visit, ctx);
  }
  return 0;
}

static bool valid_root(const char *root, bool may_be_empty) {
  size_t len = strnlen(root, PATH_MAX);
  if (len == 0)
    return may_be_empty;
  return root[0] == '/' && len < PATH_MAX;
}

int sampler_new(const struct sampler_config *config, struct sampler **ret) {
  if (!valid_root(config->cgroup_root, false) ||
      !valid_root(config->memory_root, true) ||
      !valid_root(config->pve_config_dir, true) ||
      !valid_root(config->proc_root, true) ||
      !valid_root(config->run_dir, true) || strlen(config->proc_root) > 200)
    return -EINVAL;
  struct sampler *s = calloc(1, sizeof(*s));
  if (!s)
    return -ENOMEM;
  s->config = *config;
  s->wanted_files =
      config->extra_stats ? ALL_FILES : ALL_FILES & ~GUEST_FILES_EXTRA;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  s->host_cpus =
      config->host_cpus ? config->host_cpus : (unsigned)(cpus > 0 ? cpus : 1);
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    dir_change_init(&s->changes[t]);
  guest_net_init(&s->net, config->proc_root);
  *ret = s;
  return 0;
}

void sampler_free(struct sampler *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->count; i++)
    guest_close_files(&s->guests[i]);
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    dir_change_close(&s->changes[t]);
  guest_net_free(&s->net);
  free(s->guests);
  free(s->pending);
  free(s);
}

size_t sampler_guest_count(const struct sampler *s) { return s->count; }

size_t sampler_fd_count(const struct sampler *s) {
  size_t n = 0;
  for (size_t i = 0; i < s->count; i++)
    for (int f = 0; f < GUEST_FILE_COUNT; f++)
      n += s->guests[i].fd[f] >= 0;
  for (int t = 0; t < GUEST_TYPE_COUNT; t++)
    n += s->changes[t].fd >= 0;
  return n;
}

void sampler_get_stats(const struct sampler *s, struct sampler_stats *ret) {
  ret->guests = s->count;
  ret->unkept_guests = s->count - s->kept_count;
  ret->fds = sampler_fd_count(s);
  ret->listings = s->listings;
  ret->listings_skipped = s->listings_skipped;
}

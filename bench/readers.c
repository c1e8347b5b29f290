/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compared readers (see readers.h).  Paths are built once, so that the
 * naive reader is charged only for open/read/close and the floor only for
 * pread: both are, if anything, flattered against the sampler.
 */
#include "readers.h"

#include "proc_usage.h"
#include "pss_path.h"
#include "pvecg/sampler.h"
#include "sampler_setup.h"
#include "timing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* As the sampler's: memory.stat is the largest file (~2 KiB). */
#define READ_BUF_SIZE 16384
/* Descriptors left for everything else when sizing the floor's chunks. */
#define FD_RESERVE 256
#define FILE_NAME_MAX 64

/* One of the files the sampler keeps per guest. */
struct kept_file {
  bool memory; /* in the v1 memory twin, not below the cgroup2 root */
  char name[FILE_NAME_MAX];
};

struct readers {
  size_t guests;
  const struct guest_tree *tree;
  bool tight;              /* sampler and floor do not fit together */
  struct sampler *sampler; /* kept between measurements unless tight */
  struct kept_file files[READERS_MAX_FILES];
  size_t nfiles;
  int *fds;         /* guests * nfiles, -1 when not open */
  char *file_paths; /* guests * nfiles paths of path_stride */
  char *guest_dirs; /* guests paths of path_stride (for cgroup.procs) */
  size_t path_stride;
  struct readers_info info;
  char buf[READ_BUF_SIZE];
};

/* volatile: what the readers read must not be optimised away. */
static volatile uint64_t sink;

static const char *const method_names[METHOD_COUNT] = {
    [METHOD_SAMPLER] = "sampler",
    [METHOD_FLOOR] = "floor",
    [METHOD_NAIVE] = "naive",
    [METHOD_PSS] = "pss",
};

const char *method_name(enum method m) {
  return (unsigned)m < METHOD_COUNT ? method_names[m] : "unknown";
}

/* ---- the sampler ------------------------------------------------------ */

static void count_guest(const struct guest_sample *sample, void *ctx) {
  long *visited = ctx;
  (*visited)++;
  sink += sample->memory_used;
}

static long run_sampler(struct readers *r) {
  long visited = 0;
  int err = sampler_run(r->sampler, count_guest, &visited);
  return err < 0 ? err : visited;
}

/* A sampler over the tree, run once (it discovers the guests and opens
 * their files then). */
static int start_sampler(struct readers *r) {
  int err = sampler_setup_new(r->tree, &r->sampler);
  if (err < 0)
    return err;
  long visited = run_sampler(r);
  if (visited < 0)
    return (int)visited;
  if ((size_t)visited != r->guests)
    fprintf(stderr, "pvecg-bench: the sampler found %ld guests, not %zu\n",
            visited, r->guests);
  struct sampler_stats st;
  sampler_get_stats(r->sampler, &st);
  r->info.sampler_fds = st.fds;
  r->info.sampler_guests = st.guests;
  r->info.sampler_unkept = st.unkept_guests;
  return 0;
}

static void stop_sampler(struct readers *r) {
  sampler_free(r->sampler);
  r->sampler = NULL;
}

/* ---- which files: learnt from the sampler's descriptors --------------- */

/* "<root>/qemu.slice/<vmid>.scope/<name>" -> name, or NULL. */
static const char *guest_file_in(const char *path, const char *root) {
  size_t len = strlen(root);
  if (!root[0] || strncmp(path, root, len) != 0 ||
      strncmp(path + len, "/qemu.slice/", 12) != 0)
    return NULL;
  const char *scope = path + len + 12;
  const char *slash = strchr(scope, '/');
  if (!slash || slash - scope < 7 || strncmp(slash - 6, ".scope", 6) != 0)
    return NULL;
  const char *name = slash + 1;
  return *name && !strchr(name, '/') ? name : NULL;
}

static void note_file(struct readers *r, bool memory, const char *name) {
  for (size_t i = 0; i < r->nfiles; i++)
    if (r->files[i].memory == memory && strcmp(r->files[i].name, name) == 0)
      return;
  if (r->nfiles == READERS_MAX_FILES || strlen(name) >= FILE_NAME_MAX)
    return;
  r->files[r->nfiles].memory = memory;
  snprintf(r->files[r->nfiles].name, FILE_NAME_MAX, "%s", name);
  r->info.file_names[r->nfiles] = r->files[r->nfiles].name;
  r->nfiles++;
}

/* Every guest file this process holds open is the sampler's (the floor has
 * not opened anything yet). */
static int learn_files(struct readers *r) {
  DIR *dir = opendir("/proc/self/fd");
  if (!dir)
    return -errno;
  struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    char path[PATH_MAX];
    if (de->d_name[0] == '.')
      continue;
    ssize_t n = readlinkat(dirfd(dir), de->d_name, path, sizeof(path) - 1);
    if (n <= 0)
      continue;
    path[n] = '\0';
    const char *name;
    if ((name = guest_file_in(path, r->tree->memory_root)) != NULL)
      note_file(r, true, name);
    else if ((name = guest_file_in(path, r->tree->root)) != NULL)
      note_file(r, false, name);
  }
  closedir(dir);
  r->info.files_per_guest = r->nfiles;
  return r->nfiles ? 0 : -ENOENT;
}

/* ---- paths and kept descriptors --------------------------------------- */

static char *file_path(const struct readers *r, size_t index) {
  return r->file_paths + index * r->path_stride;
}

static int build_paths(struct readers *r) {
  const struct guest_tree *tree = r->tree;
  /* Longest path: root + "/qemu.slice/999999999.scope/" + a file name. */
  size_t root_len = strlen(tree->root) > strlen(tree->memory_root)
                        ? strlen(tree->root)
                        : strlen(tree->memory_root);
  size_t total = r->guests * r->nfiles;
  r->path_stride = root_len + 32 + FILE_NAME_MAX;
  r->file_paths = malloc(total * r->path_stride + 1);
  r->guest_dirs = malloc(r->guests * r->path_stride + 1);
  r->fds = malloc((total + 1) * sizeof(*r->fds));
  if (!r->file_paths || !r->guest_dirs || !r->fds)
    return -ENOMEM;
  for (size_t i = 0; i < total; i++)
    r->fds[i] = -1;
  for (size_t g = 0; g < r->guests; g++) {
    char *dir = r->guest_dirs + g * r->path_stride, mem[PATH_MAX];
    int err = guest_tree_dir(tree, g, dir, r->path_stride);
    if (err == 0)
      err = guest_tree_memory_dir(tree, g, mem, sizeof(mem));
    if (err < 0)
      return err;
    for (size_t f = 0; f < r->nfiles; f++) {
      int n = snprintf(file_path(r, g * r->nfiles + f), r->path_stride, "%s/%s",
                       r->files[f].memory ? mem : dir, r->files[f].name);
      if (n < 0 || (size_t)n >= r->path_stride)
        return -ENAMETOOLONG;
    }
  }
  return 0;
}

/* Opens the files of guests [from, to). */
static int open_kept(struct readers *r, size_t from, size_t to) {
  for (size_t i = from * r->nfiles; i < to * r->nfiles; i++) {
    r->fds[i] = open(file_path(r, i), O_RDONLY | O_CLOEXEC);
    if (r->fds[i] < 0)
      return -errno;
    r->info.floor_fds++;
  }
  return 0;
}

static void close_kept(struct readers *r, size_t from, size_t to) {
  for (size_t i = from * r->nfiles; i < to * r->nfiles; i++) {
    if (r->fds[i] >= 0) {
      close(r->fds[i]);
      r->info.floor_fds--;
    }
    r->fds[i] = -1;
  }
}

/* Keeps everything open, or (tight) measures sampler and floor apart. */
static int plan_descriptors(struct readers *r) {
  struct rlimit rl;
  size_t open_now = 0;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || proc_fd_count(0, &open_now) < 0)
    return -errno;
  r->info.fd_limit = (unsigned long)rl.rlim_cur;
  /* open_now includes the sampler's descriptors. */
  size_t room = rl.rlim_cur > open_now + FD_RESERVE
                    ? (size_t)rl.rlim_cur - open_now - FD_RESERVE
                    : r->nfiles;
  size_t need = r->guests * r->nfiles;
  r->tight = r->info.sampler_unkept > 0 || need > room;
  size_t chunk =
      r->tight ? (room + r->info.sampler_fds) / r->nfiles : r->guests;
  r->info.floor_chunk = chunk < 1 ? 1 : chunk > r->guests ? r->guests : chunk;
  return 0;
}

int readers_new(const struct guest_tree *tree, struct readers **ret) {
  struct readers *r = calloc(1, sizeof(*r));
  if (!r)
    return -ENOMEM;
  r->guests = tree->count;
  r->tree = tree;
  int err = start_sampler(r);
  if (err == 0 && (err = learn_files(r)) < 0)
    fprintf(stderr, "pvecg-bench: the sampler keeps no guest file open\n");
  if (err == 0)
    err = build_paths(r);
  if (err == 0)
    err = plan_descriptors(r);
  if (err == 0 && r->tight)
    stop_sampler(r);
  if (err == 0 && !r->tight)
    err = open_kept(r, 0, r->guests);
  if (err < 0) {
    readers_free(r);
    return err;
  }
  *ret = r;
  return 0;
}

void readers_free(struct readers *r) {
  if (!r)
    return;
  if (r->fds)
    close_kept(r, 0, r->guests);
  stop_sampler(r);
  free(r->fds);
  free(r->file_paths);
  free(r->guest_dirs);
  free(r);
}

/* ---- one interval of each method -------------------------------------- */

#define ALL_FILES (~0u)

/* pread of the kept files in mask (bits of r->files) of guests [from, to). */
static void run_floor(struct readers *r, size_t from, size_t to,
                      unsigned mask) {
  const int *fd = r->fds;
  for (size_t i = from * r->nfiles; i < to * r->nfiles; i++) {
    if (!(mask & (1u << (i % r->nfiles))))
      continue;
    ssize_t n = pread(fd[i], r->buf, sizeof(r->buf), 0);
    sink += (uint64_t)n;
  }
}

static void run_naive(struct readers *r) {
  for (size_t i = 0; i < r->guests * r->nfiles; i++) {
    int fd = open(file_path(r, i), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    ssize_t n;
    while ((n = read(fd, r->buf, sizeof(r->buf))) > 0)
      sink += (uint64_t)n;
    close(fd);
  }
}

static int run_pss(struct readers *r) {
  for (size_t g = 0; g < r->guests; g++) {
    uint64_t pss;
    size_t procs;
    int err = pss_path_cgroup(r->guest_dirs + g * r->path_stride, &pss, &procs);
    if (err < 0)
      return err;
    sink += pss + procs;
  }
  return 0;
}

static int run_interval(struct readers *r, enum method m) {
  switch (m) {
  case METHOD_SAMPLER: {
    long visited = run_sampler(r);
    return visited < 0 ? (int)visited : 0;
  }
  case METHOD_FLOOR:
    run_floor(r, 0, r->guests, ALL_FILES);
    return 0;
  case METHOD_NAIVE:
    run_naive(r);
    return 0;
  case METHOD_PSS:
    return run_pss(r);
  case METHOD_COUNT:
    break;
  }
  return -EINVAL;
}

/* ---- timing ----------------------------------------------------------- */

/* Sleeps between two timed intervals (not timed itself). */
static void gap(unsigned gap_ms) {
  struct timespec ts = {(time_t)(gap_ms / 1000),
                        (long)(gap_ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ns for intervals runs of m (after one untimed run). */
static int time_intervals(struct readers *r, enum method m, unsigned intervals,
                          unsigned gap_ms, uint64_t *ns) {
  int err = run_interval(r, m);
  *ns = 0;
  if (gap_ms == 0) {
    uint64_t start = thread_cpu_ns();
    for (unsigned k = 0; err == 0 && k < intervals; k++)
      err = run_interval(r, m);
    *ns = thread_cpu_ns() - start;
    return err;
  }
  for (unsigned k = 0; err == 0 && k < intervals; k++) {
    gap(gap_ms);
    uint64_t start = thread_cpu_ns();
    err = run_interval(r, m);
    *ns += thread_cpu_ns() - start;
  }
  return err;
}

/* The floor in chunks of kept descriptors that fit the limit (or in one
 * chunk of every guest when they are all open anyway). */
static int time_floor(struct readers *r, unsigned intervals, unsigned mask,
                      unsigned gap_ms, uint64_t *ns) {
  *ns = 0;
  for (size_t g = 0; g < r->guests; g += r->info.floor_chunk) {
    size_t to = g + r->info.floor_chunk < r->guests ? g + r->info.floor_chunk
                                                    : r->guests;
    int err = r->tight ? open_kept(r, g, to) : 0;
    if (err < 0) {
      close_kept(r, g, to);
      return err;
    }
    run_floor(r, g, to, mask);
    for (unsigned k = 0; k < intervals; k++) {
      if (gap_ms)
        gap(gap_ms);
      uint64_t start = thread_cpu_ns();
      run_floor(r, g, to, mask);
      *ns += thread_cpu_ns() - start;
    }
    if (r->tight)
      close_kept(r, g, to);
  }
  return 0;
}

static double per_guest_us(const struct readers *r, uint64_t ns,
                           unsigned intervals) {
  return (double)ns / 1e3 / intervals / (double)(r->guests ? r->guests : 1);
}

double readers_time(struct readers *r, enum method m, unsigned intervals,
                    unsigned gap_ms, int *err) {
  uint64_t ns = 0;
  if (m == METHOD_FLOOR) {
    *err = time_floor(r, intervals, ALL_FILES, gap_ms, &ns);
  } else if (m == METHOD_SAMPLER && !r->sampler) {
    *err = start_sampler(r);
    if (*err == 0)
      *err = time_intervals(r, m, intervals, gap_ms, &ns);
    stop_sampler(r);
  } else {
    *err = time_intervals(r, m, intervals, gap_ms, &ns);
  }
  return per_guest_us(r, ns, intervals);
}

double readers_time_floor_file(struct readers *r, size_t file,
                               unsigned intervals, int *err) {
  uint64_t ns = 0;
  *err =
      file < r->nfiles ? time_floor(r, intervals, 1u << file, 0, &ns) : -EINVAL;
  return per_guest_us(r, ns, intervals);
}

unsigned readers_default_intervals(size_t guests) {
  size_t k = 10000 / (guests ? guests : 1);
  return k < 5 ? 5 : (unsigned)k;
}

int readers_write_floor_paths(const struct readers *r, const char *path) {
  FILE *f = fopen(path, "we");
  if (!f)
    return -errno;
  for (size_t i = 0; i < r->guests * r->nfiles; i++)
    fprintf(f, "%s\n", file_path(r, i));
  int err = ferror(f) ? -EIO : 0;
  if (fclose(f) != 0 && err == 0)
    err = -errno;
  return err;
}

void readers_get_info(const struct readers *r, struct readers_info *ret) {
  *ret = r->info;
}

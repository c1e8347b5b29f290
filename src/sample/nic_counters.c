/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Physical NIC byte counters (see nic_counters.h for the rule and its
 * reasons).
 *
 * State is a small array of NICs with their two kept-open counter files and
 * the values read last time.  A listing builds a new array, moving over the
 * NICs it finds again (same name, same sysfs inode) with their descriptors
 * and values, and closes the rest; between listings a sample is two preads
 * per NIC.
 */
#include "nic_counters.h"

#include "pvecg/grow.h"
#include "pvecg/decimal.h"
#include "pvecg/file_read.h"
#include "kept_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ARPHRD_ETHER in <linux/if_arp.h>; Wi-Fi and USB Ethernet are 1 too. */
#define NIC_TYPE_ETHER 1
/* type, rx_bytes, tx_bytes: a decimal and a newline. */
#define SMALL_FILE_MAX 64

enum nic_file { NIC_RX, NIC_TX, NIC_FILE_COUNT };

struct nic {
  char name[IFNAMSIZ];
  ino_t ino; /* of <sys>/class/net/<name>, the device's directory */
  struct kept_file file[NIC_FILE_COUNT];
  uint64_t last[NIC_FILE_COUNT];
  uint64_t now[NIC_FILE_COUNT];
  bool have_last;
  bool reused; /* during a listing: found again (in both arrays) */
};

struct nic_list {
  struct nic *nic;
  size_t count, cap;
};

struct nic_counters {
  char class_net[PATH_MAX];
  unsigned rescan_runs;
  unsigned runs_since_listing;
  bool listed;      /* at least one listing succeeded */
  bool set_changed; /* since the last sample handed out */
  unsigned long listings;
  struct nic_list list;
  struct read_buffer buf;
};

static const char *const counter_paths[NIC_FILE_COUNT] = {
    [NIC_RX] = "statistics/rx_bytes",
    [NIC_TX] = "statistics/tx_bytes",
};

static void nic_close(struct nic *nic) {
  for (int f = 0; f < NIC_FILE_COUNT; f++)
    kept_file_close(&nic->file[f]);
}

/* Frees the array, closing the NICs that were not reused (the reused ones'
 * descriptors live on in the other array). */
static void list_release(struct nic_list *list) {
  for (size_t i = 0; i < list->count; i++)
    if (!list->nic[i].reused)
      nic_close(&list->nic[i]);
  free(list->nic);
  *list = (struct nic_list){0};
}

static void list_clear_reused(struct nic_list *list) {
  for (size_t i = 0; i < list->count; i++)
    list->nic[i].reused = false;
}

static int list_push(struct nic_list *list, const struct nic *nic) {
  struct nic *p =
      grow_array(list->nic, list->count + 1, &list->cap, sizeof(*list->nic), 8);
  if (p == NULL)
    return -ENOMEM;
  list->nic = p;
  list->nic[list->count++] = *nic;
  return 0;
}

/* Reads a small sysfs file holding one decimal, relative to dirfd. */
static int read_small_decimal(int dirfd, const char *path, uint64_t *ret) {
  char text[SMALL_FILE_MAX];
  size_t n = 0;
  int r = file_read_regular(dirfd, path, text, sizeof(text), &n);

  return r < 0 ? r : decimal_parse_u64_file(text, n, ret);
}

/* The first half of the rule, checked before anything is opened: most
 * interfaces on a PVE host are taps and veths without a `device` link. */
static bool has_device_link(int netfd, const char *name) {
  char path[IFNAMSIZ + sizeof("/device")];
  struct stat st;

  snprintf(path, sizeof(path), "%s/device", name);
  return fstatat(netfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static bool is_ethernet(int devfd) {
  uint64_t type;

  return read_small_decimal(devfd, "type", &type) == 0 &&
         type == NIC_TYPE_ETHER;
}

/* The NIC of that name and inode from the previous listing, or NULL. */
static struct nic *find_known(struct nic_list *old, const char *name,
                              ino_t ino) {
  for (size_t i = 0; i < old->count; i++) {
    struct nic *nic = &old->nic[i];
    if (!nic->reused && nic->ino == ino && strcmp(nic->name, name) == 0)
      return nic;
  }
  return NULL;
}

/* Opens whichever counter file is not open (a failed read closed it). */
static int open_counters(int devfd, struct nic *nic) {
  for (int f = 0; f < NIC_FILE_COUNT; f++) {
    int r = kept_file_open(&nic->file[f], devfd, counter_paths[f]);
    if (r < 0)
      return r;
  }
  return 0;
}

/* A NIC seen for the first time (or re-created): its files are opened. */
static int note_new(struct nic_list *list, int devfd, const char *name,
                    ino_t ino, bool *changed) {
  struct nic nic = {.ino = ino};
  int r;

  for (int f = 0; f < NIC_FILE_COUNT; f++)
    nic.file[f] = (struct kept_file)KEPT_FILE_INIT;
  snprintf(nic.name, sizeof(nic.name), "%s", name);
  /* A NIC without readable counters cannot be summed: left out. */
  if (open_counters(devfd, &nic) < 0) {
    nic_close(&nic);
    return 0;
  }
  r = list_push(list, &nic);
  if (r < 0)
    nic_close(&nic);
  else
    *changed = true;
  return r;
}

/* Adds the interface `name` to list when it is physical.  Interfaces that
 * vanish meanwhile are skipped. */
static int note_interface(struct nic_list *list, struct nic_list *old,
                          int netfd, const char *name, bool *changed) {
  struct stat st;
  struct nic *known;
  int devfd, r = 0;

  if (strlen(name) >= IFNAMSIZ || !has_device_link(netfd, name))
    return 0; /* not a kernel interface name, or not backed by a device */
  /* Follows the class/net symlink to the device's directory. */
  devfd = openat(netfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (devfd < 0)
    return 0;
  if (fstat(devfd, &st) == 0 && is_ethernet(devfd)) {
    known = find_known(old, name, st.st_ino);
    if (!known) {
      r = note_new(list, devfd, name, st.st_ino, changed);
    } else if (open_counters(devfd, known) == 0) {
      known->reused = true; /* marks both the old entry and the copy */
      r = list_push(list, known);
      known->reused = r == 0;
    }
  }
  close(devfd);
  return r;
}

static int list_interfaces(struct nic_counters *n, struct nic_list *list,
                           struct nic_list *old, bool *changed) {
  DIR *dir = opendir(n->class_net);
  struct dirent *de;
  int r = 0;

  if (!dir)
    return -errno;
  errno = 0;
  while (r == 0 && (de = readdir(dir)) != NULL) {
    if (de->d_name[0] != '.') /* ".", ".."; no interface name has a dot */
      r = note_interface(list, old, dirfd(dir), de->d_name, changed);
    errno = 0;
  }
  if (r == 0 && errno != 0)
    r = -errno;
  closedir(dir);
  return r;
}

/* Lists <sys>/class/net and replaces the NIC array; on failure the old
 * array stays as it was. */
static int rescan(struct nic_counters *n) {
  struct nic_list list = {0};
  bool changed = false;
  int r = list_interfaces(n, &list, &n->list, &changed);

  n->listings++;
  if (r < 0) {
    list_release(&list);
    list_clear_reused(&n->list);
    return r;
  }
  for (size_t i = 0; i < n->list.count; i++)
    changed |= !n->list.nic[i].reused; /* gone, or re-created */
  list_release(&n->list);
  list_clear_reused(&list);
  n->list = list;
  n->set_changed |= changed && n->listed;
  n->listed = true;
  n->runs_since_listing = 0;
  return 0;
}

/* Reads every NIC's counters into now[]; nothing is committed yet. */
static int read_all(struct nic_counters *n) {
  for (size_t i = 0; i < n->list.count; i++) {
    struct nic *nic = &n->list.nic[i];
    for (int f = 0; f < NIC_FILE_COUNT; f++) {
      size_t len;
      int r = kept_file_read(&nic->file[f], &n->buf, &len);
      if (r == 0)
        r = decimal_parse_u64_file(n->buf.data, len, &nic->now[f]);
      if (r == -EINVAL)
        return -EBADMSG; /* not a counter: say so as the parsers do */
      if (r < 0)
        return r;
    }
  }
  return 0;
}

static int add(uint64_t *sum, uint64_t v) {
  if (v > UINT64_MAX - *sum)
    return -ERANGE;
  *sum += v;
  return 0;
}

/* Sums now[] and moves it to last[]. */
static int commit(struct nic_counters *n, struct nic_totals *ret) {
  struct nic_totals t = {.nics = n->list.count, .continuous = true};

  for (size_t i = 0; i < n->list.count; i++) {
    const struct nic *nic = &n->list.nic[i];
    if (add(&t.rx_bytes, nic->now[NIC_RX]) < 0 ||
        add(&t.tx_bytes, nic->now[NIC_TX]) < 0)
      return -ERANGE;
    for (int f = 0; f < NIC_FILE_COUNT; f++)
      if (nic->have_last && nic->now[f] < nic->last[f])
        t.continuous = false;
  }
  for (size_t i = 0; i < n->list.count; i++) {
    struct nic *nic = &n->list.nic[i];
    memcpy(nic->last, nic->now, sizeof(nic->last));
    nic->have_last = true;
  }
  t.continuous &= !n->set_changed;
  n->set_changed = false;
  *ret = t;
  return 0;
}

int nic_counters_sample(struct nic_counters *n, struct nic_totals *ret) {
  bool listed_now = false;
  int r;

  if (!n->listed || n->runs_since_listing >= n->rescan_runs) {
    r = rescan(n);
    if (r < 0)
      return r;
    listed_now = true;
  }
  n->runs_since_listing++;
  r = read_all(n);
  /* A NIC that went away (or one that was re-created): list again now. */
  if (r < 0 && !listed_now) {
    r = rescan(n);
    if (r == 0)
      r = read_all(n);
  }
  return r < 0 ? r : commit(n, ret);
}

int nic_counters_new(const char *sys_root, unsigned rescan_runs,
                     struct nic_counters **ret) {
  struct nic_counters *n;
  int len;

  if (sys_root[0] != '/')
    return -EINVAL;
  n = calloc(1, sizeof(*n));
  if (!n)
    return -ENOMEM;
  len = snprintf(n->class_net, sizeof(n->class_net), "%s/class/net", sys_root);
  if (len < 0 || (size_t)len >= sizeof(n->class_net)) {
    free(n);
    return -EINVAL;
  }
  n->rescan_runs = rescan_runs;
  *ret = n;
  return 0;
}

void nic_counters_free(struct nic_counters *n) {
  if (!n)
    return;
  list_release(&n->list);
  read_buffer_free(&n->buf);
  free(n);
}

size_t nic_counters_fd_count(const struct nic_counters *n) {
  size_t fds = 0;

  for (size_t i = 0; i < n->list.count; i++)
    for (int f = 0; f < NIC_FILE_COUNT; f++)
      fds += n->list.nic[i].file[f].fd >= 0;
  return fds;
}

unsigned long nic_counters_listings(const struct nic_counters *n) {
  return n->listings;
}

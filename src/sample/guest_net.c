/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-guest network counters from /proc/net/dev (see guest_net.h).
 */
#include "guest_net.h"

#include "pvecg/grow.h"
#include "pvecg/net_dev.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "<digits>i<digits>" after the prefix: the VMID and the NIC index. */
static int parse_suffix(const char *s, uint32_t *vmid) {
  const char *i = strchr(s, 'i');
  uint32_t v;
  if (!i || vmid_parse(s, (size_t)(i - s), &v) < 0 || i[1] == '\0')
    return -EINVAL;
  for (const char *p = i + 1; *p; p++)
    if (*p < '0' || *p > '9')
      return -EINVAL;
  if (strlen(i + 1) > 3)
    return -EINVAL;
  *vmid = v;
  return 0;
}

int guest_net_parse_name(const char *name, enum guest_type *type,
                         uint32_t *vmid) {
  if (strncmp(name, "tap", 3) == 0 && parse_suffix(name + 3, vmid) == 0) {
    *type = GUEST_QEMU;
    return 0;
  }
  if (strncmp(name, "veth", 4) == 0 && parse_suffix(name + 4, vmid) == 0) {
    *type = GUEST_LXC;
    return 0;
  }
  return -EINVAL;
}

void guest_net_init(struct guest_net *net, const char *proc_root) {
  memset(net, 0, sizeof(*net));
  net->file = (struct kept_file)KEPT_FILE_INIT;
  net->error = -ENOENT;
  if (proc_root[0] != '\0')
    snprintf(net->path, sizeof(net->path), "%s/net/dev", proc_root);
}

void guest_net_free(struct guest_net *net) {
  kept_file_close(&net->file);
  read_buffer_free(&net->buf);
  free(net->entries);
  net->entries = NULL;
}

static int add_interface(const struct net_dev_counters *dev, void *ctx) {
  struct guest_net *net = ctx;
  enum guest_type type;
  uint32_t vmid;
  if (guest_net_parse_name(dev->name, &type, &vmid) < 0)
    return 0;
  struct guest_net_entry *e = grow_array(net->entries, net->count + 1,
                                         &net->cap, sizeof(*net->entries), 64);
  if (e == NULL)
    return -ENOMEM;
  net->entries = e;
  net->entries[net->count++] = (struct guest_net_entry){
      .key = guest_key(type, vmid), .in = dev->tx_bytes, .out = dev->rx_bytes};
  return 0;
}

static int compare_entry(const void *a, const void *b) {
  uint64_t x = ((const struct guest_net_entry *)a)->key;
  uint64_t y = ((const struct guest_net_entry *)b)->key;
  return x < y ? -1 : x > y;
}

/* Sorts by guest and folds each guest's interfaces into one entry. */
static void fold_entries(struct guest_net *net) {
  if (net->count == 0)
    return;
  qsort(net->entries, net->count, sizeof(*net->entries), compare_entry);
  size_t kept = 0;
  for (size_t i = 0; i < net->count; i++) {
    struct guest_net_entry *e = &net->entries[i];
    if (kept > 0 && net->entries[kept - 1].key == e->key) {
      net->entries[kept - 1].in += e->in;
      net->entries[kept - 1].out += e->out;
    } else {
      net->entries[kept++] = *e;
    }
  }
  net->count = kept;
}

int guest_net_refresh(struct guest_net *net) {
  size_t len = 0;
  net->count = 0;
  /* kept_file_read closes the file on a read error: reopened next time. */
  int err =
      net->path[0] ? kept_file_open(&net->file, AT_FDCWD, net->path) : -ENOENT;
  if (err == 0)
    err = kept_file_read(&net->file, &net->buf, &len);
  if (err == 0)
    err = net_dev_parse(net->buf.data, len, add_interface, net);
  if (err == 0)
    fold_entries(net);
  net->error = err;
  return err;
}

int guest_net_lookup(const struct guest_net *net, uint64_t key, uint64_t *in,
                     uint64_t *out) {
  if (net->error != 0)
    return net->error;
  struct guest_net_entry probe = {.key = key};
  const struct guest_net_entry *e =
      net->count ? bsearch(&probe, net->entries, net->count,
                           sizeof(*net->entries), compare_entry)
                 : NULL;
  *in = e ? e->in : 0;
  *out = e ? e->out : 0;
  return 0;
}

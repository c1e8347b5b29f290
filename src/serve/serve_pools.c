/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pool's members from user.cfg (see serve_pools.h).  Every pool line's
 * VMIDs are gathered with their order in the file; sorted by VMID, then
 * order, the first of each VMID is the pool Proxmox gives it.
 */
#include "serve_pools.h"

#include "pvecg/grow.h"
#include "pvecg/vmid.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct member {
  uint32_t vmid;
  size_t order;
  bool wanted; /* of the pool asked for */
};

struct members {
  struct member *item;
  size_t count, room, order;
};

struct field {
  const char *p;
  size_t n;
};

static bool space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static struct field trimmed(const char *p, size_t n) {
  while (n > 0 && space(p[0])) {
    p++;
    n--;
  }
  while (n > 0 && space(p[n - 1]))
    n--;
  return (struct field){p, n};
}

/* The line's fields split at ':', trimmed, at most max of them. */
static size_t split_fields(struct field line, struct field *out, size_t max) {
  size_t count = 0;
  while (count < max) {
    const char *colon = memchr(line.p, ':', line.n);
    size_t n = colon != NULL ? (size_t)(colon - line.p) : line.n;
    out[count++] = trimmed(line.p, n);
    if (colon == NULL)
      break;
    line.p += n + 1;
    line.n -= n + 1;
  }
  return count;
}

static int add(struct members *m, uint32_t vmid, bool wanted) {
  void *p = grow_array(m->item, m->count + 1, &m->room, sizeof(*m->item), 64);
  if (p == NULL)
    return -ENOMEM;
  m->item = p;
  m->item[m->count++] = (struct member){vmid, m->order++, wanted};
  return 0;
}

static bool list_separator(char c) {
  return c == ',' || c == ';' || space(c) || c == '\0';
}

/* Proxmox's m/^\d+$/ and int(): digits, leading zeros allowed.  A number
 * beyond any VMID is ignored as not a VMID. */
static bool digits_vmid(const char *p, size_t n, uint32_t *ret) {
  uint64_t v = 0;
  if (n == 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9')
      return false;
    v = v * 10 + (uint64_t)(p[i] - '0');
    if (v > VMID_MAX)
      return false;
  }
  *ret = (uint32_t)v;
  return v >= VMID_MIN;
}

/* The VMIDs of one pool line's member list. */
static int add_list(struct members *m, struct field list, bool wanted) {
  size_t i = 0;
  while (i < list.n) {
    while (i < list.n && list_separator(list.p[i]))
      i++;
    size_t start = i;
    while (i < list.n && !list_separator(list.p[i]))
      i++;
    uint32_t vmid;
    if (i > start && digits_vmid(list.p + start, i - start, &vmid) &&
        add(m, vmid, wanted) != 0)
      return -ENOMEM;
  }
  return 0;
}

static int by_vmid_order(const void *a, const void *b) {
  const struct member *x = a, *y = b;
  if (x->vmid != y->vmid)
    return x->vmid < y->vmid ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The wanted pool's VMIDs: those whose first line is the pool's. */
static int owned(struct members *m, uint32_t **vmids, size_t *count) {
  *vmids = NULL;
  *count = 0;
  if (m->count == 0)
    return 0;
  qsort(m->item, m->count, sizeof(*m->item), by_vmid_order);
  *vmids = malloc(m->count * sizeof(**vmids));
  if (*vmids == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < m->count; i++)
    if ((i == 0 || m->item[i - 1].vmid != m->item[i].vmid) && m->item[i].wanted)
      (*vmids)[(*count)++] = m->item[i].vmid;
  if (*count == 0) {
    free(*vmids);
    *vmids = NULL;
  }
  return 0;
}

int serve_pool_members(const char *text, size_t size, const char *pool,
                       uint32_t **vmids, size_t *count) {
  struct members m = {0};
  const char *pos = text, *end = text + size;
  bool found = false;
  int r = 0;
  while (pos < end && r == 0) {
    const char *nl = memchr(pos, '\n', (size_t)(end - pos));
    size_t n = nl != NULL ? (size_t)(nl - pos) : (size_t)(end - pos);
    struct field f[4];
    size_t fields = split_fields(trimmed(pos, n), f, 4);
    pos = nl != NULL ? nl + 1 : end;
    if (fields < 2 || f[0].n != 4 || memcmp(f[0].p, "pool", 4) != 0)
      continue;
    bool wanted = f[1].n == strlen(pool) && memcmp(f[1].p, pool, f[1].n) == 0;
    found |= wanted;
    if (fields == 4)
      r = add_list(&m, f[3], wanted);
  }
  if (r == 0)
    r = owned(&m, vmids, count);
  free(m.item);
  return r != 0 ? r : found ? 0 : -ENOENT;
}
